"""What a format's writer is given and what it makes (``formats`` registers the writers).

ExportContext  what a writer may need beyond the results
Outline        what the output files' heads say of the whole class (one pass over it)
LearnerFiles   a format of a file per learner; one file is a ``results.ClassFile``
Writer         results and context -> one of the two
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ..results import ClassFile, ClassResults, StudentResult

if TYPE_CHECKING:
    from ..course.loaded import LoadedCourse
    from ..intake.roster import Roster


@dataclass(frozen=True)
class Outline:
    """What the output files' heads say of the whole class, from one pass over it."""

    question_ids: list[str]  # in assignment order
    with_roster: bool  # grades.csv has a roster column
    junit_counts: tuple[int, int, int]


class LearnerFiles(Protocol):
    """A format of a file per learner, written as the learners are read."""

    def stale(self) -> Iterable[str]:
        """Paths (relative to the outputs folder) of files that must not linger."""
        ...

    def file(self, s: StudentResult) -> tuple[str, str] | None:
        """The learner's file: its relative path and text; None when they get none."""
        ...


@dataclass(frozen=True)
class ExportContext:
    """What a writer may need beyond the results; each takes what it reads."""

    column: str = ""  # an import's assignment column
    points_possible: float = 0.0  # what the assignment is worth
    roster: Roster | None = None
    chosen: Mapping[str, str] = field(default_factory=dict)  # the format's options, as given
    loaded: LoadedCourse | None = None  # the course: feedback policy, learners' languages
    outline: Outline | None = None  # the class's question ids and counts, if already read


Writer = Callable[[ClassResults, ExportContext], "ClassFile | LearnerFiles"]
