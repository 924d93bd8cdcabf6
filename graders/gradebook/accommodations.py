"""Accommodations: one standing rule per student, applied to every assignment by itself.

    graders accommodate ada --extra-hours 48 --extra-attempts 1 --reason "..."   set_rule(...)
    graders accommodate ada --clear                                               clear_rule(...)
    roster.csv columns extra_hours, time_factor, extra_attempts                  roster_rules(...)

A rule gives ``extra_hours`` on every due date (and so on every late cutoff, which counts
from the due date), scales an assignment's window by ``time_factor`` where the assignment
says when it ``opens`` (the due date becomes ``opens + factor * (due - opens)``), and allows
``extra_attempts`` more than ``submissions.max``.

The due dates a rule gives are kept as extensions of their own origin
(``BY_ACCOMMODATION``), one per assignment, so that every reader of a student's due date —
batch autograde, the service, feedback pages, exports, LTI grades — applies them as it
applies any extension, and the later of an explicit ``graders extend`` and the
accommodation counts. ``sync`` makes those rows what the rules and the course say now: it
runs when a rule changes, at every ``autograde`` and when ``graders serve`` starts, so an
assignment added to the course later, or a due date moved, is covered without a command.

The reason is the instructor's: it is kept in the rule and the audit trail, never in the
extension rows that exports and learner pages read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, delete, insert, select
from sqlalchemy.engine import Connection, Engine

from ..course.loaded import LoadedCourse
from ..course.model import Assignment
from ..errors import UsageError
from ..intake.roster import find_roster
from . import audit
from .extensions import restate
from .term_tables import BY_ACCOMMODATION, EVERY_ASSIGNMENT, AccommodationRow, ExtensionRow

MAX_EXTRA_HOURS = 24 * 365
MAX_TIME_FACTOR = 10.0
MAX_EXTRA_ATTEMPTS = 1000


@dataclass(frozen=True)
class Rule:
    """A student's accommodation (the neutral rule: 0 hours, factor 1, 0 attempts)."""

    student: str
    extra_hours: float = 0.0
    time_factor: float = 1.0
    extra_attempts: int = 0
    reason: str | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.extra_hours <= MAX_EXTRA_HOURS:
            raise UsageError(f"--extra-hours must be between 0 and {MAX_EXTRA_HOURS}")
        if not 1 <= self.time_factor <= MAX_TIME_FACTOR:
            raise UsageError(f"--time-factor must be between 1 and {MAX_TIME_FACTOR:g}")
        if not 0 <= self.extra_attempts <= MAX_EXTRA_ATTEMPTS:
            raise UsageError(f"--extra-attempts must be between 0 and {MAX_EXTRA_ATTEMPTS}")
        if self.neutral:
            raise UsageError(
                "give --extra-hours, --time-factor or --extra-attempts (or --clear to remove)"
            )

    @property
    def neutral(self) -> bool:
        return self.extra_hours == 0 and self.time_factor == 1 and self.extra_attempts == 0

    def due(self, assignment: Assignment) -> datetime | None:
        """The student's due date for ``assignment`` under this rule; None when it moves
        nothing (extra attempts only, or a factor on an assignment without ``opens``)."""
        due = assignment.due
        if self.time_factor != 1 and assignment.opens is not None:
            due = assignment.opens + (assignment.due - assignment.opens) * self.time_factor
        due += timedelta(hours=self.extra_hours)
        return None if due == assignment.due else due

    def described(self) -> str:
        """The rule in words, for the audit trail and the terminal."""
        parts = []
        if self.extra_hours:
            parts.append(f"{self.extra_hours:g} extra hours on every due date")
        if self.time_factor != 1:
            parts.append(f"time factor {self.time_factor:g} where an assignment opens")
        if self.extra_attempts:
            parts.append(f"{self.extra_attempts} extra attempts")
        return ", ".join(parts)


def rules(conn: Connection, course: str) -> dict[str, Rule]:
    """Student -> their accommodation."""
    query = select(AccommodationRow).where(AccommodationRow.course == course)
    return {
        row.student: Rule(
            row.student, row.extra_hours, row.time_factor, row.extra_attempts, row.reason
        )
        for row in conn.execute(query)
    }


def extra_attempts(conn: Connection, course: str, student: str) -> int:
    """How many attempts beyond ``submissions.max`` the student's accommodation allows."""
    query = select(AccommodationRow.extra_attempts).where(
        AccommodationRow.course == course, AccommodationRow.student == student
    )
    return int(conn.execute(query).scalar() or 0)


