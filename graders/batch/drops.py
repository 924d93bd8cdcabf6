"""Dropping a withdrawn student from an assignment, and taking them back.

``drop`` moves the student's saved grade into the audit trail (nothing is lost) and marks
them dropped: ``autograde`` skips them, even with ``--force``, and no output lists a
grade for them (the results document names them under ``dropped``). ``undrop`` puts the
saved grade back as it was.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Connection, Engine

from ..errors import UsageError
from . import audit
from .adjustments import dropped_students
from .gradebook_tables import SubmissionRow
from .term_tables import DropRow

ACTION = "drop"


def drop(
    engine: Engine, course: str, assignment: str, student: str, *, reason: str | None, by: str
) -> bool:
    """Drop ``student`` from ``assignment``; True when they had a saved grade (now in the
    audit trail)."""
    where = (course, assignment, student)
    with engine.begin() as conn:
        if student in dropped_students(conn, course, assignment):
            raise UsageError(f"{student} is already dropped from {assignment}")
        row = _saved_row(conn, where)
        conn.execute(delete(SubmissionRow).where(*_mine(where)))
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
        detail = "dropped" + (
            f"; grade {row['score']:g}/{row['max_score']:g} kept in the audit trail" if row else ""
        )
        previous = json.dumps(row, default=_iso) if row else None
        audit.log(conn, where, ACTION, detail, by=by, reason=reason, previous=previous)
    return row is not None


def undrop(engine: Engine, course: str, assignment: str, student: str, *, by: str) -> bool:
    """Take ``student`` back; True when their grade from before the drop was restored."""
    where = (course, assignment, student)
    previous = audit.previous_of(engine, where, ACTION)
    with engine.begin() as conn:
        if student not in dropped_students(conn, course, assignment):
            raise UsageError(f"{student} is not dropped from {assignment}")
        conn.execute(
            delete(DropRow).where(
                DropRow.course == course,
                DropRow.assignment == assignment,
                DropRow.student == student,
            )
        )
        restored = previous is not None and _saved_row(conn, where) is None
        if restored:
            assert previous is not None
            conn.execute(insert(SubmissionRow), _row_from_json(previous))
        detail = "taken back" + ("; grade restored" if restored else "")
        audit.log(conn, where, "undrop", detail, by=by)
    return restored


def _saved_row(conn: Connection, where: tuple[str, str, str]) -> dict[str, Any] | None:
    row = conn.execute(select(SubmissionRow.__table__).where(*_mine(where))).mappings().first()
    return None if row is None else {k: v for k, v in row.items() if k != "id"}


def _row_from_json(text: str) -> dict[str, Any]:
    row: dict[str, Any] = json.loads(text)
    for name in ("submitted_at", "graded_at"):
        if row.get(name):
            row[name] = datetime.fromisoformat(row[name])
    return row


def _mine(where: tuple[str, str, str]) -> tuple[Any, ...]:
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
