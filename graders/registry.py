"""The exercise kinds, keyed by the YAML ``kind`` field.

A kind is a registry entry, never a branch: each module in ``graders/kinds`` calls
``@register`` on a class that fulfils ``Kind``. The loader asks the registry which model
validates an exercise file; the pipeline asks it how to prepare the truth and grade.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Protocol, TypeVar

from .errors import Problem
from .spec import ExerciseBase
from .yamlsource import Marks

if TYPE_CHECKING:
    from .results import QuestionResult
    from .sandbox import Runner
    from .spec import Course


@dataclass(frozen=True)
class Item:
    """One gradable unit of an exercise: a question or a code check."""

    id: str  # "<exercise-id>/<question-or-check-id>"
    points: float
    prompt: str
    section: str | None = None  # the article section it cites; None: the exercise's


@dataclass(frozen=True)
class ExerciseAnswers:
    """What one submission says about one exercise."""

    answers: Mapping[str, str]  # item id -> answer literal (predict)
    code: str | None = None  # source (code)
    notes: Mapping[str, str] = None  # type: ignore[assignment]  # item id -> extra feedback

    def note(self, item_id: str) -> str:
        return (self.notes or {}).get(item_id, "")


@dataclass(frozen=True)
class Context:
    """What kinds need from the outside world to prepare truth and grade."""

    course: "Course"
    root: Path
    runner: "Runner"
    cache_dir: Path | None


class Kind(Protocol):
    """The contract every exercise kind fulfils."""

    name: str
    model: type[ExerciseBase]

    def check(self, exercise: Any, marks: Marks, root: Path) -> list[Problem]:
        """Problems the model cannot see (code that does not parse, missing files)."""

    def items(self, exercise: Any) -> list[Item]:
        """The gradable items, in order."""

    def prepare(self, exercise: Any, ctx: Context) -> dict[str, Any]:
        """Compute, in torch, what answers are judged against (JSON-ready, cacheable)."""

    def problems(self, exercise: Any, prepared: dict[str, Any], marks: Marks) -> list[Problem]:
        """Problems found while preparing (a truth that cannot be computed)."""

    def grade(self, exercise: Any, prepared: dict[str, Any], given: ExerciseAnswers, ctx: Context) -> list["QuestionResult"]:
        """Grade one submission's answers for this exercise."""

    def key(self, exercise: Any, prepared: dict[str, Any]) -> dict[str, str]:
        """Item id -> what a learner should write to earn full marks."""


KINDS: dict[str, Kind] = {}
K = TypeVar("K")


def register(cls: type[K]) -> type[K]:
    """Class decorator: make this kind available under its ``name``."""
    instance = cls()
    KINDS[instance.name] = instance  # type: ignore[attr-defined]
    return cls


def get_kind(name: str) -> Kind | None:
    """The kind registered under ``name``, loading the built-in kinds first."""
    _load_builtin_kinds()
    return KINDS.get(name)


def sandbox_modules(exercises: Iterable[Any], root: Path) -> dict[str, tuple[str, str]]:
    """Modules (name -> (file, source)) the sandbox must import before forking, for these
    loaded exercises: what each kind says it needs (a code exercise's checker)."""
    found: dict[str, tuple[str, str]] = {}
    for loaded in exercises:
        needs = getattr(loaded.kind, "sandbox_modules", None)
        if needs is not None:
            found.update(needs(loaded.exercise, root))
    return found


def did_you_mean(word: str, choices: list[str]) -> str:
    """A ' (did you mean ...?)' suffix, or '' when nothing is close."""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.7)
    return f" (did you mean '{close[0]}'?)" if close else ""


def known_kinds() -> list[str]:
    _load_builtin_kinds()
    return sorted(KINDS)


def _load_builtin_kinds() -> None:
    # Imported here, not at module level: the kinds import the registry.
    from . import kinds  # noqa: F401
