"""The class report's view of variants: difficulty per variant, and answers that match
another learner's variant better than the learner's own (a copying signal).

Everything comes from the class's results: each question result names the variant it was
graded in and that variant's expected answer, so the expected answer of every variant seen
is at hand without running torch again. The difficulty is a tally of the report's one pass
(``VariantTally``); the copying signal compares learners with each other, so it takes two
passes of its own, holding the answers of the learners it flags only. The copying signal
is for the instructor (the class report is theirs; feedback pages never show it): a
learner whose answers are right for another learner's variant, and wrong for their own,
most likely copied that learner's answers, or answered from their notebook.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from ..answers.compare import compare
from ..answers.parse import AnswerSyntaxError, parse_answer
from ..answers.values import Value
from ..results import StudentResult
from .course_info import CourseInfo

MIN_MATCHES = 2  # answers right for another variant before a learner is listed
MAX_ROWS = 50

Vector = tuple[tuple[str, str], ...]  # (exercise, variant) of every exercise that varies


@dataclass(frozen=True)
class VariantShare:
    """How one variant of a question went: answers read, answers right."""

    variant: str
    answers: int
    correct: int

    @property
    def share(self) -> float:
        return self.correct / self.answers if self.answers else 0.0


@dataclass(frozen=True)
class VariantDifficulty:
    """A question asked in several variants, with the share right in each."""

    item: str
    variants: tuple[VariantShare, ...]

    @property
    def spread(self) -> float:
        """The share right of the easiest variant minus that of the hardest."""
        shares = [v.share for v in self.variants if v.answers]
        return max(shares) - min(shares) if shares else 0.0


@dataclass(frozen=True)
class CopySignal:
    """``student``'s answers fit ``other``'s variant better than their own."""

    student: str
    other: str
    compared: int  # answers on questions where their variants differ
    theirs: int  # of those, right for the other learner's variant
    own: int  # of those, right for the student's own
    same_answers: int  # answers written exactly as the other learner wrote them


@dataclass(frozen=True)
class VariantsReport:
    difficulty: tuple[VariantDifficulty, ...]  # widest spread first
    copying: tuple[CopySignal, ...]  # strongest first


class VariantTally:
    """Per question and variant, the answers read and right; the expected answer of each
    variant seen; the learners of each variant vector (first seen first)."""

    def __init__(self, info: CourseInfo) -> None:
        self.info = info
        self.counts: dict[str, dict[str, list[int]]] = {}
        self.expected: dict[tuple[str, str], Value] = {}  # (item, variant) -> literal items'
        self.vectors: dict[Vector, int] = {}

    def add(self, s: StudentResult) -> None:
        if not _varied(s):
            return
        vector = _vector(s)
        self.vectors[vector] = self.vectors.get(vector, 0) + 1
        for q in s.questions:
            if q.variant is None:
                continue
            seen = self.counts.setdefault(q.id, {}).setdefault(q.variant, [0, 0])
            seen[0] += 1
            seen[1] += q.passed
            key = (q.id, q.variant)
            if q.expected and key not in self.expected and self.info.item(q.id).literal:
                value = _parsed(q.expected)
                if value is not None:
                    self.expected[key] = value

    def difficulty(self) -> list[VariantDifficulty]:
        """Questions asked in several variants, widest spread first."""
        found = [
            VariantDifficulty(
                item, tuple(VariantShare(v, n, c) for v, (n, c) in sorted(by.items(), key=_number))
            )
            for item, by in self.counts.items()
            if len(by) > 1
        ]
        return sorted(found, key=lambda d: -d.spread)


def variants_report(
    tally: VariantTally, students: Callable[[], Iterable[StudentResult]]
) -> VariantsReport | None:
    """The variants section of a report from the tally of its pass, and ``students`` read
    twice more for the copying signal; None when no question had variants."""
    if not tally.vectors:
        return None
    copying = _copying(tally, students)
    return VariantsReport(tuple(tally.difficulty()), tuple(copying)[:MAX_ROWS])


@dataclass
class _Suspect:
    """A learner whose answers fit another variant vector better than their own, and the
    learner of that vector whose answers are most like theirs (found by a later pass)."""

    student: str
    vector: Vector
    compared: int
    theirs: int
    own: int
    answers: dict[str, str]  # their written answers, by item
    source: str = ""
    same: int = -1


def _copying(
    tally: VariantTally, students: Callable[[], Iterable[StudentResult]]
) -> list[CopySignal]:
    suspects = [
        found for s in students() if _varied(s) and (found := _suspect(s, tally)) is not None
    ]
    by_vector: dict[Vector, list[_Suspect]] = {}
    for suspect in suspects:
        by_vector.setdefault(suspect.vector, []).append(suspect)
    for other in students():
        if not _varied(other):
            continue
        for suspect in by_vector.get(_vector(other), ()):
            same = _same_answers(suspect.answers, other) if other.student != suspect.student else -1
            if same > suspect.same:  # the first of the most alike, in student order
                suspect.source, suspect.same = other.student, same
    signals = [
        CopySignal(x.student, x.source, x.compared, x.theirs, x.own, x.same)
        for x in suspects
        if x.source
    ]
    return sorted(signals, key=lambda c: (-(c.theirs - c.own), -c.same_answers, c.student))


def _suspect(s: StudentResult, tally: VariantTally) -> _Suspect | None:
    """The vector ``s``'s answers fit best, when it is another's and fits better than theirs."""
    best: _Suspect | None = None
    own_vector = _vector(s)
    for vector, learners in tally.vectors.items():
        theirs = dict(vector)
        compared = own = matched = 0
        for q in s.questions:
            other = theirs.get(q.exercise)
            if q.variant is None or other is None or other == q.variant or q.answer is None:
                continue
            value = _parsed(q.answer)
            truth = tally.expected.get((q.id, other))
            if value is None or truth is None:
                continue
            compared += 1
            own += q.passed
            matched += compare(value, truth).correct
        if matched < max(MIN_MATCHES, (compared + 1) // 2) or matched <= own:
            continue
        candidates = learners - (vector == own_vector)
        if not candidates or (best is not None and matched - own <= best.theirs - best.own):
            continue
        answers = {q.id: q.answer for q in s.questions if q.answer}
        best = _Suspect(s.student, vector, compared, matched, own, answers)
    return best


def _varied(s: StudentResult) -> bool:
    return s.read and any(q.variant for q in s.questions)


def _vector(s: StudentResult) -> Vector:
    pairs = [(q.exercise, q.variant) for q in s.questions if q.variant is not None]
    return tuple(dict.fromkeys(pairs))


def _same_answers(answers: Mapping[str, str], other: StudentResult) -> int:
    """How many of ``answers`` ``other`` wrote exactly so."""
    return sum(1 for q in other.questions if q.answer and answers.get(q.id) == q.answer)


@lru_cache(maxsize=8192)
def _parsed(text: str) -> Value | None:
    try:
        return parse_answer(text)
    except AnswerSyntaxError:
        return None


def _number(entry: tuple[str, list[int]]) -> tuple[int, str]:
    variant = entry[0]
    return (int(variant), variant) if variant.isdigit() else (0, variant)
