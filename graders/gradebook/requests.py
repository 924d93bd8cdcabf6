"""Regrade requests: a learner asks for a review of one question of one graded attempt;
an instructor accepts it (points, by an override), has it graded again, or declines it.

    ask(engine, course, policy, Asked(...))                       the learner's request
    accept(engine, course, request_id, points, answer, by)        an override with the answer
    answer(engine, course, request_id, REGRADED | DECLINED, ...)  after a regrade, or no
    listed(engine, course, assignment=..., student=..., ...)      what instructors and learners read

A request is tied to one question of one attempt in the learner's own variant, and is
refused with a sentence saying why (``RequestRefused``): the course takes none, the
question is at full marks, the window closed, the learner was withdrawn from the assignment,
their requests for it are used up, or the same question is asked about already. Those last
three are checked under the learner's lock an upload takes (``databases.learner_lock``), so
requests asked at once cannot pass the limit together. Each request and each answer is in
the audit trail (``graders history``); the learner's reason is text wherever it is shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection, Engine

from ..course.model import RegradeRequestPolicy
from ..errors import UsageError
from ..i18n import N_
from ..results import QuestionResult, format_points
from . import audit
from .adjustments import WITHDRAWN, dropped_students
from .databases import learner_lock
from .overrides import Decision, set_override
from .term_tables import RegradeRequestRow

OPEN, ACCEPTED, REGRADED, DECLINED = "open", "accepted", "regraded", "declined"
STATUSES = (OPEN, ACCEPTED, REGRADED, DECLINED)
MAX_REASON_CHARS = 2000


@dataclass(frozen=True)
class RegradeRequest:
    """One request, and the instructor's answer once there is one."""

    id: int
    assignment: str
    student: str
    attempt: int | None
    question: str
    reason: str
    status: str
    answer: str | None
    points: float | None
    by: str | None
    asked_at: datetime
    decided_at: datetime | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "assignment": self.assignment,
            "student": self.student,
            "submission": self.attempt,
            "question": self.question,
            "reason": self.reason,
            "status": self.status,
            "answer": self.answer,
            "points": self.points,
            "asked_at": self.asked_at.isoformat(),
            "decided_at": self.decided_at.isoformat() if self.decided_at else None,
        }


class RequestRefused(Exception):
    """Why a request is not taken: a catalogued sentence and its fields, for the learner;
    ``malformed`` when the request itself is not one to take (its reason missing or too
    long), as opposed to one the course's rules refuse."""

    def __init__(
        self, text: str, fields: Mapping[str, Any] | None = None, *, malformed: bool = False
    ) -> None:
        super().__init__(text.format(**(fields or {})))
        self.text, self.fields, self.malformed = text, dict(fields or {}), malformed


@dataclass(frozen=True)
class Asked:
    """A learner's request, with what the service knows of the attempt it is about."""

    assignment: str
    student: str
    attempt: int | None
    question: str
    reason: str
    graded: QuestionResult | None  # the question as graded in that attempt (None: no such)
    opened_at: datetime  # when the learner could first see the expected answers
    now: datetime


def ask(
    engine: Engine, course: str, policy: RegradeRequestPolicy | None, asked: Asked
) -> RegradeRequest:
    """Record ``asked`` as an open request, or raise ``RequestRefused`` saying why not."""
    if policy is None:
        raise RequestRefused(N_("This course takes no review requests."))
    if asked.graded is None:
        raise RequestRefused(
            N_("This attempt has no question {question}."), {"question": asked.question}
        )
    if asked.graded.points >= asked.graded.max_points:
        raise RequestRefused(
            N_("{question} has full marks already: there is nothing to review."),
            {"question": asked.question},
        )
    reason = asked.reason.strip()
    if not reason or len(reason) > MAX_REASON_CHARS:
        raise RequestRefused(
            N_("Say why you ask, in at most {max} characters."),
            {"max": MAX_REASON_CHARS},
            malformed=True,
        )
    closes = asked.opened_at + timedelta(days=policy.window_days)
    if asked.now > closes:
        raise RequestRefused(
            N_("Review requests for {assignment} closed at {time}."),
            {"assignment": asked.assignment, "time": closes.isoformat(timespec="minutes")},
        )
    # The learner's lock, as an upload's: requests asked at once are counted one by one.
    with learner_lock(engine, course, asked.assignment, asked.student) as conn:
        if asked.student in dropped_students(conn, course, asked.assignment):
            raise RequestRefused(WITHDRAWN, {"assignment": asked.assignment})
        mine = _of(course, asked.assignment, asked.student)
        used = conn.execute(
            select(func.count()).select_from(RegradeRequestRow).where(*mine)
        ).scalar_one()
        if used >= policy.per_assignment:
            raise RequestRefused(
                N_("You have made all {max} review requests for {assignment}."),
                {"max": policy.per_assignment, "assignment": asked.assignment},
            )
        again = conn.execute(
            select(RegradeRequestRow.id).where(
                *mine,
                RegradeRequestRow.question == asked.question,
                RegradeRequestRow.attempt == asked.attempt,
                RegradeRequestRow.status == OPEN,
            )
        ).first()
        if again is not None:
            raise RequestRefused(
                N_("You asked about {question} already: its answer will come here."),
                {"question": asked.question},
            )
        inserted = conn.execute(
            insert(RegradeRequestRow).values(
                course=course,
                assignment=asked.assignment,
                student=asked.student,
                attempt=asked.attempt,
                question=asked.question,
                reason=reason,
                status=OPEN,
                asked_at=asked.now,
            )
        ).inserted_primary_key
        assert inserted is not None
        new_id = int(inserted[0])
        audit.log(
            conn,
            (course, asked.assignment, asked.student),
            "request",
            f"review of {asked.question} asked (request {new_id})",
            by=asked.student,
            reason=reason,
        )
        return _one(conn, course, int(new_id))


