"""The class report's view of variants: difficulty per variant, and answers that match
another learner's variant better than the learner's own (a copying signal).

Everything comes from the results document: each question result names the variant it
was graded in and that variant's expected answer, so the expected answer of every variant
seen is at hand without running torch again. The copying signal is for the instructor
(the class report is theirs; feedback pages never show it): a learner whose answers are
right for another learner's variant, and wrong for their own, most likely copied that
learner's answers, or answered from their notebook.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from ..answers.compare import compare
from ..answers.parse import AnswerSyntaxError, parse_answer
from ..answers.values import Value
from ..results import ResultsDocument, StudentResult
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


def variants_report(doc: ResultsDocument, info: CourseInfo) -> VariantsReport | None:
    """The variants section of a report; None when no question of ``doc`` had variants."""
    read = [s for s in doc.read_students() if any(q.variant for q in s.questions)]
    if not read:
        return None
    return VariantsReport(tuple(_difficulty(read)), tuple(_copying(read, info))[:MAX_ROWS])


def _difficulty(students: list[StudentResult]) -> list[VariantDifficulty]:
    counts: dict[str, dict[str, list[int]]] = {}
    for s in students:
        for q in s.questions:
            if q.variant is not None:
                seen = counts.setdefault(q.id, {}).setdefault(q.variant, [0, 0])
                seen[0] += 1
                seen[1] += q.passed
    found = [
        VariantDifficulty(
            item, tuple(VariantShare(v, n, c) for v, (n, c) in sorted(by.items(), key=_number))
        )
        for item, by in counts.items()
        if len(by) > 1
    ]
    return sorted(found, key=lambda d: -d.spread)


def _copying(students: list[StudentResult], info: CourseInfo) -> list[CopySignal]:
    expected = _expected(students, info)
    vectors: dict[Vector, list[StudentResult]] = {}
    for s in students:
        vectors.setdefault(_vector(s), []).append(s)
    signals = []
    for s in students:
        found = _best_match(s, vectors, expected)
        if found is not None:
            signals.append(found)
    return sorted(signals, key=lambda c: (-(c.theirs - c.own), -c.same_answers, c.student))


def _best_match(
    s: StudentResult,
    vectors: Mapping[Vector, list[StudentResult]],
    expected: Mapping[tuple[str, str], Value],
) -> CopySignal | None:
    best: CopySignal | None = None
    for vector, others in vectors.items():
        theirs = dict(vector)
        compared = own = matched = 0
        for q in s.questions:
            other = theirs.get(q.exercise)
            if q.variant is None or other is None or other == q.variant or q.answer is None:
                continue
            value = _parsed(q.answer)
            truth = expected.get((q.id, other))
            if value is None or truth is None:
                continue
            compared += 1
            own += q.passed
            matched += compare(value, truth).correct
        if matched < max(MIN_MATCHES, (compared + 1) // 2) or matched <= own:
            continue
        candidates = [o for o in others if o.student != s.student]
        if not candidates or (best is not None and matched - own <= best.theirs - best.own):
            continue
        source = max(candidates, key=lambda o: _same_answers(s, o))
        same = _same_answers(s, source)
        best = CopySignal(s.student, source.student, compared, matched, own, same)
    return best


def _expected(students: list[StudentResult], info: CourseInfo) -> dict[tuple[str, str], Value]:
    """(item, variant) -> the expected value, for items whose answers are literals."""
    found: dict[tuple[str, str], Value] = {}
    for s in students:
        for q in s.questions:
            key = (q.id, q.variant or "")
            if q.variant and q.expected and key not in found and info.item(q.id).literal:
                value = _parsed(q.expected)
                if value is not None:
                    found[key] = value
    return found


def _vector(s: StudentResult) -> Vector:
    pairs = [(q.exercise, q.variant) for q in s.questions if q.variant is not None]
    return tuple(dict.fromkeys(pairs))


def _same_answers(one: StudentResult, other: StudentResult) -> int:
    theirs = {q.id: q.answer for q in other.questions}
    return sum(1 for q in one.questions if q.answer and theirs.get(q.id) == q.answer)


@lru_cache(maxsize=8192)
def _parsed(text: str) -> Value | None:
    try:
        return parse_answer(text)
    except AnswerSyntaxError:
        return None


def _number(entry: tuple[str, list[int]]) -> tuple[int, str]:
    variant = entry[0]
    return (int(variant), variant) if variant.isdigit() else (0, variant)
