"""The kind contract: everything graders asks an exercise kind, and the values it passes.

A kind is a registry entry (``registry``), never a branch. Each kind says how its
exercises are validated (``check``), what they grade (``items``), how their state is
prepared once per batch (``prepare``, typed by the kind), how a submission is graded, how
its cells are laid out in a notebook (``notebook_side``), named there (``labels``) and read back
(``read_cell``, ``cell_problem``), which course files a copy of it needs (``files``), and
how its answers aggregate in a class report (``literal_answers``, ``misconceptions``).
Nothing outside ``kinds/`` asks which kind an exercise is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..said import Told

if TYPE_CHECKING:
    # Types only: a notebook's reader (the learner's check) imports this module and must
    # not pay for the course's models.
    from ..course.marks import Marks
    from ..course.model import Course, ExerciseBase
    from ..errors import Problem
    from ..results import QuestionResult
    from ..sandbox import Job, Outcome
    from .notebook_side import Part, Placed


@dataclass(frozen=True)
class Item:
    """One gradable unit of an exercise: a question or a code check."""

    id: str  # "<exercise-id>/<question-or-check-id>"
    points: float
    prompt: str
    section: str | None = None  # the article section it cites; None: the exercise's
    # The ids the item had before under this exercise's current or former ids (the
    # exercise's own renames alone are the course's to apply: ``course/renames.py``).
    formerly: tuple[str, ...] = ()


@dataclass(frozen=True)
class Submission:
    """What one student handed in for one assignment, as plain data.

    ``answers`` is keyed by answer key, as each kind names its answer cells: an item id
    (``"ex/q"``) for a prediction, an exercise id for a code exercise's source.
    """

    student: str
    assignment: str
    answers: Mapping[str, str] = field(default_factory=dict)
    submitted_at: datetime | None = None
    notes: Mapping[str, Told] = field(default_factory=dict)  # answer key -> extra feedback
    # The course language the notebook was released in (presentation only: the learner's
    # feedback is written in it; grading never reads it).
    language: str | None = None

    def renamed(self, current: Mapping[str, str]) -> Submission:
        """The same answers under today's ids (``current``: former id -> id now); an answer
        given under both ids counts under today's."""
        if not current or not any(key in current for key in (*self.answers, *self.notes)):
            return self
        return replace(
            self, answers=_renamed(self.answers, current), notes=_renamed(self.notes, current)
        )


def _renamed(by_key: Mapping[str, V], current: Mapping[str, str]) -> dict[str, V]:
    out = {current.get(key, key): value for key, value in by_key.items() if key in current}
    out.update((key, value) for key, value in by_key.items() if key not in current)
    return out


@dataclass(frozen=True)
class ExerciseAnswers:
    """What one submission says about one exercise."""

    answers: Mapping[str, str]  # item id -> answer literal (predict)
    code: str | None = None  # source (code)
    notes: Mapping[str, Told] | None = None  # answer key -> extra feedback

    def note(self, item_id: str) -> Told:
        return (self.notes or {}).get(item_id, "")


class JobRunner(Protocol):
    """What kinds need of a sandbox runner: run a job, say how isolated it ran.

    ``sandbox.Runner`` fulfils it, and so does ``session.LazyRunner``, which starts the
    sandbox only when a first job comes (so ``isolation`` is only read, never set).
    """

    @property
    def isolation(self) -> str: ...

    def run(self, job: Job) -> Outcome: ...

    def run_all(self, jobs: Sequence[Job]) -> list[Outcome]: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Context:
    """What kinds need from the outside world to prepare their state and grade."""

    course: Course
    root: Path
    runner: JobRunner
    cache_dir: Path | None


@dataclass(frozen=True)
class DeclaredMisconception:
    """A misconception as one item declares it: the answer that reveals it, and why."""

    name: str
    answer: str
    explain: str


@dataclass(frozen=True)
class Reading:
    """What an answer cell says: its answer text (None: unanswered) and notes for feedback.

    ``rewrite`` is the cell as the notebook asks for it, when the kind can say (a
    prediction written without quotes: the same answer in quotes), for the pre-submit check.
    """

    text: str | None
    notes: tuple[Told, ...] = ()
    rewrite: str | None = None


