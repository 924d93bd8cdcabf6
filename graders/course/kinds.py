"""What the course asks of an exercise kind, and the place kinds register into.

The course layer reads each exercise file with its kind's model and checks what the model
cannot see, but it imports no kind: the kinds layer registers each kind here as it
registers it in its own registry (``kinds.registry.register``), as pytest's core asks its
plugin manager and never a plugin by name. The loader (``load``) asks by the YAML ``kind``.

    CourseSide        what any layer may ask of a kind: what its exercises are
    Item              one gradable unit of an exercise (a question, a code check)
    register          a kind made known to the course (by the kinds layer)
    kind_named        the kind registered under a YAML ``kind``; ``kind_names`` all of them
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from ..errors import Problem
    from .marks import Marks
    from .model import ExerciseBase

E = TypeVar("E", bound="ExerciseBase")


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


class CourseSide(Protocol[E]):
    """What any layer may ask of a kind: what its exercises are, as the course holds them."""

    name: str  # the YAML `kind`
    model: type[E]
    answers_section: str  # the mapping of an answers file (YAML) that holds its answers
    runs_jobs: bool  # whether grading runs sandbox jobs: one notebook's grader warms it early

    def file_problems(self, exercise: E, marks: Marks, root: Path) -> list[Problem]:
        """Problems of the exercise's files the model cannot see (code that does not
        parse, missing files): what ``graders validate`` reports before torch runs."""

    def items(self, exercise: E) -> list[Item]:
        """The gradable items, in order."""

    def answer_keys(self, exercise: E) -> list[str]:
        """The keys of the exercise's answer cells, in notebook order."""

    def files(self, exercise: E) -> list[str]:
        """Course files the exercise needs besides its own, relative to the course folder."""


_KINDS: dict[str, CourseSide[Any]] = {}
# How the kinds layer registers its built-in kinds the first time one is asked for (it
# adds this when imported): loading a course that needs no kind imports none.
_FINDERS: list[Callable[[], None]] = []


class NoKinds(LookupError):
    """No kind is registered, and nothing said how to find one: a program that loads a
    course without the kinds layer (``graders.load_course`` and a session import it)."""


def register(kind: CourseSide[Any]) -> None:
    """Make ``kind`` known to the course under its ``name``."""
    _KINDS[kind.name] = kind


def add_finder(find: Callable[[], None]) -> None:
    """``find`` registers kinds when one is first asked for (the kinds layer's built-ins)."""
    if find not in _FINDERS:
        _FINDERS.append(find)


def kind_named(name: str) -> CourseSide[Any] | None:
    """The kind registered under the YAML ``kind`` ``name``."""
    _found()
    return _KINDS.get(name)


def kind_names() -> list[str]:
    """Every registered kind's YAML ``kind``, sorted."""
    _found()
    return sorted(_KINDS)


def _found() -> None:
    for find in _FINDERS:
        find()
    if not _KINDS:
        raise NoKinds("no exercise kind is registered: import graders.kinds.registry first")
