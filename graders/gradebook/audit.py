"""The audit trail: every decision about a student's grade, with who, when and why.

Extensions, overrides, drops and regrades each add a row (``log``), in the transaction
that makes the change, so the trail cannot miss one. ``history`` reads them back for
``graders history STUDENT``.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from .term_tables import AuditRow


@dataclass(frozen=True)
class AuditEntry:
    """One decision, as ``graders history`` lists it."""

    at: datetime
    by: str
    assignment: str
    student: str
    action: str
    detail: str
    reason: str | None


def actor(by: str | None) -> str:
    """Who made a decision: ``--by``, else the account running graders."""
    if by and by.strip():
        return by.strip()
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container): say so, never guess
        return "unknown user"


def now() -> datetime:
    """The time a decision is recorded (UTC, to the second)."""
    return datetime.now(UTC).replace(microsecond=0)


def log(
    conn: Connection,
    where: tuple[str, str, str],
    action: str,
    detail: str,
    *,
    by: str,
    reason: str | None = None,
    previous: str | None = None,
) -> None:
    """Add one entry for ``where`` = (course, assignment, student), in ``conn``'s transaction."""
    course, assignment, student = where
    conn.execute(
        insert(AuditRow).values(
            course=course,
            assignment=assignment,
            student=student,
            action=action,
            detail=detail,
            reason=reason,
            by=by,
            at=now(),
            previous=previous,
        )
    )


def history(
    engine: Engine, course: str, student: str, assignment: str | None = None
) -> list[AuditEntry]:
    """Every decision about ``student`` in ``course`` (of one assignment), oldest first."""
    query = select(AuditRow).where(AuditRow.course == course, AuditRow.student == student)
    if assignment is not None:
        query = query.where(AuditRow.assignment == assignment)
    with Session(engine) as session:
        rows = session.scalars(query.order_by(AuditRow.at, AuditRow.id)).all()
    return [
        AuditEntry(r.at, r.by, r.assignment, r.student, r.action, r.detail, r.reason) for r in rows
    ]


def previous_of(engine: Engine, where: tuple[str, str, str], action: str) -> str | None:
    """What the latest ``action`` about ``where`` replaced (a dropped student's row)."""
    course, assignment, student = where
    query = (
        select(AuditRow.previous)
        .where(
            AuditRow.course == course,
            AuditRow.assignment == assignment,
            AuditRow.student == student,
            AuditRow.action == action,
        )
        .order_by(AuditRow.id.desc())
        .limit(1)
    )
    with engine.connect() as conn:
        return conn.execute(query).scalar_one_or_none()
