"""The course summary: every graded assignment side by side (ps1 -> ps3).

Pure aggregation over several results documents, in course order; ``None`` marks what an
assignment cannot say (a student who handed nothing in, a misconception it never asks
about), which is not the same as 0.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ..i18n import _
from ..results import ResultsDocument, Status, StudentResult
from . import charts
from .aggregate import LOW_SHARE, item_order, max_score, question_results
from .course_info import CourseInfo
from .misconceptions import holdings


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


def course_summary(docs: Sequence[ResultsDocument], info: CourseInfo) -> CourseSummary:
    """Summarise results documents of several assignments of one course, in course order."""
    docs = sorted(docs, key=lambda d: _course_position(info, d.assignment))
    lines = tuple(assignment_summary(d, info) for d in docs)
    students = tuple(student_trend(docs))
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
        course_id=docs[0].course if docs else info.id,
        course_title=info.title or info.id,
        assignments=lines,
        trend=trend,
        misconceptions=tuple(misconception_trend(docs, info)),
        students=students,
        struggling=struggling,
    )


def assignment_summary(doc: ResultsDocument, info: CourseInfo) -> AssignmentSummary:
    """Counts and central scores of one assignment, as shares of its total points."""
    students = doc.students
    top = max_score(doc)
    shares = [round(s.score, 4) / top for s in students if s.status == "graded" and top]
    answers = [q.status for _, q in question_results(doc)]
    declared = info.assignment(doc.assignment)
    return AssignmentSummary(
        id=doc.assignment,
        title=declared.title if declared else "",
        submissions=sum(s.status != "missing" for s in students),  # missing: none handed in
        graded=sum(s.status == "graded" for s in students),
        late=sum(s.status == "late-cutoff" or s.late_factor < 1.0 for s in students),
        ungradable=sum(s.status == "ungradable" for s in students),
        mean_share=statistics.fmean(shares) if shares else None,
        median_share=statistics.median(shares) if shares else None,
        correct_share=answers.count(Status.CORRECT) / len(answers) if answers else None,
    )


def student_trend(docs: Sequence[ResultsDocument]) -> list[TrendRow]:
    """Each student's final score share per assignment, by name."""
    names = sorted({s.student for d in docs for s in d.students})
    tables = [{s.student: s for s in d.students} for d in docs]
    tops = [max_score(d) for d in docs]
    return [
        TrendRow(n, tuple(_share(t.get(n), top) for t, top in zip(tables, tops, strict=True)))
        for n in names
    ]


def misconception_trend(docs: Sequence[ResultsDocument], info: CourseInfo) -> list[TrendRow]:
    """Share of read submissions holding each misconception, per assignment; None where the
    assignment's questions do not declare it and nobody showed it."""
    per_doc = [_holder_shares(d) for d in docs]
    declared = [set(info.declared(item_order(d, info))) for d in docs]
    names = sorted({n for shares in per_doc for n in shares})
    rows = [
        TrendRow(
            n,
            tuple(
                shares.get(n, 0.0 if n in decl else None)
                for shares, decl in zip(per_doc, declared, strict=True)
            ),
        )
        for n in names
    ]
    return sorted(rows, key=lambda r: (-(r.mean or 0.0), r.name))


def _holder_shares(doc: ResultsDocument) -> dict[str, float]:
    held = holdings(doc)
    read = len(doc.read_students())
    counts: dict[str, int] = {}
    for names in held.values():
        for n in names:
            counts[n] = counts.get(n, 0) + 1
    return {n: c / read for n, c in counts.items()} if read else {}


def _share(student: StudentResult | None, top: float) -> float | None:
    if student is None or not student.read or not top:
        return None
    return round(student.score, 4) / top


def _course_position(info: CourseInfo, assignment: str) -> tuple[int, str]:
    ids = [a.id for a in info.assignments]
    return (ids.index(assignment) if assignment in ids else len(ids), assignment)
