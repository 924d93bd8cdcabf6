"""What a feedback page shows, worked out before the template renders it.

A page opens with a summary (the score; when late, the due date, the submission time, the
delay and the factor; points per article section; a link to each question not answered
correctly), then one block per exercise. Every question is named as the notebook names
it (``Question 1.2``, ``Exercise 3, check values``), with the labels ``graders release``
wrote into the notebook. A code exercise shows the learner's code once, above its checks,
and a message every check got alike (a crash, a timeout) once, above them too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ..course.model import Assignment, in_article, section_label
from ..course.times import time_text
from ..i18n import _, ngettext
from ..notebook import LABEL_SEPARATOR
from ..results import QuestionResult, StudentResult, lines_alike, without_lines
from ..said import Text
from .course_info import CourseInfo

#: The status a page shows for a question whose points the instructor set.
ADJUSTED = "adjusted"


@dataclass(frozen=True)
class Late:
    """How late a submission was, and what that cost."""

    due: str  # "2026-10-05 23:59 UTC+02:00"
    submitted: str
    delay: str  # "1 day, 3 hours"
    factor: float
    raw_score: float  # before the factor


@dataclass(frozen=True)
class SectionRow:
    """Points earned on the questions citing one article section."""

    section: str  # as readers see it: "§2", "beyond the article"
    points: float
    max_points: float


@dataclass(frozen=True)
class Missed:
    """A question without its full points: where the page explains it (one the instructor
    gave every point to has nothing left to review)."""

    id: str
    label: str
    status: str


@dataclass(frozen=True)
class ExerciseBlock:
    """One exercise's part of the page."""

    id: str
    heading: str  # "1. clone() of a tensor that requires grad", as the notebook's heading
    section: str | None
    questions: tuple[QuestionResult, ...]
    literal: bool  # answers are literals, shown per question; else code, shown once
    code: str | None = None  # the learner's code, for a code exercise
    shared: str = ""  # what every check was told alike (a crash, a timeout, no code)


@dataclass(frozen=True)
class FeedbackView:
    """Everything a page shows about one student, beyond the results themselves."""

    late: Late | None
    sections: tuple[SectionRow, ...]
    missed: tuple[Missed, ...]
    exercises: tuple[ExerciseBlock, ...]


def feedback_view(
    student: StudentResult,
    assignment: Assignment | None,
    info: CourseInfo,
    labels: dict[str, str],
    headings: dict[str, str],
) -> FeedbackView:
    """The summary and the exercise blocks of ``student``'s page."""
    return FeedbackView(
        late=late(student, assignment),
        sections=section_rows(student),
        missed=tuple(
            Missed(q.id, short_label(labels, q.id), shown_status(q))
            for q in student.questions
            if not q.full_marks
        ),
        exercises=exercise_blocks(student, info, headings),
    )


def shown_status(q: QuestionResult) -> str:
    """The status a learner reads: ``adjusted`` where the instructor set the points."""
    return ADJUSTED if q.override is not None else q.status.value


def short_label(labels: dict[str, str], item_id: str) -> str:
    """``Question 1.2`` (the label without its exercise title), or the id itself."""
    return labels.get(item_id, item_id).split(LABEL_SEPARATOR)[0]


def late(student: StudentResult, assignment: Assignment | None) -> Late | None:
    """The delay and its cost, when the submission was late and its time is known."""
    if student.late_factor >= 1 or assignment is None or not student.submitted_at:
        return None
    submitted = datetime.fromisoformat(student.submitted_at)
    if submitted.tzinfo is None:
        return None  # a time without a zone cannot be compared with the due date
    due = assignment.due
    return Late(
        due=time_text(due),
        submitted=time_text(submitted, due.tzinfo),
        delay=delay_text(submitted - due),
        factor=student.late_factor,
        raw_score=student.raw_score,
    )


def delay_text(delay: timedelta) -> str:
    """``2 days, 3 hours``, ``5 hours, 1 minute``, ``40 seconds``: two units at most."""
    seconds = max(0, int(delay.total_seconds()))
    parts = []
    for size, amount in _UNITS:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(amount(count))
    return _(", ").join(parts[:2]) or _UNITS[-1][1](0)


_UNITS: tuple[tuple[int, Callable[[int], str]], ...] = (
    (86400, lambda n: ngettext("{n} day", "{n} days", n).format(n=n)),
    (3600, lambda n: ngettext("{n} hour", "{n} hours", n).format(n=n)),
    (60, lambda n: ngettext("{n} minute", "{n} minutes", n).format(n=n)),
    (1, lambda n: ngettext("{n} second", "{n} seconds", n).format(n=n)),
)


def section_rows(student: StudentResult) -> tuple[SectionRow, ...]:
    """Points per article section, in the order the questions come."""
    totals: dict[str, list[float]] = {}
    for q in student.questions:
        row = totals.setdefault(_section_name(q.section), [0.0, 0.0])
        row[0] += q.points
        row[1] += q.max_points
    return tuple(SectionRow(name, p, m) for name, (p, m) in totals.items())


def exercise_blocks(
    student: StudentResult, info: CourseInfo, headings: dict[str, str]
) -> tuple[ExerciseBlock, ...]:
    groups: dict[str, list[QuestionResult]] = {}
    for q in student.questions:
        groups.setdefault(q.exercise, []).append(q)
    return tuple(_block(ex, qs, info, headings) for ex, qs in groups.items())


def _block(
    exercise: str, questions: list[QuestionResult], info: CourseInfo, headings: dict[str, str]
) -> ExerciseBlock:
    first = info.item(questions[0].id)
    heading = headings.get(exercise) or first.exercise_title
    section = first.section or questions[0].section
    if first.literal or not first.prompt:
        return ExerciseBlock(exercise, heading, section, tuple(questions), literal=True)
    code = next((q.answer for q in questions if q.answer), None)
    # What every check was told (a crash, a timeout, no code) is said once, above them.
    # The questions' texts are written in the reader's language already (``result_in``).
    shared = lines_alike([str(q.feedback) for q in questions])
    if shared:
        questions = [
            replace(q, feedback=Text.of(without_lines(str(q.feedback), shared))) for q in questions
        ]
    return ExerciseBlock(
        exercise, heading, section, tuple(questions), False, code, "\n".join(shared)
    )


def _section_name(section: str | None) -> str:
    if not section:
        return _("no section")
    if in_article(section):
        return _("article {section}").format(section=section)
    return section_label(section)
