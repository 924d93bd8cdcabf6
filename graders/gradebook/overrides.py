"""Points set by hand for one question of one student, kept in the gradebook.

    graders override ada ps1 <exercise-id>/<question-id> 1 --reason "..."     set_override(...)
    graders override ada ps1 <exercise-id>/<question-id> --clear              clear_override(...)

An override replaces the graded points of that question in every output and survives
every regrade (the engine's grade is saved apart from it); the question keeps its status,
so the class report still counts what the learner answered.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import delete, insert
from sqlalchemy.engine import Connection, Engine

from ..course.renames import formerly_of
from ..errors import UsageError, did_you_mean
from ..results import Override, QuestionResult, StudentResult, SubmissionStatus, format_points
from . import audit, saved_grades
from .adjustments import student_overrides
from .term_tables import OverrideRow


@dataclass(frozen=True)
class Decision:
    """An override to record: which question, how many points, why, and who decided."""

    question: str
    points: float
    reason: str
    by: str


def set_override(
    engine: Engine,
    course: str,
    assignment: str,
    student: str,
    decision: Decision,
    renamed: Mapping[str, str] | None = None,
) -> Override:
    """Give ``student``'s ``decision.question`` these points; returns what was recorded.

    ``renamed`` (the course's former ids -> ids now): a question is named and kept by its
    id today, and an override set under a former id is replaced."""
    if not decision.reason.strip():
        raise UsageError("an override needs a --reason: the student reads it")
    where = (course, assignment, student)
    current = renamed or {}
    with engine.begin() as conn:
        result = _graded(conn, where, current)
        question = _question(result, decision.question, current)
        if not 0 <= decision.points <= question.max_points:
            raise UsageError(
                f"{decision.question} is worth {format_points(question.max_points)} points: "
                f"give 0 to {format_points(question.max_points)}, not "
                f"{format_points(decision.points)}"
            )
        before = student_overrides(conn, course, assignment, student, current).get(question.id)
        _delete(conn, where, question.id, current)
        recorded_at = audit.now()
        override = Override(
            decision.points,
            decision.reason.strip(),
            decision.by,
            recorded_at.isoformat(timespec="seconds"),
        )
        conn.execute(
            insert(OverrideRow).values(
                course=course,
                assignment=assignment,
                student=student,
                question=question.id,
                points=override.points,
                reason=override.reason,
                by=override.by,
                at=recorded_at,
            )
        )
        was = format_points(before.points if before else question.points)
        detail = (
            f"{question.id}: {was} -> {format_points(decision.points)} of "
            f"{format_points(question.max_points)}"
        )
        audit.log(conn, where, "override", detail, by=decision.by, reason=override.reason)
        saved_grades.replace_result(conn, course, assignment, result, current)  # score columns
    return override


def clear_override(
    engine: Engine,
    course: str,
    assignment: str,
    student: str,
    question_id: str,
    by: str,
    renamed: Mapping[str, str] | None = None,
) -> None:
    """Give the question back its graded points."""
    where = (course, assignment, student)
    current = renamed or {}
    with engine.begin() as conn:
        result = _graded(conn, where, current)
        question = _question(result, question_id, current)
        if question.id not in student_overrides(conn, course, assignment, student, current):
            raise UsageError(f"{student} has no override for {question.id} in {assignment}")
        _delete(conn, where, question.id, current)
        detail = f"{question.id}: override removed, back to {format_points(question.points)}"
        audit.log(conn, where, "override-clear", detail, by=by)
        saved_grades.replace_result(conn, course, assignment, result, current)


def _graded(
    conn: Connection, where: tuple[str, str, str], renamed: Mapping[str, str]
) -> StudentResult:
    course, assignment, student = where
    saved = saved_grades.saved_result(conn, course, assignment, student, renamed)
    if saved is None:
        raise UsageError(
            f"no grade for {student} in {assignment} in the gradebook (grade them first: "
            f"`graders autograde {assignment} ...`)"
        )
    result = saved[0]
    if result.status is SubmissionStatus.INTERNAL:
        raise UsageError(
            f"{student}'s {assignment} was not graded: graders failed on it ({result.error}); "
            f"`graders regrade {student} {assignment}` grades it again"
        )
    if result.status is SubmissionStatus.UNGRADABLE:
        raise UsageError(
            f"{student}'s {assignment} could not be graded ({result.error}): no question to "
            f"override; fix the submission, then `graders regrade {student} {assignment}`"
        )
    return result


def _question(
    result: StudentResult, question_id: str, renamed: Mapping[str, str]
) -> QuestionResult:
    found = result.question(renamed.get(question_id, question_id))
    if found is None:
        hint = did_you_mean(question_id, [q.id for q in result.questions])
        raise UsageError(f"no question '{question_id}' in {result.student}'s grade{hint}")
    return found


def _delete(
    conn: Connection, where: tuple[str, str, str], question: str, renamed: Mapping[str, str]
) -> None:
    """Delete the question's override, whichever of its ids it was set under."""
    course, assignment, student = where
    names = [question, *formerly_of(renamed, question)]
    conn.execute(
        delete(OverrideRow).where(
            OverrideRow.course == course,
            OverrideRow.assignment == assignment,
            OverrideRow.student == student,
            OverrideRow.question.in_(names),
        )
    )