@dataclass(frozen=True)
class CellReader:
    """A kind's answer cells as a notebook's reader needs them: the ``metadata.graders`` key
    that marks them and how one is read (the kind's ``read_cell`` and ``cell_problem``).

    Made from the kind's cells module (``kinds.BUILTIN_KINDS``), so reading a notebook
    loads none of what grading needs.
    """

    kind: str  # the YAML `kind`
    tag: str
    read_cell: Callable[[str, Mapping[str, Any]], Reading]
    cell_problem: Callable[[str, Mapping[str, Any]], Told | None]


E = TypeVar("E", bound="ExerciseBase")
P = TypeVar("P")
V = TypeVar("V")


class Kind(Protocol[E, P]):
    """The contract every exercise kind fulfils; ``E`` is its model, ``P`` its prepared state."""

    name: str  # the YAML `kind`
    model: type[E]
    cell_tag: str  # the key of metadata.graders that marks this kind's answer cells
    literal_answers: bool  # answers are literals: a report groups wrong ones by their form
    answers_section: str  # the mapping of an answers file (YAML) that holds this kind's answers

    def check(self, exercise: E, marks: Marks, root: Path) -> list[Problem]:
        """Problems the model cannot see (code that does not parse, missing files)."""

    def items(self, exercise: E) -> list[Item]:
        """The gradable items, in order."""

    def prepare(self, exercise: E, ctx: Context) -> P:
        """Compute, in torch, what answers are judged against (cached on disk)."""

    def prepare_many(self, exercises: Sequence[E], ctx: Context) -> list[P]:
        """``prepare`` for the variants of one exercise (together, where the kind can)."""

    def fingerprint(self, prepared: P) -> Any:
        """The prepared state as JSON: a grade is redone when it changes."""

    def problems(self, exercise: E, prepared: P, marks: Marks) -> list[Problem]:
        """Problems found while preparing (a truth that cannot be computed)."""

    def given(self, exercise: E, submission: Submission) -> ExerciseAnswers:
        """What ``submission`` answers for this exercise."""

    def jobs(self, exercise: E, prepared: P, given: ExerciseAnswers, ctx: Context) -> list[Job]:
        """The sandbox jobs ``grade`` will run for these answers (none for most kinds).

        The pipeline runs a submission's jobs together, in one child where it can
        (``kinds.prefetch``), before it calls ``grade``.
        """

    def grade(
        self, exercise: E, prepared: P, given: ExerciseAnswers, ctx: Context
    ) -> list[QuestionResult]:
        """Grade one submission's answers for this exercise."""

    def key(self, exercise: E, prepared: P) -> dict[str, str]:
        """Answer key -> what a learner should write to earn full marks."""

    def answer_keys(self, exercise: E) -> list[str]:
        """The keys of the exercise's answer cells, in notebook order."""

    def layout(self, placed: Placed, key: Mapping[str, str]) -> list[Part]:
        """The exercise's parts of a notebook (``key`` may be empty)."""

    def labels(self, placed: Placed) -> dict[str, str]:
        """Answer key and item id -> how the notebook names it (``Question 1.2``)."""

    def hint(self) -> str:
        """How to answer this kind's cells, for a notebook's introduction."""

    def read_cell(self, source: str, meta: Mapping[str, Any]) -> Reading:
        """What a submitted answer cell of this kind says (nothing in it is run)."""

    def cell_problem(self, source: str, meta: Mapping[str, Any]) -> Told | None:
        """For the pre-submit check: None unanswered, "" readable, else why it cannot be read."""

    def files(self, exercise: E) -> list[str]:
        """Course files the exercise needs besides its own, relative to the course folder."""

    def misconceptions(self, exercise: E) -> dict[str, tuple[DeclaredMisconception, ...]]:
        """Item id -> the misconceptions it declares (for the class report)."""


AnyKind = Kind[Any, Any]
