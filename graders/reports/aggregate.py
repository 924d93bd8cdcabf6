"""Aggregation over a class's results: scores, questions, students.

Each aggregate is a tally that takes the students one at a time (``add``), so the class
report gathers every one of them in one pass over the gradebook (``model``); the functions
over a results document feed one tally with the document's students.

Two populations are kept apart on purpose. Score statistics count ``graded`` submissions
only (a ``late-cutoff`` score is 0 by policy, not by understanding). Question statistics
count every submission that was read (``graded`` and ``late-cutoff``): what a learner
answered says what they understood, whenever they handed it in. ``ungradable``
submissions and ``missing`` students (on the roster, nothing handed in) have no answers and
appear only in the student table and the list of problems.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..i18n import _, current_language
from ..results import ClassResults, QuestionResult, ResultsDocument, StudentResult
from .course_info import CourseInfo, ItemInfo

QUESTION_STATUSES = ("correct", "wrong", "invalid", "unanswered", "error", "timeout", "integrity")
MAX_BINS = 12  # histogram bars: enough to see a shape, few enough to label on a phone
LOW_SHARE = 0.5  # below half of the points: may need help
MANY_MISCONCEPTIONS = 2  # the fewest distinct misconceptions that may mean a student needs help
UNREAD = ("ungradable", "internal", "missing")  # submission statuses without answers to count


@dataclass(frozen=True)
class Bin:
    """One histogram bar: scores in [lo, hi) (the last bar includes hi)."""

    lo: float
    hi: float
    count: int


@dataclass(frozen=True)
class ScoreStats:
    """The distribution of final scores of graded submissions."""

    count: int
    max_score: float
    mean: float | None
    median: float | None
    highest: float | None
    lowest: float | None
    bins: tuple[Bin, ...]


@dataclass(frozen=True)
class QuestionStats:
    """How the class did on one question or code check."""

    info: ItemInfo
    counts: Mapping[str, int]  # status -> submissions
    total: int
    max_points: float
    expected: str | None

    @property
    def id(self) -> str:
        return self.info.id

    def share(self, status: str) -> float:
        """The fraction of submissions with ``status`` (0 when nobody answered)."""
        return self.counts.get(status, 0) / self.total if self.total else 0.0


@dataclass(frozen=True)
class StudentRow:
    """One submission, summarised: what the class report keeps of each student."""

    student: str
    status: str
    score: float
    max_score: float
    raw_score: float  # points before any late penalty
    late_factor: float
    error: str | None
    counts: Mapping[str, int]
    misconceptions: tuple[str, ...]

    @property
    def read(self) -> bool:
        """Were the answers read (not ungradable, and something was handed in)?"""
        return self.status not in UNREAD

    @property
    def share(self) -> float:
        return self.score / self.max_score if self.max_score else 0.0

    @property
    def raw_share(self) -> float:
        return self.raw_score / self.max_score if self.max_score else 0.0


@dataclass(frozen=True)
class StudentAnswers(StudentRow):
    """One submission with its answers, for the drill-down (made as the page is written)."""

    questions: tuple[QuestionResult, ...] = ()


@dataclass(frozen=True)
class ClassRows:
    """Every submission with its answers, in student order: each iteration reads the class
    again, a student at a time, so a report of any class holds one student's answers."""

    results: ClassResults

    def __iter__(self) -> Iterator[StudentAnswers]:
        return (student_answers(s) for s in self.results.students())

    def __len__(self) -> int:
        return self.results.count


@dataclass(frozen=True)
class HelpNeeded:
    """A student who may need help, and why."""

    row: StudentRow
    reasons: tuple[str, ...]


class Tally(Protocol):
    """An aggregate gathered a student at a time."""

    def add(self, s: StudentResult) -> None: ...


T = TypeVar("T", bound=Tally)


def over(students: Iterable[StudentResult], tally: T) -> T:
    """``tally`` with every one of ``students`` added."""
    for s in students:
        tally.add(s)
    return tally


def question_results(doc: ResultsDocument) -> Iterator[tuple[StudentResult, QuestionResult]]:
    """Every (student, question result) pair of the read submissions."""
    for s in doc.read_students():
        for q in s.questions:
            yield s, q


def _round(x: float) -> float:
    return round(x, 4)  # as the results document writes scores, so reports match its files


class ScoreTally:
    """The final scores of graded submissions, and the assignment's total points."""

    def __init__(self) -> None:
        self.scores: list[float] = []  # a number per graded student: what a median needs
        self.top = 0.0  # every read submission has the same total

    def add(self, s: StudentResult) -> None:
        if s.read:
            self.top = max(self.top, _round(s.max_score))
        if s.status == "graded":
            self.scores.append(_round(s.score))

    def stats(self) -> ScoreStats:
        """Mean, median, extremes and histogram."""
        scores, top = self.scores, self.top
        if not scores:
            return ScoreStats(0, top, None, None, None, None, histogram(scores, top))
        return ScoreStats(
            len(scores),
            top,
            statistics.fmean(scores),
            statistics.median(scores),
            max(scores),
            min(scores),
            histogram(scores, top),
        )


def max_score(doc: ResultsDocument) -> float:
    """The assignment's total points (every read submission has the same total)."""
    return over(doc.students, ScoreTally()).top


def score_stats(doc: ResultsDocument) -> ScoreStats:
    """Mean, median, extremes and histogram of graded submissions' final scores."""
    return over(doc.students, ScoreTally()).stats()


def histogram(scores: list[float], top: float) -> tuple[Bin, ...]:
    """Bars from 0 to ``top``: one per point for small whole totals, else of a round width
    (1, 2, 2.5 or 5 times a power of ten) giving at most MAX_BINS bars."""
    if top <= 0:
        return ()
    width = bin_width(top)
    n = max(1, math.ceil(top / width - 1e-9))
    counts = Counter(min(max(int(s / width + 1e-9), 0), n - 1) for s in scores)
    return tuple(Bin(i * width, min((i + 1) * width, top), counts.get(i, 0)) for i in range(n))


