"""The instructor's list of a class for one assignment: every learner, handed in or not.

    rows = class_list(queue, assignment, roster)      # one ClassRow per learner, by id

Every learner the course knows is on it: the roster's (``roster.csv``), those with a token,
those with a grade or an attempt, and the withdrawn. Each has one status an instructor acts
on (``NOT_HANDED_IN``, ``ON_TIME``, ``LATE``, ``WITHDRAWN``) and what was decided for them
(an extension's due date, overridden points), beside their attempts and their grade of
record. The page (``/instructor``) and its CSV (``/assignments/{a}/class.csv``) read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from ..course.model import Assignment
from ..gradebook.accommodations import rules as accommodation_rules
from ..gradebook.adjustments import dropped_students, due_dates, students_overrides
from ..gradebook.service_tables import LEARNER, AttemptRow, CredentialRow
from ..i18n import N_
from ..intake.roster import Roster
from .queue import Queue
from .views import Record, attempt_counts, records

NOT_HANDED_IN, ON_TIME, LATE, WITHDRAWN = "not-handed-in", "on-time", "late", "withdrawn"
STATUSES = (NOT_HANDED_IN, ON_TIME, LATE, WITHDRAWN)
STATUS_WORDS = {  # how the page and the CSV's readers name each status
    NOT_HANDED_IN: N_("not handed in"),
    ON_TIME: N_("on time"),
    LATE: N_("late"),
    WITHDRAWN: N_("withdrawn"),
}


@dataclass(frozen=True)
class ClassRow:
    """One learner of the class for one assignment."""

    student: str
    status: str  # one of STATUSES
    record: Record | None  # their grade of record (None: nothing graded, or withdrawn)
    late_factor: float | None
    extended_to: datetime | None  # their own due date, when given one
    overridden: bool  # an instructor set points of one of their questions
    on_roster: bool | None  # None: the course has no roster
    accommodated: bool = False  # a standing accommodation (its reason is not shown here)
    attempts: int = 0  # handed in, a withdrawn learner's included


def class_list(queue: Queue, assignment: Assignment, roster: Roster | None) -> list[ClassRow]:
    """Every learner of ``assignment``'s class, by learner id (see the module)."""
    handed = attempt_counts(queue, assignment.id)  # a withdrawn learner's too
    graded = {r.student: r for r in records(queue, assignment.id, handed)}
    with queue.engine.connect() as conn:
        dropped = dropped_students(conn, queue.course, assignment.id)
        extended = due_dates(conn, queue.course, assignment.id)
        accommodated = set(accommodation_rules(conn, queue.course))
        tokens = conn.execute(
            select(CredentialRow.student)
            .where(CredentialRow.course == queue.course, CredentialRow.role == LEARNER)
            .distinct()
        ).scalars()
        handed_in = conn.execute(
            select(AttemptRow.student)
            .where(
                AttemptRow.course == queue.course,
                AttemptRow.assignment == assignment.id,
                AttemptRow.counts.is_(True),
            )
            .distinct()
        ).scalars()
        listed = set(roster.students) if roster is not None else set()
        everyone = sorted({*listed, *tokens, *graded, *dropped, *handed_in})
        overrides = students_overrides(conn, queue.course, assignment.id, everyone, queue.renamed)
    rows = []
    for student in everyone:
        record = None if student in dropped else graded.get(student)
        factor = record.late_factor if record is not None else None
        rows.append(
            ClassRow(
                student,
                _status(student in dropped, record, factor),
                record,
                factor,
                extended.get(student),
                bool(overrides.get(student)),
                student in listed if roster is not None else None,
                student in accommodated,
                handed.get(student, 0),
            )
        )
    return rows


def _status(dropped: bool, record: Record | None, factor: float | None) -> str:
    if dropped:
        return WITHDRAWN
    if record is None or record.status.value == "missing":
        return NOT_HANDED_IN
    return LATE if factor is not None and factor < 1 else ON_TIME
