"""What kinds share to lay out their exercises in a notebook and to read cells back.

A notebook is an ordered list of ``Part``. Every kind lays out its own exercises as parts
(``Kind.layout``); the notebook package renders them as the student, instructor and
nbgrader notebooks without asking which kind made them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .. import syntax
from ..i18n import N_, _, ngettext

if TYPE_CHECKING:
    from ..course.loaded import LoadedExercise

Role = Literal["intro", "exercise", "setup", "prompt", "answer"]


@dataclass(frozen=True)
class Filled:
    """Where the solution goes in an answer cell's starter: ``placeholder`` is the starter's
    line the learner replaces, ``lines`` the solution's lines in its place (indented alike)."""

    placeholder: str
    lines: str


@dataclass(frozen=True)
class Part:
    """One thing a notebook shows: a text, a setup, or a place to answer.

    An ``answer`` part is an answer cell: ``text`` is what learners start from,
    ``solution`` what earns full marks, ``tag`` its ``metadata.graders`` (how the cell is
    found again), ``explain`` the instructor notebook's explanation under it, and
    ``filled`` where in ``text`` the solution goes (None: the kind cannot say).
    """

    role: Role
    key: str  # "" (intro), an exercise id, or an answer key
    text: str  # markdown (intro, exercise, prompt) or source (setup, an answer cell's start)
    points: float = 0.0  # answer parts: what they are worth in this assignment
    solution: str | None = None  # answer parts: the source that earns full marks
    explain: str = ""  # answer parts: markdown shown under the solution (instructor)
    tag: Mapping[str, str] = field(default_factory=dict)  # answer parts: metadata.graders
    cell: str = "answer"  # answer parts: the cell id's prefix
    filled: Filled | None = None  # answer parts: the solution's place in the starter


@dataclass(frozen=True)
class Placed:
    """An exercise as placed in an assignment: its number and its points scale."""

    number: int
    loaded: LoadedExercise
    scale: float  # assignment points override / the exercise's own total (1.0 if none)
    seed: int  # the course seed, which the grader sets before every setup

    @property
    def points(self) -> float:
        return sum(i.points for i in self.loaded.kind.items(self.loaded.exercise)) * self.scale


def points_scale(loaded: LoadedExercise, points: float | None) -> float:
    """How an assignment's ``points`` override (the exercise's total) scales its items."""
    total = sum(i.points for i in loaded.kind.items(loaded.exercise))
    return points / total if points and total else 1.0


def exercise_header(p: Placed, lead: str) -> Part:
    """The exercise's title, its article section and what to do."""
    # Imported here: reading cells back (the learner's check) needs this module, not the
    # course's models.
    from ..course.model import in_article, section_label

    ex = p.loaded.exercise
    if in_article(ex.section):
        where = _("Article section **{section}**").format(section=ex.section)
    else:
        where = f"**{section_label(ex.section).capitalize()}**"
    worth = _("{where} · {points}.").format(where=where, points=points_text(p.points))
    text = f"## {p.number}. {ex.title}\n\n{worth}\n\n{lead}"
    return Part("exercise", ex.id, text)


def points_text(points: float) -> str:
    """``1 point``, ``2 points``, ``1.5 points``."""
    shown = f"{round(points, 2):g}"
    # "1 point", but "1.5 points": the plural follows the number as shown, not an int.
    return ngettext("{points} point", "{points} points", 1 if shown == "1" else 2).format(
        points=shown
    )


def has_magic(source: str) -> bool:
    """Is ``source`` not Python because of IPython lines (``!cmd``, ``%pip``)?

    Only a source that does not parse counts: a line starting with ``%`` can be the
    continuation of a valid expression.
    """
    if not any(line.lstrip().startswith(("!", "%")) for line in source.splitlines()):
        return False
    try:
        syntax.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return False


MAGIC_NOTE = N_(
    "Lines starting with `!` or `%` are IPython commands, not Python; the grader runs "
    "Python only, so this cell cannot be graded as written."
)
