"""Everything one page of the class report shows, gathered in one pass over a class.

``assignment_report`` reads the class's results once, a student at a time, into the
tallies of ``aggregate``, ``misconceptions`` and ``variants``, then lays out the charts;
the templates only read the resulting frozen object. Its ``students`` read the class again
as the page is written, a student at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import tzinfo

from ..course.model import SECTIONS
from ..results import ClassResults, StudentResult
from . import charts
from .aggregate import (
    QUESTION_STATUSES,
    ClassRows,
    HelpNeeded,
    QuestionStats,
    QuestionTally,
    ScoreStats,
    ScoreTally,
    StudentRow,
    Tally,
    hardest_first,
    late_or_ungradable,
    many_misconceptions,
    needs_help,
    student_row,
)
from .course_info import AssignmentInfo, CourseInfo
from .items import ItemStats, ItemTally
from .misconceptions import (
    MIN_UNNAMED,
    Cooccurrence,
    MisconceptionStats,
    MisconceptionTally,
    Pair,
    UnnamedAnswer,
    UnnamedTally,
)
from .variants import VariantsReport, VariantTally, variants_report

MAX_HEATMAP = (
    12  # beyond this many misconceptions a matrix stops being readable; pairs still list all
)
MAX_UNNAMED = 20


@dataclass(frozen=True)
class SectionStats:
    """How the class did on the questions citing one article section."""

    section: str
    questions: int
    answers: int
    correct: int

    @property
    def share(self) -> float:
        return self.correct / self.answers if self.answers else 0.0


@dataclass(frozen=True)
class AssignmentReport:
    """The class report of one assignment."""

    course_id: str
    course_title: str
    assignment: str
    title: str
    graded_at: str
    torch_version: str
    scores: ScoreStats
    histogram: charts.Histogram
    questions: tuple[QuestionStats, ...]  # hardest first
    item_ids: tuple[str, ...]  # course order, for per-student strips
    sections: tuple[SectionStats, ...]
    misconceptions: tuple[MisconceptionStats, ...]
    unseen: tuple[str, ...]
    cooccurrence: Cooccurrence
    heatmap: charts.Heatmap | None
    unnamed: tuple[UnnamedAnswer, ...]  # given by at least MIN_UNNAMED students
    unnamed_by_item: Mapping[str, tuple[UnnamedAnswer, ...]]  # every unnamed answer, per item
    students: ClassRows  # every submission with its answers, read as the page is written
    read_count: int  # submissions whose answers were read
    help: tuple[HelpNeeded, ...]
    many: int  # this many misconceptions or more: may need help
    problems: tuple[StudentRow, ...]
    assignment_info: AssignmentInfo | None = None  # from the course, when it is at hand
    variants: VariantsReport | None = None  # questions asked in several variants, if any
    items: tuple[ItemStats, ...] = ()  # item analysis, course order

    @property
    def flagged(self) -> tuple[ItemStats, ...]:
        """The questions the item analysis flags, for the course author."""
        return tuple(i for i in self.items if i.flags)

    def label(self, item_id: str) -> str:
        """How the notebook names an item (``Question 1.2``); its id without a course."""
        return self.assignment_info.label(item_id) if self.assignment_info else item_id

    @property
    def zone(self) -> tzinfo | None:
        """The zone the report's times are shown in: the assignment's due date's."""
        return self.assignment_info.zone if self.assignment_info else None

    @property
    def statuses_seen(self) -> list[str]:
        """The question statuses that occur at all, in the fixed order (for legends)."""
        return [s for s in QUESTION_STATUSES if any(q.counts.get(s) for q in self.questions)]

    @property
    def pairs(self) -> list[Pair]:
        return self.cooccurrence.pairs()

    def misconceptions_on(self, item_id: str) -> list[tuple[MisconceptionStats, int]]:
        """The misconceptions seen on one item, with how many answers matched each."""
        return [(m, m.per_item[item_id]) for m in self.misconceptions if item_id in m.per_item]


