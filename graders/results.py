"""Results of grading: per question, per submission, and the results document.

The results document is the one format every later output (tables, notebooks feedback,
CI reports, gradebook exports) is made from:

    {course, assignment, torch_version, graded_at, isolation,
     students: [{student, score, max_score, status, error, late_factor,
                 questions: [{id, status, points, max_points, answer, expected,
                              feedback, misconception}]}]}
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Any


class Status(str, Enum):
    """What happened to one question or check."""

    CORRECT = "correct"
    WRONG = "wrong"  # includes partial credit on a code check
    UNANSWERED = "unanswered"
    INVALID = "invalid"  # the answer does not parse / the code is malformed
    ERROR = "error"  # the code raised or crashed, or the question could not be graded
    TIMEOUT = "timeout"
    INTEGRITY = "integrity"  # the submission tampered with grading


class SubmissionStatus(str, Enum):
    """What happened to a whole submission."""

    GRADED = "graded"
    LATE_CUTOFF = "late-cutoff"  # graded, but submitted after the hard cutoff: score 0
    UNGRADABLE = "ungradable"  # could not be read at all


@dataclass(frozen=True)
class QuestionResult:
    """The grade of one question (``exercise/question``) or code check (``exercise/check``)."""

    id: str
    status: Status
    points: float
    max_points: float
    answer: str | None = None
    expected: str | None = None
    feedback: str = ""
    misconception: str | None = None

    def scaled(self, factor: float) -> "QuestionResult":
        """The same result with points multiplied (assignment points overrides)."""
        return replace(self, points=self.points * factor, max_points=self.max_points * factor)

    def to_json(self) -> dict[str, Any]:
        # A shallow copy of the fields: dataclasses.asdict deep-copies each one, and this
        # runs for every question of every student, twice (saving, then the results document).
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["status"] = self.status.value
        data["points"] = round(self.points, 4)
        data["max_points"] = round(self.max_points, 4)
        return data


@dataclass(frozen=True)
class SubmissionResult:
    """One student's graded submission of one assignment."""

    student: str
    questions: tuple[QuestionResult, ...]
    status: SubmissionStatus = SubmissionStatus.GRADED
    error: str | None = None
    late_factor: float = 1.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def max_score(self) -> float:
        return sum(q.max_points for q in self.questions)

    @property
    def raw_score(self) -> float:
        return sum(q.points for q in self.questions)

    @property
    def score(self) -> float:
        if self.status is not SubmissionStatus.GRADED:
            return 0.0
        return self.raw_score * self.late_factor

    def to_json(self) -> dict[str, Any]:
        return {
            "student": self.student,
            "score": round(self.score, 4),
            "max_score": round(self.max_score, 4),
            "status": self.status.value,
            "error": self.error,
            "late_factor": self.late_factor,
            **self.extra,
            "questions": [q.to_json() for q in self.questions],
        }


def results_document(
    course: str, assignment: str, torch_version: str, graded_at: str,
    isolation: str | None, submissions: list[SubmissionResult],
) -> dict[str, Any]:
    """The results document, the one JSON shape every output is made from."""
    return {
        "course": course,
        "assignment": assignment,
        "torch_version": torch_version,
        "graded_at": graded_at,
        "isolation": isolation,
        "students": [s.to_json() for s in submissions],
    }
