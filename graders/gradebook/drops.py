"""Dropping a withdrawn student, from one assignment or from the whole course, and taking
them back.

``drop`` moves the student's saved grade into the audit trail (nothing is lost) and marks
them dropped: ``autograde`` skips them, even with ``--force``, and no output lists a
grade for them (the results document names them under ``dropped``). ``drop_from_course``
does so for every assignment, those graded already and those to come, so a student who
withdrew is neither graded nor listed missing in the next assignment. ``undrop`` and
``undrop_from_course`` put the saved grades back as they were.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Connection, Engine

from ..errors import UsageError
from . import audit
from .adjustments import dropped_from_course, dropped_students
from .tables import SubmissionRow
from .term_tables import EVERY_ASSIGNMENT, DropRow

ACTION = "drop"
COURSE_ACTION = "drop-course"

Where = tuple[str, str, str]  # (course, assignment, student)


def drop(
    engine: Engine, course: str, assignment: str, student: str, *, reason: str | None, by: str
) -> bool:
    """Drop ``student`` from ``assignment``; True when they had a saved grade (now in the
    audit trail)."""
    where = (course, assignment, student)
    with engine.begin() as conn:
        _not_dropped_from_course(conn, course, student)
        if student in dropped_students(conn, course, assignment):
            raise UsageError(f"{student} is already dropped from {assignment}")
        had = _set_aside(conn, where, ACTION, "dropped", by=by, reason=reason)
        _mark(conn, where, reason=reason, by=by)
    return had


def drop_from_course(
    engine: Engine,
    course: str,
    assignments: Sequence[str],
    student: str,
    *,
    reason: str | None,
    by: str,
) -> list[str]:
    """Drop ``student`` from every assignment of the course, graded or to come; the
    assignments whose saved grade went into the audit trail."""
    with engine.begin() as conn:
        _not_dropped_from_course(conn, course, student)
        kept = [
            assignment
            for assignment in assignments
            if _set_aside(
                conn,
                (course, assignment, student),
                COURSE_ACTION,
                "dropped from the course",
                by=by,
                reason=reason,
            )
        ]
        _mark(conn, (course, EVERY_ASSIGNMENT, student), reason=reason, by=by)
    return kept


def undrop(engine: Engine, course: str, assignment: str, student: str, *, by: str) -> bool:
    """Take ``student`` back; True when their grade from before the drop was restored."""
    where = (course, assignment, student)
    previous = audit.previous_of(engine, where, ACTION)
    with engine.begin() as conn:
        if student in dropped_from_course(conn, course):
            raise UsageError(
                f"{student} is dropped from the course: take them back with "
                f"`graders drop {student} --undo`"
            )
        if student not in dropped_students(conn, course, assignment):
            raise UsageError(f"{student} is not dropped from {assignment}")
        _unmark(conn, where)
        restored = _restore(conn, where, previous)
        detail = "taken back" + ("; grade restored" if restored else "")
        audit.log(conn, where, "undrop", detail, by=by)
    return restored


def undrop_from_course(
    engine: Engine, course: str, assignments: Sequence[str], student: str, *, by: str
) -> list[str]:
    """Take ``student`` back into the course; the assignments whose grade from before the
    drop was restored (one they were dropped from on its own stays dropped)."""
    previous = {
        a: audit.previous_of(engine, (course, a, student), COURSE_ACTION) for a in assignments
    }
    with engine.begin() as conn:
        if student not in dropped_from_course(conn, course):
            raise UsageError(f"{student} is not dropped from the course")
        _unmark(conn, (course, EVERY_ASSIGNMENT, student))
        restored = []
        for assignment in assignments:
            where = (course, assignment, student)
            alone = student in dropped_students(conn, course, assignment)
            if not alone and _restore(conn, where, previous[assignment]):
                restored.append(assignment)
                audit.log(conn, where, "undrop-course", "back in the course; grade restored", by=by)
            else:
                audit.log(conn, where, "undrop-course", "back in the course", by=by)
    return restored


def _not_dropped_from_course(conn: Connection, course: str, student: str) -> None:
    if student in dropped_from_course(conn, course):
        raise UsageError(f"{student} is already dropped from the course")


def _set_aside(
    conn: Connection, where: Where, action: str, detail: str, *, by: str, reason: str | None
) -> bool:
    """Move the saved grade of ``where`` into the audit trail; True when there was one."""
    row = _saved_row(conn, where)
    conn.execute(delete(SubmissionRow).where(*_mine(where)))
    if row:
        detail += f"; grade {row['score']:g}/{row['max_score']:g} kept in the audit trail"
    previous = json.dumps(row, default=_iso) if row else None
    audit.log(conn, where, action, detail, by=by, reason=reason, previous=previous)
    return row is not None


def _restore(conn: Connection, where: Where, previous: str | None) -> bool:
    """Put back the grade set aside (unless a grade was saved since); True when put back."""
    if previous is None or _saved_row(conn, where) is not None:
        return False
    conn.execute(insert(SubmissionRow), _row_from_json(previous))
    return True


def _mark(conn: Connection, where: Where, *, reason: str | None, by: str) -> None:
    course, assignment, student = where
    conn.execute(
        insert(DropRow).values(
            course=course,
            assignment=assignment,
            student=student,
            reason=reason,
            by=by,
            at=audit.now(),
        )
    )


def _unmark(conn: Connection, where: Where) -> None:
    course, assignment, student = where
    conn.execute(
        delete(DropRow).where(
            DropRow.course == course, DropRow.assignment == assignment, DropRow.student == student
        )
    )


def _saved_row(conn: Connection, where: Where) -> dict[str, Any] | None:
    row = conn.execute(select(SubmissionRow.__table__).where(*_mine(where))).mappings().first()
    return None if row is None else {k: v for k, v in row.items() if k != "id"}


def _row_from_json(text: str) -> dict[str, Any]:
    row: dict[str, Any] = json.loads(text)
    for name in ("submitted_at", "graded_at"):
        if row.get(name):
            row[name] = datetime.fromisoformat(row[name])
    return row


def _mine(where: Where) -> tuple[Any, ...]:
    course, assignment, student = where
    return (
        SubmissionRow.course == course,
        SubmissionRow.assignment == assignment,
        SubmissionRow.student == student,
    )


def _iso(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"cannot keep {type(value).__name__} in the audit trail")
