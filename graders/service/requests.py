"""Review requests in the service: a learner asks about one question of a graded attempt,
an instructor answers on their page; the same through the API.

    POST /api/submissions/{id}/requests   JSON {"question": "<exercise>/<q>", "reason": "..."}
         -> 201 {"id", "status": "open", ...} | 403 | 404 | 422   (Bearer; one's own attempt)
    GET  /api/submissions/{id}/requests   the learner's requests on that attempt (instructors: all)
    POST /submissions/{id}/requests       the attempt page's form: question, reason
    POST /requests/{id}                   the instructor page's form: accept | regrade | decline

A request is taken only where the learner can read the expected answers (``views.shown_to``
is full: after the assignment closed for the class, or where the course shows them sooner),
about their own graded attempt; ``gradebook.requests`` holds the rest of the rules. The
learner's reason is text everywhere (templates escape it). Accepting gives the question
points by an override; regrading puts the attempt back in the queue, to be graded against
the key torch computes now; either way the grade of record, the exports and the LMS follow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ..course.model import Shown
from ..course.visibility import closes
from ..errors import UsageError
from ..gradebook import requests as review
from ..gradebook.adjustments import WITHDRAWN
from ..gradebook.service_tables import GRADED
from ..i18n import N_
from ..results import QuestionResult, format_points
from .attempts import Attempt
from .bodies import json_body
from .identity import Identity
from .refusals import Refusal, Refused
from .state import API_WAYS, PAGE_WAYS, Service, service_of
from .views import counted_id, graded_view, shown_to

if TYPE_CHECKING:
    from ..course.model import Assignment
    from .grader import Grader
    from .queue import Queue

MAX_BODY = 16_384  # a request's JSON or form: a question id and a reason
# A field, not part of the sentence: its braces would be format()'s placeholders (a 500).
SEND_JSON = N_("Send JSON {example}.")
EXAMPLE = '{"question": "<exercise>/<question>", "reason": "..."}'
# How the learner's page names each status of a request.
REQUEST_WORDS = {
    review.OPEN: N_("waiting for your instructor"),
    review.ACCEPTED: N_("accepted"),
    review.REGRADED: N_("graded again"),
    review.DECLINED: N_("declined"),
}


def routes() -> list[Route]:
    return [
        Route("/api/submissions/{id:int}/requests", api_ask, methods=["POST"]),
        Route("/api/submissions/{id:int}/requests", api_list),
        Route("/submissions/{id:int}/requests", page_ask, methods=["POST"]),
        Route("/requests/{id:int}", page_answer, methods=["POST"]),
    ]


@dataclass(frozen=True)
class Reviewable:
    """What the attempt page offers: the questions a learner may ask about, or why none."""

    questions: tuple[QuestionResult, ...]
    requests: tuple[review.RegradeRequest, ...]
    offered: bool  # the course takes requests, and this attempt may have one
    words: Mapping[str, str] = field(default_factory=lambda: REQUEST_WORDS)  # by status
    max_reason: int = review.MAX_REASON_CHARS


def reviewable(service: Service, who: Identity, attempt: Attempt) -> Reviewable:
    """The questions of ``attempt`` its learner may ask about now, and their requests on it."""
    course = service.course.id
    mine = tuple(
        review.listed(service.engine, course, attempt=attempt.id)
        if who.instructor
        else review.listed(service.engine, course, attempt=attempt.id, student=who.student)
    )
    if service.course.regrade_requests is None or who.instructor or attempt.student != who.student:
        return Reviewable((), mine, False)
    try:
        _eligible(service, who, attempt)
    except Refused:
        return Reviewable((), mine, False)
    result = _graded(service, attempt)
    below = tuple(q for q in result if q.points < q.max_points)
    return Reviewable(below, mine, bool(below))


def ask(service: Service, who: Identity, attempt_id: int, question: str, reason: str) -> Any:
    """Record ``who``'s request about ``question`` of their attempt, or raise ``Refused``."""
    from .api import readable

    attempt = readable(service, who, attempt_id)
    if who.instructor or attempt.student != who.student:
        raise Refused(403, Refusal(N_("Only the learner who handed it in may ask for a review.")))
    opened_at = _eligible(service, who, attempt)
    graded = next((q for q in _graded(service, attempt) if q.id == question), None)
    asked = review.Asked(
        attempt.assignment,
        who.student,
        attempt.id,
        question,
        reason,
        graded,
        opened_at,
        datetime.now(UTC),
    )
    try:
        return review.ask(service.engine, service.course.id, service.course.regrade_requests, asked)
    except review.RequestRefused as refused:
        status = 422 if refused.malformed else 403
        raise Refused(status, Refusal(refused.text, refused.fields)) from None


