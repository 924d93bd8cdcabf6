"""Saved grades changed in place by an instructor's decision, in the decision's transaction.

An extension restates a saved grade under the new due date; an override changes the score
columns SQL queries read. Neither needs the notebook: the engine's result and the
submission time are in the gradebook.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from ..i18n import SOURCE_LANGUAGE
from ..results import StudentResult
from .adjustments import Adjustments, student_overrides
from .store import of_student, score_columns, stored_json
from .tables import SubmissionRow


def replace_result(
    conn: Connection,
    course: str,
    assignment: str,
    result: StudentResult,
    renamed: Mapping[str, str] | None = None,
) -> None:
    """Save a changed result of an already graded student (a new due date, new overrides),
    keeping where and how it was graded."""
    overrides = Adjustments(
        {result.student: student_overrides(conn, course, assignment, result.student, renamed)},
        renamed=renamed or {},
    )
    conn.execute(
        update(SubmissionRow)
        .where(*of_student(course, assignment, result.student))
        .values(
            status=result.status.value,
            error=result.error_in(SOURCE_LANGUAGE),
            late_factor=result.late_factor,
            result_json=stored_json(result),
            **score_columns(overrides.apply(result)),
        )
    )


def saved_result(
    conn: Connection,
    course: str,
    assignment: str,
    student: str,
    renamed: Mapping[str, str] | None = None,
) -> tuple[StudentResult, datetime | None] | None:
    """A student's saved result (the engine's, without overrides, under today's ids) and
    submission time."""
    query = select(SubmissionRow.result_json, SubmissionRow.submitted_at).where(
        *of_student(course, assignment, student)
    )
    row = conn.execute(query).one_or_none()
    if row is None:
        return None
    return StudentResult.parse(row.result_json).renamed(renamed or {}), row.submitted_at
