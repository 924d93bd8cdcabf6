"""Extensions: a student's own due date for an assignment, kept in the gradebook.

    graders extend ada ps1 --days 2 --reason "..."      grant(...)
    graders extend ada ps1 --clear                      revoke(...)
    extensions.yml beside course.yml                    sync_file(...), at each autograde

An extension moves the due date the late policy counts from (``--days`` from the
assignment's due date, not from an earlier extension). A saved grade is restated at
once: lateness needs only the submission time, not the notebook. When a command and the
file both extend one student's assignment, the later due date counts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, delete, insert, select
from sqlalchemy.engine import Connection, Engine

from ..course.loaded import LoadedCourse
from ..course.model import Assignment
from ..course.times import time_text, zone_of
from ..errors import UsageError
from ..grading.pipeline import apply_late_policy
from ..results import NOT_GRADED
from . import audit, saved_grades
from .adjustments import due_dates
from .extensions_file import FileExtension, read_extensions_file
from .term_tables import BY_COMMAND, FROM_FILE, ExtensionRow


@dataclass(frozen=True)
class Grant:
    """An extension to record: whose, until when, why, and who decided it."""

    student: str
    due: datetime
    reason: str | None
    by: str


def new_due(assignment: Assignment, days: float | None, until: datetime | None) -> datetime:
    """The due date ``--days N`` (from the assignment's) or ``--until TIME`` gives."""
    if (days is None) == (until is None):
        raise UsageError("give one of --days N or --until TIME")
    due = assignment.due + timedelta(days=days) if days is not None else until
    assert due is not None
    if due <= assignment.due:
        raise UsageError(
            f"an extension must end after {assignment.id}'s due date ({time_text(assignment.due)})"
        )
    return due


def grant(engine: Engine, course: str, assignment: Assignment, extension: Grant) -> bool:
    """Record ``extension`` (replacing the student's earlier one from a command), restate
    their saved grade; True when they had one."""
    where = (course, assignment.id, extension.student)
    with engine.begin() as conn:
        _put(conn, where, BY_COMMAND, extension)
        audit.log(
            conn,
            where,
            "extend",
            f"due {_shown(extension.due, assignment)}",
            by=extension.by,
            reason=extension.reason,
        )
        return restate(conn, course, assignment, extension.student)


def revoke(engine: Engine, course: str, assignment: Assignment, student: str, by: str) -> bool:
    """Remove the extension a command granted; restate the saved grade. True when there was one."""
    where = (course, assignment.id, student)
    with engine.begin() as conn:
        removed = conn.execute(delete(ExtensionRow).where(*_of(where), _origin(BY_COMMAND)))
        if not removed.rowcount:
            return False
        audit.log(conn, where, "extend-clear", "extension removed", by=by)
        restate(conn, course, assignment, student)
    return True


def restate(conn: Connection, course: str, assignment: Assignment, student: str) -> bool:
    """Apply the late policy again to a saved grade, under the student's due date now.

    True when the student has a saved grade (an ungradable one has nothing to restate).
    """
    saved = saved_grades.saved_result(conn, course, assignment.id, student)
    if saved is None:
        return False
    result, submitted_at = saved
    if result.status in NOT_GRADED:
        return True
    mine = assignment.due_on(due_dates(conn, course, assignment.id).get(student))
    late = apply_late_policy(mine, student, result.questions, submitted_at)
    # Only what lateness decides changes: the learner's language, among the rest, is theirs.
    restated = replace(result, status=late.status, error=late.error, late_factor=late.late_factor)
    saved_grades.replace_result(conn, course, assignment.id, restated)
    return True


def sync_file(engine: Engine, loaded: LoadedCourse) -> list[str]:
    """Make the gradebook hold what ``extensions.yml`` lists now; what changed, in words.

    Each change is audited (by ``extensions.yml``) and restates the saved grade.
    """
    wanted = {(e.assignment, e.student): e for e in read_extensions_file(loaded)}
    course = loaded.course.id
    changes: list[str] = []
    with engine.begin() as conn:
        held = _file_rows(conn, course)
        for key, entry in wanted.items():
            if held.pop(key, None) != (entry.due, entry.reason):
                changes.append(_sync_one(conn, loaded, entry))
        for assignment_id, student in held:
            changes.append(_unlist(conn, loaded, assignment_id, student))
    return changes


def _sync_one(conn: Connection, loaded: LoadedCourse, entry: FileExtension) -> str:
    assignment = loaded.course.assignment(entry.assignment)
    assert assignment is not None  # read_extensions_file checked it
    where = (loaded.course.id, entry.assignment, entry.student)
    _put(conn, where, FROM_FILE, Grant(entry.student, entry.due, entry.reason, FROM_FILE))
    detail = f"due {_shown(entry.due, assignment)} ({entry.location})"
    audit.log(conn, where, "extend", detail, by=FROM_FILE, reason=entry.reason)
    restate(conn, loaded.course.id, assignment, entry.student)
    return f"{entry.student} {entry.assignment}: {detail}"


def _unlist(conn: Connection, loaded: LoadedCourse, assignment_id: str, student: str) -> str:
    where = (loaded.course.id, assignment_id, student)
    conn.execute(delete(ExtensionRow).where(*_of(where), _origin(FROM_FILE)))
    audit.log(conn, where, "extend-clear", f"no longer in {FROM_FILE}", by=FROM_FILE)
    assignment = loaded.course.assignment(assignment_id)
    if assignment is not None:
        restate(conn, loaded.course.id, assignment, student)
    return f"{student} {assignment_id}: extension removed (no longer in {FROM_FILE})"


def _file_rows(conn: Connection, course: str) -> dict[tuple[str, str], tuple[datetime, str | None]]:
    query = select(ExtensionRow).where(ExtensionRow.course == course, _origin(FROM_FILE))
    return {(r.assignment, r.student): (r.due, r.reason) for r in conn.execute(query)}


def _put(conn: Connection, where: tuple[str, str, str], origin: str, extension: Grant) -> None:
    course, assignment, student = where
    conn.execute(delete(ExtensionRow).where(*_of(where), _origin(origin)))
    conn.execute(
        insert(ExtensionRow).values(
            course=course,
            assignment=assignment,
            student=student,
            origin=origin,
            due=extension.due,
            reason=extension.reason,
            by=extension.by,
            at=audit.now(),
        )
    )


def _of(where: tuple[str, str, str]) -> tuple[ColumnElement[bool], ...]:
    course, assignment, student = where
    return (
        ExtensionRow.course == course,
        ExtensionRow.assignment == assignment,
        ExtensionRow.student == student,
    )


def _origin(origin: str) -> ColumnElement[bool]:
    return ExtensionRow.origin == origin


def _shown(due: datetime, assignment: Assignment) -> str:
    # In the zone the course gives its due dates in: the one learners read.
    return time_text(due, zone_of(assignment))
