"""The values passed between graders and its exercise kinds (the contract itself, which
says who asks a kind what, is ``contract``).

    Submission      what one learner handed in for one assignment, as plain data
    ExerciseAnswers what a submission says about one exercise
    Context         what kinds need of the outside world to prepare and grade
    TruthStore      where what a kind prepares in torch is kept between runs (the
                    caller's: grading's truth cache fulfils it)
    Reading         what one answer cell says, read without running it
    CellReader      a kind's answer cells as a notebook's reader finds and reads them
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
    from ..course.model import Course
    from ..sandbox import Job, Limits, Outcome


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
    # Answer key -> why the answer cannot be read (half a character: a lone surrogate): that
    # answer is invalid, saying so; its text is in ``answers`` as it can be stored.
    unreadable: Mapping[str, Told] = field(default_factory=dict)

    def renamed(self, current: Mapping[str, str]) -> Submission:
        """The same answers under today's ids (``current``: former id -> id now); an answer
        given under both ids counts under today's."""
        keys = (*self.answers, *self.notes, *self.unreadable)
        if not current or not any(key in current for key in keys):
            return self
        return replace(
            self,
            answers=_renamed(self.answers, current),
            notes=_renamed(self.notes, current),
            unreadable=_renamed(self.unreadable, current),
        )


V = TypeVar("V")


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
    unreadable: Mapping[str, Told] | None = None  # answer key -> why it cannot be read

    def note(self, item_id: str) -> Told:
        return (self.notes or {}).get(item_id, "")

    def problem(self, key: str) -> Told:
        """Why the answer ``key`` cannot be read ("": it can): it is then ``invalid``."""
        return (self.unreadable or {}).get(key, "")


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
    # Where the course keeps what torch computed (None: nothing kept). Grading's truth cache
    # reads it; a kind never does: it is handed a ``TruthStore``.
    cache_dir: Path | None

    @property
    def limits(self) -> Limits:
        """The sandbox limits the course asks for (a job may narrow them)."""
        from ..sandbox import Limits

        limits = self.course.limits
        return Limits(
            timeout_s=limits.timeout_s, cpu_s=limits.timeout_s, memory_mib=limits.memory_mib
        )


JSONResult = dict[str, Any]


class TruthStore(Protocol):
    """Where what a kind computes in torch is kept between runs: the caller's to decide.

    A kind names an entry (an exercise id, or one with a suffix of the kind's) and the hash
    of everything its result depends on, and says how to compute it; the store decides
    where the result is kept and when it is stale (``grading.truth_cache`` adds the course's
    seed and the torch version). A result holding an ``error`` is never kept: a crash or a
    timeout may be the machine's, not the course's.
    """

    def cached(self, name: str, key: str, compute: Callable[[], JSONResult]) -> JSONResult:
        """``compute()``'s result, or the one kept for this name and key."""

    def cached_many(
        self,
        entries: Sequence[tuple[str, str]],
        compute: Callable[[list[int]], list[JSONResult]],
    ) -> list[JSONResult]:
        """``cached`` for several (name, key) entries: ``compute`` gets the indexes of
        those not kept, and computes them together."""


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
