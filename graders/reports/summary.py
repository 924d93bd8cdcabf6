"""The course summary: every graded assignment side by side (ps1, ps2, ...).

Aggregation over several assignments' results, one pass over each, in course order;
``None`` marks what an assignment cannot say (a student who handed nothing in, a
misconception it never asks about), which is not the same as 0.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..i18n import _
from ..results import ClassResults
from . import charts
from .aggregate import LOW_SHARE, QuestionTally, ScoreTally
from .course_info import CourseInfo
from .items import ItemStats, ItemTally
from .misconceptions import MisconceptionTally
from .terms import ItemAcrossTerms, across_terms, term_items


@dataclass(frozen=True)
class AssignmentSummary:
    """One assignment in a line."""

    id: str
    title: str
    submissions: int
    graded: int
    late: int  # graded with a late penalty, or past the cutoff
    ungradable: int
    mean_share: float | None  # mean final score / max, graded submissions
    median_share: float | None
    correct_share: float | None  # correct answers / answers read


@dataclass(frozen=True)
class TrendRow:
    """A student or a misconception, one value per assignment (None: not applicable)."""

    name: str
    values: tuple[float | None, ...]

    @property
    def mean(self) -> float | None:
        present = [v for v in self.values if v is not None]
        return statistics.fmean(present) if present else None


@dataclass(frozen=True)
class CourseSummary:
    """Everything the course page shows."""

    course_id: str
    course_title: str
    assignments: tuple[AssignmentSummary, ...]
    trend: charts.Trend
    misconceptions: tuple[TrendRow, ...]  # share of read submissions holding it
    students: tuple[TrendRow, ...]  # final score share
    struggling: tuple[TrendRow, ...]  # under LOW_SHARE on two or more assignments
    # The questions the item analysis flags, assignment by assignment (course order).
    flagged: tuple[tuple[str, ItemStats], ...] = ()
    # Each question asked in two or more terms, with its figures in each (``terms``).
    across_terms: tuple[ItemAcrossTerms, ...] = ()
    terms: tuple[str, ...] = ()  # the terms compared, in the order shown: this one last


def course_summary(
    classes: Sequence[ClassResults],
    info: CourseInfo,
    earlier: Sequence[tuple[str, Sequence[ClassResults]]] = (),
) -> CourseSummary:
    """Summarise the results of several assignments of one course, in course order;
    ``earlier``: the same course's results in earlier terms (name, results), each question
    compared across them and this term (``info.term``)."""
    ordered = sorted(classes, key=lambda c: _course_position(info, c.assignment))
    tallies = [_AssignmentTally.of(results, info) for results in ordered]
    this_term = {(t.summary.id, i.item): i for t in tallies for i in t.items}
    terms = [(name, term_items(found, info)) for name, found in earlier if found]
    terms += [(info.term, this_term)] if terms else []
    lines = tuple(t.summary for t in tallies)
    students = tuple(student_trend(tallies))
    trend = charts.trend_chart(
        [a.id for a in lines],
        {
            _("mean score"): [a.mean_share for a in lines],
            _("median score"): [a.median_share for a in lines],
            _("answers correct"): [a.correct_share for a in lines],
        },
    )
    struggling = tuple(
        s for s in students if sum(v is not None and v < LOW_SHARE for v in s.values) >= 2
    )
    return CourseSummary(
        course_id=ordered[0].course if ordered else info.id,
        course_title=info.title or info.id,
        assignments=lines,
        trend=trend,
        misconceptions=tuple(misconception_trend(tallies)),
        students=students,
        struggling=struggling,
        flagged=tuple((t.summary.id, i) for t in tallies for i in t.items if i.flags),
        across_terms=across_terms(terms, info),
        terms=tuple(name for name, _found in terms),
    )


@dataclass(frozen=True)
class _AssignmentTally:
    """What the course summary keeps of one assignment, from one pass over its students."""

    summary: AssignmentSummary
    shares: dict[str, float | None]  # student -> final score share (None: nothing read)
    holders: dict[str, float]  # misconception -> share of read submissions holding it
    declared: frozenset[str]  # misconceptions its questions declare
    items: tuple[ItemStats, ...] = ()  # its item analysis

    @classmethod
    def of(cls, results: ClassResults, info: CourseInfo) -> _AssignmentTally:
        scores, questions, held = ScoreTally(), QuestionTally(), MisconceptionTally()
        items = ItemTally()
        statuses: Counter[str] = Counter()
        late = 0
        final: dict[str, float | None] = {}  # student -> their score, when it was read
        for s in results.students():
            for tally in (scores, questions, held, items):
                tally.add(s)
            statuses[s.status.value] += 1
            late += s.status == "late-cutoff" or s.late_factor < 1.0
            final[s.student] = round(s.score, 4) if s.read else None
        top = scores.top
        return cls(
            _summary(results, info, scores, questions, statuses, late),
            {
                name: score / top if score is not None and top else None
                for name, score in final.items()
            },
            _holder_shares(held),
            frozenset(info.declared(questions.order(info, results.assignment))),
            tuple(items.stats(info, questions.order(info, results.assignment))),
        )


def _summary(
    results: ClassResults,
    info: CourseInfo,
    scores: ScoreTally,
    questions: QuestionTally,
    statuses: Counter[str],
    late: int,
) -> AssignmentSummary:
    """Counts and central scores of one assignment, as shares of its total points."""
    top = scores.top
    shares = [score / top for score in scores.scores] if top else []
    answers = sum(sum(c.values()) for c in questions.counts.values())
    correct = sum(c["correct"] for c in questions.counts.values())
    declared = info.assignment(results.assignment)
    return AssignmentSummary(
        id=results.assignment,
        title=declared.title if declared else "",
        submissions=results.count - statuses["missing"],  # missing: none handed in
        graded=statuses["graded"],
        late=late,
        ungradable=statuses["ungradable"] + statuses["internal"],
        mean_share=statistics.fmean(shares) if shares else None,
        median_share=statistics.median(shares) if shares else None,
        correct_share=correct / answers if answers else None,
    )


def student_trend(tallies: Sequence[_AssignmentTally]) -> list[TrendRow]:
    """Each student's final score share per assignment, by name."""
    names = sorted({n for t in tallies for n in t.shares})
    return [TrendRow(n, tuple(t.shares.get(n) for t in tallies)) for n in names]


def misconception_trend(tallies: Sequence[_AssignmentTally]) -> list[TrendRow]:
    """Share of read submissions holding each misconception, per assignment; None where the
    assignment's questions do not declare it and nobody showed it."""
    names = sorted({n for t in tallies for n in t.holders})
    rows = [
        TrendRow(n, tuple(t.holders.get(n, 0.0 if n in t.declared else None) for t in tallies))
        for n in names
    ]
    return sorted(rows, key=lambda r: (-(r.mean or 0.0), r.name))


def _holder_shares(held: MisconceptionTally) -> dict[str, float]:
    read = len(held.held)
    counts: dict[str, int] = {}
    for names in held.held.values():
        for n in names:
            counts[n] = counts.get(n, 0) + 1
    return {n: c / read for n, c in counts.items()} if read else {}


def _course_position(info: CourseInfo, assignment: str) -> tuple[int, str]:
    ids = [a.id for a in info.assignments]
    return (ids.index(assignment) if assignment in ids else len(ids), assignment)