def set_rule(engine: Engine, loaded: LoadedCourse, rule: Rule, by: str) -> list[str]:
    """Record ``rule`` (replacing the student's earlier one), apply it to every assignment;
    what changed, in words."""
    course = loaded.course.id
    with engine.begin() as conn:
        conn.execute(delete(AccommodationRow).where(*_of(course, rule.student)))
        conn.execute(
            insert(AccommodationRow).values(
                course=course,
                student=rule.student,
                extra_hours=rule.extra_hours,
                time_factor=rule.time_factor,
                extra_attempts=rule.extra_attempts,
                reason=rule.reason,
                by=by,
                at=audit.now(),
            )
        )
        where = (course, EVERY_ASSIGNMENT, rule.student)
        audit.log(conn, where, "accommodate", rule.described(), by=by, reason=rule.reason)
        return _apply(conn, loaded, {rule.student: rule}, only=rule.student)


def clear_rule(engine: Engine, loaded: LoadedCourse, student: str, by: str) -> list[str] | None:
    """Remove the student's accommodation and the due dates it gave; None when there was none."""
    course = loaded.course.id
    with engine.begin() as conn:
        removed = conn.execute(delete(AccommodationRow).where(*_of(course, student)))
        if not removed.rowcount:
            return None
        audit.log(
            conn,
            (course, EVERY_ASSIGNMENT, student),
            "accommodate-clear",
            "accommodation removed",
            by=by,
        )
        listed = {k: v for k, v in roster_rules(loaded).items() if k == student}
        return _apply(conn, loaded, listed, only=student)  # the roster's, if it gives one


def sync(engine: Engine, loaded: LoadedCourse) -> list[str]:
    """Make the accommodation extensions what the rules (the command's, over the roster's)
    and the course say now (an assignment added, a due date moved, a roster changed); what
    changed, in words."""
    with engine.begin() as conn:
        return _apply(conn, loaded, roster_rules(loaded) | rules(conn, loaded.course.id))


def roster_rules(loaded: LoadedCourse) -> dict[str, Rule]:
    """Student -> the accommodation ``roster.csv`` gives them (its columns ``extra_hours``,
    ``time_factor``, ``extra_attempts``; checked, at their places, when it is read)."""
    roster = find_roster(loaded.root)
    found = {}
    for e in roster.entries if roster is not None else ():
        rule = (
            float(e.extra_hours or 0),
            float(e.time_factor or 1),
            int(e.extra_attempts or 0),
        )
        if rule != (0.0, 1.0, 0):
            found[e.student] = Rule(e.student, *rule, reason=None)
    return found


def _apply(
    conn: Connection, loaded: LoadedCourse, wanted_rules: dict[str, Rule], only: str | None = None
) -> list[str]:
    """Write the accommodation extension of every (assignment, student) ``wanted_rules``
    gives, remove those it no longer gives (of ``only``, when given), restate each grade
    that changed."""
    course = loaded.course.id
    held = _held(conn, course, only)
    changes = []
    for assignment in loaded.course.assignments:
        for student, rule in sorted(wanted_rules.items()):
            due = rule.due(assignment)
            before = held.pop((assignment.id, student), None)
            if due == before:
                continue
            where = (course, assignment.id, student)
            conn.execute(delete(ExtensionRow).where(*_extension(where)))
            if due is not None:
                conn.execute(
                    insert(ExtensionRow).values(
                        course=course,
                        assignment=assignment.id,
                        student=student,
                        origin=BY_ACCOMMODATION,
                        due=due,
                        reason=None,
                        by=BY_ACCOMMODATION,
                        at=audit.now(),
                    )
                )
                changes.append(f"{student} {assignment.id}: due {due.isoformat()} (accommodation)")
            restate(conn, course, assignment, student)
    for assignment_id, student in held:
        conn.execute(delete(ExtensionRow).where(*_extension((course, assignment_id, student))))
        found = loaded.course.assignment(assignment_id)
        if found is not None:
            restate(conn, course, found, student)
        changes.append(f"{student} {assignment_id}: accommodation's due date removed")
    return changes


def _held(conn: Connection, course: str, only: str | None) -> dict[tuple[str, str], datetime]:
    query = select(ExtensionRow).where(
        ExtensionRow.course == course, ExtensionRow.origin == BY_ACCOMMODATION
    )
    if only is not None:
        query = query.where(ExtensionRow.student == only)
    return {(r.assignment, r.student): r.due for r in conn.execute(query)}


def _of(course: str, student: str) -> tuple[ColumnElement[bool], ...]:
    return (AccommodationRow.course == course, AccommodationRow.student == student)


def _extension(where: tuple[str, str, str]) -> tuple[ColumnElement[bool], ...]:
    course, assignment, student = where
    return (
        ExtensionRow.course == course,
        ExtensionRow.assignment == assignment,
        ExtensionRow.student == student,
        ExtensionRow.origin == BY_ACCOMMODATION,
    )