def assignment_report(results: ClassResults, info: CourseInfo) -> AssignmentReport:
    """Aggregate a class's results into the report of its assignment, in one pass."""
    tallies = _Tallies(info)
    for s in results.students():
        tallies.add(s)
    scores = tallies.scores.stats()
    items = tallies.questions.order(info, results.assignment)
    stats = tallies.questions.stats(info, results.assignment)
    misconceptions = tallies.misconceptions.stats(info, items)
    co = tallies.misconceptions.cooccurrence([m.name for m in misconceptions])
    unnamed_all = tallies.unnamed.answers(items)
    rows = tallies.rows
    many = many_misconceptions([r for r in rows if r.read])
    declared = info.assignment(results.assignment)
    return AssignmentReport(
        course_id=results.course,
        course_title=info.title or results.course,
        assignment=results.assignment,
        title=declared.title if declared else "",
        graded_at=results.graded_at or "",
        torch_version=results.torch_version or "",
        scores=scores,
        histogram=charts.histogram_chart(scores),
        questions=tuple(hardest_first(stats)),
        item_ids=tuple(items),
        sections=tuple(section_stats(stats)),
        misconceptions=tuple(misconceptions),
        unseen=tuple(tallies.misconceptions.unseen(info, items)),
        cooccurrence=co,
        heatmap=_heatmap(co),
        unnamed=tuple(u for u in unnamed_all if u.count >= MIN_UNNAMED)[:MAX_UNNAMED],
        unnamed_by_item=_by_item(unnamed_all),
        students=ClassRows(results),
        read_count=sum(1 for r in rows if r.read),
        help=tuple(needs_help(rows, many=many)),
        many=many,
        problems=tuple(late_or_ungradable(rows)),
        variants=variants_report(tallies.variants, results.students),
        assignment_info=declared,
        items=tuple(tallies.items.stats(info, items)),
    )


class _Tallies:
    """Every aggregate of the report, fed one student at a time."""

    def __init__(self, info: CourseInfo) -> None:
        self.scores = ScoreTally()
        self.questions = QuestionTally()
        self.misconceptions = MisconceptionTally()
        self.unnamed = UnnamedTally(info)
        self.variants = VariantTally(info)
        self.items = ItemTally()
        self.rows: list[StudentRow] = []  # a summary per student, without their answers

    def add(self, s: StudentResult) -> None:
        tallies: tuple[Tally, ...] = (
            self.scores,
            self.questions,
            self.misconceptions,
            self.unnamed,
            self.variants,
            self.items,
        )
        for tally in tallies:
            tally.add(s)
        self.rows.append(student_row(s))


def section_stats(stats: list[QuestionStats]) -> list[SectionStats]:
    """Share correct per article section, in the order sections first appear."""
    found: dict[str, list[QuestionStats]] = {}
    for q in stats:
        found.setdefault(q.info.section or "?", []).append(q)
    return [
        SectionStats(
            section, len(qs), sum(q.total for q in qs), sum(q.counts.get("correct", 0) for q in qs)
        )
        for section, qs in sorted(found.items(), key=lambda kv: _section_key(kv[0]))
    ]


def _section_key(section: str) -> tuple[int, str]:
    # §1a < §1b < §2 < ... < beyond < anything unknown
    return (SECTIONS.index(section) if section in SECTIONS else len(SECTIONS), section)


def _heatmap(co: Cooccurrence) -> charts.Heatmap | None:
    return charts.heatmap_chart(co.head(MAX_HEATMAP)) if len(co.names) >= 2 else None


def _by_item(found: list[UnnamedAnswer]) -> dict[str, tuple[UnnamedAnswer, ...]]:
    grouped: dict[str, list[UnnamedAnswer]] = {}
    for u in found:
        grouped.setdefault(u.item, []).append(u)
    return {item: tuple(us) for item, us in grouped.items()}