def answer(
    service: Service, who: Identity, request_id: int, action: str, reason: str, points: float | None
) -> review.RegradeRequest:
    """An instructor's answer to an open request: accept, regrade or decline."""
    if not who.instructor:
        raise Refused(
            403, Refusal(N_("Only the course's instructors may answer a review request."))
        )
    course = service.course.id
    found = review.one(service.engine, course, request_id)
    if found is None:
        raise Refused(404, Refusal(N_("There is no review request {id}."), {"id": request_id}))
    by = who.student
    try:
        if action == "accept":
            done = review.accept(
                service.engine, course, request_id, points, reason, by, service.loaded.renamed
            )
        elif action == "regrade" and found.attempt is not None:
            service.queue.requeue([found.attempt])  # graded again against today's key
            if service.grader is not None:
                service.grader.wake()
            done = review.answer(service.engine, course, request_id, review.REGRADED, reason, by)
        elif action == "decline":
            done = review.answer(service.engine, course, request_id, review.DECLINED, reason, by)
        else:  # never a silent decline: an answer the form cannot mean changes nothing
            text = N_(
                "Answer a review request with accept, regrade (of a served attempt) or decline."
            )
            raise Refused(422, Refusal(text))
    except UsageError as problem:
        raise Refused(422, Refusal(N_("{problem}"), {"problem": str(problem)})) from None
    service.lti.wake()  # a grade of record may have changed: the LMS's to receive
    return done


async def api_ask(request: Request) -> Response:
    service = service_of(request)
    who = await service.who(request, API_WAYS)
    body = await _json(request)
    question, reason = body.get("question"), body.get("reason")
    if not isinstance(question, str) or not isinstance(reason, str):
        raise Refused(422, Refusal(SEND_JSON, {"example": EXAMPLE}))
    attempt_id = int(request.path_params["id"])
    made = await run_in_threadpool(ask, service, who, attempt_id, question, reason)
    return JSONResponse(made.to_json(), 201, headers={"Location": request.url.path})


async def api_list(request: Request) -> Response:
    from .api import readable

    service = service_of(request)
    who = await service.who(request, API_WAYS)
    attempt = await run_in_threadpool(readable, service, who, int(request.path_params["id"]))
    listed = await run_in_threadpool(reviewable, service, who, attempt)
    return JSONResponse([r.to_json() for r in listed.requests])


async def page_ask(request: Request) -> Response:
    """The attempt page's form; a refusal is the error page, with its sentence."""
    service = service_of(request)
    who = await service.who(request, PAGE_WAYS)
    form = await request.form(max_files=0, max_fields=4)
    attempt_id = int(request.path_params["id"])
    question, reason = str(form.get("question", "")), str(form.get("reason", ""))
    await run_in_threadpool(ask, service, who, attempt_id, question, reason)
    return RedirectResponse(f"/submissions/{attempt_id}#requests", 303)


async def page_answer(request: Request) -> Response:
    service = service_of(request)
    who = await service.who(request, PAGE_WAYS)
    form = await request.form(max_files=0, max_fields=6)
    points_text = str(form.get("points", "")).strip()
    try:
        points = float(points_text) if points_text else None
    except ValueError:
        raise Refused(422, Refusal(N_("Points are a number, such as 1 or 0.5."))) from None
    await run_in_threadpool(
        answer,
        service,
        who,
        int(request.path_params["id"]),
        str(form.get("action", "")),
        str(form.get("reason", "")),
        points,
    )
    return RedirectResponse("/instructor#requests", 303)


@dataclass(frozen=True)
class Preview:
    """A review request's attempt graded again against today's key, saved nowhere: each
    question's points and status before and after, for the instructor to decide on."""

    request: review.RegradeRequest
    rows: tuple[tuple[str, QuestionResult | None, QuestionResult | None], ...]
    before: float
    after: float
    max_score: float