def bin_width(top: float) -> float:
    """The histogram's bar width for scores out of ``top``."""
    if abs(top - round(top)) < 1e-9 and top <= MAX_BINS:
        return 1.0
    scale = 10.0 ** math.floor(math.log10(top / MAX_BINS))
    return next(m * scale for m in (1, 2, 2.5, 5, 10) if top / (m * scale) <= MAX_BINS + 1e-9)


class QuestionTally:
    """Status counts, points and expected answer of each item, as the read submissions give
    them, in the order they are first seen."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = {}
        self.points: dict[str, float] = {}
        self.expected: dict[str, str | None] = {}
        self.sections: dict[str, str] = {}  # the section a result carries, for unknown items

    def add(self, s: StudentResult) -> None:
        if not s.read:
            return
        for q in s.questions:
            self.counts.setdefault(q.id, Counter())[q.status.value] += 1
            self.points[q.id] = max(self.points.get(q.id, 0.0), _round(q.max_points))
            self.expected[q.id] = self.expected.get(q.id) or q.expected
            if q.section and not self.sections.get(q.id):
                self.sections[q.id] = q.section

    def order(self, info: CourseInfo, assignment: str) -> list[str]:
        """Item ids in course order when the course knows the assignment, else as first seen."""
        seen = list(self.counts)
        declared = info.assignment(assignment)
        if declared is None:
            return seen
        known = [i for i in declared.items if i in self.counts]
        return known + [i for i in seen if i not in declared.items]

    def stats(self, info: CourseInfo, assignment: str) -> list[QuestionStats]:
        """Status counts per question, in course order."""
        return [
            QuestionStats(
                self._item_info(info, i),
                dict(self.counts[i]),
                sum(self.counts[i].values()),
                self.points[i],
                self.expected[i],
            )
            for i in self.order(info, assignment)
        ]

    def _item_info(self, info: CourseInfo, item_id: str) -> ItemInfo:
        # A document carries each question's section; the course's word comes first.
        found = info.item(item_id)
        if found.section or item_id in info.items:
            return found
        return ItemInfo(
            found.id,
            found.exercise,
            found.exercise_title,
            self.sections.get(item_id, ""),
            found.prompt,
            found.literal,
        )


def item_order(doc: ResultsDocument, info: CourseInfo) -> list[str]:
    """Item ids in course order when the course knows the assignment, else as first seen."""
    return over(doc.students, QuestionTally()).order(info, doc.assignment)


def question_stats(doc: ResultsDocument, info: CourseInfo) -> list[QuestionStats]:
    """Status counts per question, in course order."""
    return over(doc.students, QuestionTally()).stats(info, doc.assignment)


def hardest_first(stats: list[QuestionStats]) -> list[QuestionStats]:
    """Questions from the lowest share correct to the highest; more wrong answers first on ties."""
    return sorted(stats, key=lambda q: (q.share("correct"), -q.share("wrong"), q.id))


def student_rows(doc: ResultsDocument) -> list[StudentAnswers]:
    """One row per submission (including ungradable ones) with its answers, in document order."""
    return [student_answers(s) for s in doc.students]


def needs_help(
    rows: list[StudentRow], low_share: float = LOW_SHARE, many: int | None = None
) -> list[HelpNeeded]:
    """Read submissions with under ``low_share`` of the points (before late penalties) or
    at least ``many`` distinct misconceptions (default: ``many_misconceptions``); lowest first."""
    read = [r for r in rows if r.read]
    threshold = many if many is not None else many_misconceptions(read)
    found = []
    for row in read:
        reasons = []
        if row.raw_share < low_share:
            reasons.append(_("{share} of the points").format(share=f"{row.raw_share:.0%}"))
        if len(row.misconceptions) >= threshold:
            reasons.append(_("{n} misconceptions").format(n=len(row.misconceptions)))
        if reasons:
            found.append(HelpNeeded(row, tuple(reasons)))
    return sorted(found, key=lambda h: (h.row.raw_share, -len(h.row.misconceptions), h.row.student))


def many_misconceptions(rows: list[StudentRow]) -> int:
    """How many misconceptions are "several": at least MANY_MISCONCEPTIONS, and more than
    three quarters of the class hold, so a long assignment does not flag everybody."""
    counts = sorted(len(r.misconceptions) for r in rows)
    upper_quartile = counts[math.ceil(0.75 * len(counts)) - 1] if counts else 0
    return max(MANY_MISCONCEPTIONS, upper_quartile + 1)


def late_or_ungradable(rows: list[StudentRow]) -> list[StudentRow]:
    """Submissions that lost points to lateness, passed the cutoff, could not be read, or are
    missing (on the roster, nothing handed in)."""
    return [r for r in rows if r.status != "graded" or r.late_factor < 1.0]


def student_row(s: StudentResult) -> StudentRow:
    """What the report keeps of one submission."""
    return StudentRow(**_row_fields(s))


def student_answers(s: StudentResult) -> StudentAnswers:
    """One submission with its answers."""
    return StudentAnswers(**_row_fields(s), questions=s.questions)


def _row_fields(s: StudentResult) -> dict[str, Any]:
    return dict(
        student=s.student,
        status=s.status.value,
        score=_round(s.score),
        max_score=_round(s.max_score),
        raw_score=_round(s.raw_score),
        late_factor=s.late_factor,
        error=s.error_in(current_language()),
        counts=dict(Counter(q.status.value for q in s.questions)),
        misconceptions=s.misconceptions,
    )
