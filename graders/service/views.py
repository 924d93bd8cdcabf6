"""What the service shows of attempts and grades: the same for the API and the pages.

A learner sees their attempts as the course's visibility rule allows today
(``course.visibility``: no expected answer before the assignment closes where the course
says so), in their language; an instructor sees everything. An attempt's grade is stated
under the learner's due date now (an extension granted since counts), and the attempt
that is the grade of record carries the instructor's overrides, as every output does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import func, select

from ..course.learner_language import LearnerLanguages
from ..course.model import Assignment, Shown
from ..course.visibility import seen_by_learner, shown_at
from ..gradebook import store as gradebook
from ..gradebook.adjustments import extended_due_dates, read_adjustments
from ..gradebook.service_tables import AttemptRow
from ..results import QuestionResult, StudentResult, SubmissionStatus
from ..said import Text
from .attempts import Attempt, restated
from .identity import Identity
from .queue import Queue

RECORD_KEY = "serve:"  # how a grade of record's grading key starts: serve:<attempt id>:...


@dataclass(frozen=True)
class Record:
    """A learner's grade of record of one assignment, as every output reads it: its score,
    not its answers (a class's list holds a few numbers per learner, whatever its size)."""

    student: str
    score: float
    max_score: float
    status: SubmissionStatus
    attempts: int  # attempts handed in to the service (failed ones left out)
    counted_id: int | None  # the attempt it is; None for a grade from `graders autograde`
    late_factor: float = 1.0  # the late policy's factor on its points


def shown_to(queue: Queue, who: Identity, assignment: Assignment) -> Shown:
    """How much of a grade ``who`` may see today."""
    if who.instructor:
        return Shown.FULL
    with queue.engine.connect() as conn:
        extended = extended_due_dates(conn, queue.course, assignment.id)
    return shown_at(assignment, extended=extended)


def graded_view(
    queue: Queue, attempt: Attempt, assignment: Assignment, counted: int | None
) -> Attempt:
    """``attempt`` stated under its learner's due date now, with the instructor's
    overrides when it is their grade of record."""
    mine = restated(attempt, queue.due_for(assignment, attempt.student))
    if mine.result is None or attempt.id != counted:
        return mine
    with queue.engine.connect() as conn:
        adjusted = read_adjustments(conn, queue.course, assignment.id, queue.renamed).apply(
            mine.result
        )
    return replace(mine, result=adjusted)


def learner_result(
    result: StudentResult, shown: Shown, languages: LearnerLanguages, language: str
) -> StudentResult:
    """``result`` as far as ``shown`` allows, in ``language``."""
    return languages.result_in(seen_by_learner(result, shown), language)


def attempt_json(attempt: Attempt, shown_result: StudentResult | None) -> dict[str, Any]:
    """The API's form of an attempt (``shown_result``: its grade as its reader may see it)."""
    result = shown_result
    return {
        "id": attempt.id,  # the service's, across the class: the address of the attempt
        "attempt": attempt.number,  # the learner's own count at the assignment: 1, 2, ...
        "assignment": attempt.assignment,
        "student": attempt.student,
        "status": attempt.status,
        "received_at": attempt.received_at.isoformat(),
        "graded_at": attempt.graded_at.isoformat() if attempt.graded_at else None,
        "digest": attempt.digest,
        "counts": attempt.counts,
        "score": round(result.score, 4) if result else None,
        "max_score": round(result.max_score, 4) if result else None,
        "late_factor": result.late_factor if result else None,
        "grade_status": result.status.value if result else None,
        "error": _written(result.error) if result else attempt.error,
        "questions": [_question(q) for q in result.questions] if result else [],
    }


def records(queue: Queue, assignment: str, counts: dict[str, int] | None = None) -> list[Record]:
    """Every learner's grade of record of ``assignment``, by learner id (the dropped left
    out), with how many attempts they handed in (``counts``: ``attempt_counts``, when the
    caller has read them already) and which one counts; the gradebook is read a learner at
    a time."""
    results = gradebook.class_results(queue.engine, queue.course, assignment, queue.renamed)
    keys = gradebook.grading_keys(queue.engine, queue.course, assignment)
    counts = attempt_counts(queue, assignment) if counts is None else counts
    dropped = set(results.dropped)
    return [
        Record(
            s.student,
            s.score,
            s.max_score,
            s.status,
            counts.get(s.student, 0),
            _counted(keys.get(s.student)),
            s.late_factor,
        )
        for s in results.students()
        if s.student not in dropped
    ]


def counted_id(queue: Queue, assignment: str, student: str) -> int | None:
    """The attempt that is ``student``'s grade of record of ``assignment``, if one is."""
    keys = gradebook.grading_keys(queue.engine, queue.course, assignment)
    return _counted(keys.get(student))


def _counted(key: str | None) -> int | None:
    if not key or not key.startswith(RECORD_KEY):
        return None
    number = key[len(RECORD_KEY) :].split(":", 1)[0]
    return int(number) if number.isdigit() else None


def attempt_counts(queue: Queue, assignment: str) -> dict[str, int]:
    """Learner id -> how many attempts at ``assignment`` they handed in (an instructor's
    tries and failed uploads left out), withdrawn learners' included."""
    query = (
        select(AttemptRow.student, func.count())
        .where(
            AttemptRow.course == queue.course,
            AttemptRow.assignment == assignment,
            AttemptRow.counts.is_(True),
            AttemptRow.status != "failed",
        )
        .group_by(AttemptRow.student)
    )
    with queue.engine.connect() as conn:
        return {student: int(n) for student, n in conn.execute(query)}


def _question(q: QuestionResult) -> dict[str, Any]:
    # The API's reader gets words, not the document's parts: ``q`` is written in their
    # language already (``learner_result``), so each text is one string.
    data = q.to_json()
    data["feedback"] = str(q.feedback)
    if q.explain is not None:
        data["explain"] = str(q.explain)
    return data


def _written(text: Text | None) -> str | None:
    return None if text is None else str(text)