def preview(service: Service, who: Identity, request_id: int) -> Preview:
    """What grading the request's attempt again would give; nothing is saved."""
    if not who.instructor:
        raise Refused(
            403, Refusal(N_("Only the course's instructors may answer a review request."))
        )
    found = review.one(service.engine, service.course.id, request_id)
    if found is None or found.attempt is None:
        raise Refused(404, Refusal(N_("There is no review request {id}."), {"id": request_id}))
    shown = None
    if service.grader is not None:
        assignment = service.assignment(found.assignment)
        shown = graded_again(service.queue, service.grader, assignment, found)
    if shown is None:
        text = N_(
            "This server does not grade: run graders serve with workers to preview a regrade."
        )
        raise Refused(503, Refusal(text))
    return shown


def graded_again(
    queue: Queue, grader: Grader, assignment: Assignment, found: review.RegradeRequest
) -> Preview | None:
    """The request's attempt graded again by ``grader``, beside its grade as it stands, saved
    nowhere (the instructor's page and ``graders request ID preview``); None when the
    attempt or its notebook is not there."""
    attempt = queue.attempt(found.attempt) if found.attempt is not None else None
    stored = queue.stored(found.attempt) if found.attempt is not None else None
    if attempt is None or stored is None:
        return None
    before = {q.id: q for q in _as_graded(queue, assignment, attempt)}
    again = grader.preview(stored)
    after = {q.id: q for q in again.questions}
    ids = list(dict.fromkeys([*before, *after]))
    return Preview(
        found,
        tuple((i, before.get(i), after.get(i)) for i in ids),
        sum(q.points for q in before.values()),
        sum(q.points for q in after.values()),
        again.max_score,
    )


def open_requests(service: Service) -> list[dict[str, Any]]:
    """The instructor page's list: each open request with the learner's answer, the expected
    answer and the misconception named, from the attempt as graded."""
    found = []
    for asked in review.listed(service.engine, service.course.id, status=review.OPEN):
        question = None
        if asked.attempt is not None:
            attempt = service.queue.attempt(asked.attempt)
            if attempt is not None:
                question = next(
                    (q for q in _graded(service, attempt) if q.id == asked.question), None
                )
        found.append(
            {
                "request": asked,
                "question": question,
                "points": format_points(question.points) if question else "",
                "max_points": format_points(question.max_points) if question else "",
            }
        )
    return found


def _eligible(service: Service, who: Identity, attempt: Attempt) -> datetime:
    """When the learner could first read the expected answers of ``attempt``; ``Refused``
    when they cannot yet, or the attempt is not graded."""
    if attempt.status != GRADED or attempt.graded_at is None or not attempt.counts:
        raise Refused(403, Refusal(N_("Only a graded attempt can be reviewed.")))
    assignment = service.assignment(attempt.assignment)
    if service.queue.dropped(assignment.id, attempt.student):  # no form (``review.ask`` says it)
        raise Refused(403, Refusal(WITHDRAWN, {"assignment": assignment.id}))
    if shown_to(service.queue, who, assignment) is not Shown.FULL:
        text = N_("Review requests for {assignment} open when its expected answers are shown.")
        raise Refused(403, Refusal(text, {"assignment": assignment.id}))
    closed = closes(service.queue.due_for(assignment, attempt.student))
    now = datetime.now(UTC)
    return max(attempt.graded_at, closed) if closed <= now else attempt.graded_at


def _graded(service: Service, attempt: Attempt) -> tuple[QuestionResult, ...]:
    return _as_graded(service.queue, service.assignment(attempt.assignment), attempt)


def _as_graded(
    queue: Queue, assignment: Assignment, attempt: Attempt
) -> tuple[QuestionResult, ...]:
    counted = counted_id(queue, assignment.id, attempt.student)
    view = graded_view(queue, attempt, assignment, counted)
    return view.result.questions if view.result is not None else ()


async def _json(request: Request) -> dict[str, Any]:
    body = await request.body()
    if len(body) > MAX_BODY:
        raise Refused(
            413, Refusal(N_("A review request is at most {max} bytes."), {"max": MAX_BODY})
        )
    unreadable = Refusal(SEND_JSON, {"example": EXAMPLE})
    data = await json_body(request, unreadable)  # the body again: Starlette keeps it
    if not isinstance(data, dict):
        raise Refused(422, unreadable)
    return data