def accept(
    engine: Engine,
    course: str,
    request_id: int,
    points: float | None,
    reason: str,
    by: str,
    renamed: Mapping[str, str] | None = None,
) -> RegradeRequest:
    """Accept an open request: the question gets ``points`` (default: all it is worth) by an
    override whose reason the learner reads."""
    found = _open(engine, course, request_id)
    if not reason.strip():
        raise UsageError("say why (--reason): the learner reads it")
    if points is None:
        points = _worth(engine, course, found, renamed)
    set_override(
        engine,
        course,
        found.assignment,
        found.student,
        Decision(found.question, points, reason, by),
        renamed,
    )
    return _answered(engine, course, found, ACCEPTED, reason, by, points)


def answer(
    engine: Engine, course: str, request_id: int, status: str, reason: str, by: str
) -> RegradeRequest:
    """Close an open request as ``REGRADED`` (after the attempt was graded again) or
    ``DECLINED``, with the instructor's reason."""
    if status not in (REGRADED, DECLINED):
        raise ValueError(f"not an answer: {status}")
    if not reason.strip():
        raise UsageError("say why (--reason): the learner reads it")
    return _answered(engine, course, _open(engine, course, request_id), status, reason, by, None)


def listed(
    engine: Engine,
    course: str,
    *,
    assignment: str | None = None,
    student: str | None = None,
    attempt: int | None = None,
    status: str | None = None,
) -> list[RegradeRequest]:
    """The requests that match, oldest first."""
    query = select(RegradeRequestRow).where(RegradeRequestRow.course == course)
    if assignment is not None:
        query = query.where(RegradeRequestRow.assignment == assignment)
    if student is not None:
        query = query.where(RegradeRequestRow.student == student)
    if attempt is not None:
        query = query.where(RegradeRequestRow.attempt == attempt)
    if status is not None:
        query = query.where(RegradeRequestRow.status == status)
    with engine.connect() as conn:
        return [_request(row) for row in conn.execute(query.order_by(RegradeRequestRow.id))]


def one(engine: Engine, course: str, request_id: int) -> RegradeRequest | None:
    with engine.connect() as conn:
        row = conn.execute(
            select(RegradeRequestRow).where(
                RegradeRequestRow.course == course, RegradeRequestRow.id == request_id
            )
        ).first()
    return None if row is None else _request(row)


def _open(engine: Engine, course: str, request_id: int) -> RegradeRequest:
    found = one(engine, course, request_id)
    if found is None:
        raise UsageError(f"no review request {request_id}")
    if found.status != OPEN:
        raise UsageError(f"request {request_id} was {found.status} already")
    return found


def _worth(
    engine: Engine, course: str, found: RegradeRequest, renamed: Mapping[str, str] | None
) -> float:
    from . import saved_grades

    with engine.connect() as conn:
        saved = saved_grades.saved_result(conn, course, found.assignment, found.student, renamed)
    question = saved[0].question(found.question) if saved is not None else None
    if question is None:
        raise UsageError(f"{found.student} has no grade of {found.question} in {found.assignment}")
    return question.max_points


def _answered(
    engine: Engine,
    course: str,
    found: RegradeRequest,
    status: str,
    reason: str,
    by: str,
    points: float | None,
) -> RegradeRequest:
    with engine.begin() as conn:
        conn.execute(
            update(RegradeRequestRow)
            .where(RegradeRequestRow.id == found.id)
            .values(
                status=status, answer=reason.strip(), points=points, by=by, decided_at=audit.now()
            )
        )
        given = f", {format_points(points)} points" if points is not None else ""
        audit.log(
            conn,
            (course, found.assignment, found.student),
            f"request-{status}",
            f"review of {found.question} {status} (request {found.id}{given})",
            by=by,
            reason=reason.strip(),
        )
        return _one(conn, course, found.id)


def _one(conn: Connection, course: str, request_id: int) -> RegradeRequest:
    row = conn.execute(
        select(RegradeRequestRow).where(
            RegradeRequestRow.course == course, RegradeRequestRow.id == request_id
        )
    ).one()
    return _request(row)


def _request(row: Any) -> RegradeRequest:
    return RegradeRequest(
        row.id,
        row.assignment,
        row.student,
        row.attempt,
        row.question,
        row.reason,
        row.status,
        row.answer,
        row.points,
        row.by,
        row.asked_at,
        row.decided_at,
    )


def _of(course: str, assignment: str, student: str) -> tuple[Any, ...]:
    return (
        RegradeRequestRow.course == course,
        RegradeRequestRow.assignment == assignment,
        RegradeRequestRow.student == student,
    )
