"""The service's JSON API.

    GET  /api/health                                 200 {"status": "ok"}
    GET  /api/ready                                  200 once warm (truths, sandbox); 503 before
    POST /api/assignments/{assignment}/submissions   multipart "notebook"; Bearer TOKEN
         -> 202 {"id", "status": "queued", "received_at"} | 401 | 403 | 404 | 413 | 422 | 429 | 503
    GET  /api/submissions/{id}[?wait=S]              one attempt, as its reader may see it;
                                                     404 when it is not theirs; ``wait``: up
                                                     to S seconds (30 at most) for its grade
    GET  /api/assignments/{assignment}/submissions   the caller's own, newest first
    GET  /api/assignments/{assignment}/grades        the grades of record: instructors only (403)

The notebook is stored in the gradebook, with the server's receive time and its digest,
before the 202 is sent: a crash after it loses nothing.
"""

from __future__ import annotations

from datetime import datetime

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..gradebook.service_tables import FAILED, GRADED
from ..i18n import N_
from .attempts import Attempt
from .identity import Identity
from .refusals import Refusal, Refused
from .state import API_WAYS, UPLOAD_WAYS, Service, service_of
from .uploads import checked, read_form
from .views import attempt_json, counted_id, graded_view, learner_result, records, shown_to

UPLOADS_AT_ONCE = 2  # one learner's uploads read at once (each up to the size limit)
MAX_WAIT_S = 30.0


def routes() -> list[Route]:
    return [
        Route("/api/health", health),
        Route("/api/ready", ready),
        Route("/api/assignments/{assignment}/submissions", submit, methods=["POST"]),
        Route("/api/assignments/{assignment}/submissions", mine),
        Route("/api/submissions/{id:int}", one),
        Route("/api/assignments/{assignment}/grades", grades),
    ]


async def health(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def ready(request: Request) -> Response:
    """200 once the truths are prepared and the sandbox is warm (a load balancer's check);
    503 while the server starts. Uploads are taken either way: they wait in the queue."""
    grader = service_of(request).grader
    if grader is None or grader.ready.is_set():
        return JSONResponse({"status": "ready"})
    return JSONResponse({"status": "starting"}, 503, headers={"Retry-After": "1"})


async def submit(request: Request) -> Response:
    service = service_of(request)
    who = await service.who(request, UPLOAD_WAYS)
    attempt = await accept(service, request, who, request.path_params["assignment"])
    body = {
        "id": attempt.id,
        "attempt": attempt.number,
        "status": attempt.status,
        "received_at": _iso(attempt.received_at),
    }
    return JSONResponse(body, 202, headers={"Location": f"/api/submissions/{attempt.id}"})


async def accept(
    service: Service,
    request: Request,
    who: Identity,
    assignment_id: str,
) -> Attempt:
    """Read, check and store an upload of ``who`` (the API's and the pages' alike; a page's
    form token was checked at the gate, ``gate.FormGate``)."""
    assignment = service.assignment(assignment_id)
    if service.reading[who.student] >= UPLOADS_AT_ONCE:
        text = N_(
            "You are already sending {count} notebooks: wait for them to arrive, then send "
            "this one again."
        )
        raise Refused(
            429, Refusal(text, {"count": UPLOADS_AT_ONCE}), retry_after=5, reason="uploading"
        )
    service.reading[who.student] += 1  # the event loop's thread only: no lock needed
    try:
        form = await read_form(request, service.max_bytes)
        received_at = service.clock()  # the whole notebook is here: it is handed in now
        upload = await run_in_threadpool(
            checked, form, assignment.id, service.loaded, who.student, received_at
        )
    finally:
        service.reading[who.student] -= 1
        if not service.reading[who.student]:
            del service.reading[who.student]
    attempt = await run_in_threadpool(service.queue.accept, upload, who, assignment)
    if service.grader is not None:
        service.grader.wake()
    return attempt


async def one(request: Request) -> Response:
    service = service_of(request)
    who = await service.who(request, API_WAYS)
    attempt_id = int(request.path_params["id"])
    wait = _seconds(request.query_params.get("wait"))
    found = await run_in_threadpool(readable, service, who, attempt_id)
    if wait and found.status not in (GRADED, FAILED):
        await service.waiters.wait(attempt_id, wait)
    return JSONResponse(await run_in_threadpool(shown, service, who, attempt_id, request))


async def mine(request: Request) -> Response:
    service = service_of(request)
    who = await service.who(request, API_WAYS)
    assignment = service.assignment(request.path_params["assignment"])

    def listed() -> list[dict[str, object]]:
        attempts = service.queue.attempts(assignment.id, who.student)
        return [shown_attempt(service, who, a, request) for a in reversed(attempts)]

    return JSONResponse(await run_in_threadpool(listed))


async def grades(request: Request) -> Response:
    service = service_of(request)
    who = await service.who(request, API_WAYS)
    assignment = service.assignment(request.path_params["assignment"])
    if not who.instructor:
        text = N_("Only the course's instructors may read the class's grades.")
        raise Refused(403, Refusal(text))

    def listed() -> list[dict[str, object]]:
        return [
            {
                "student": r.student,
                "score": round(r.score, 4),
                "max_score": round(r.max_score, 4),
                "status": r.status.value,
                "late_factor": r.late_factor,  # the late policy's factor, as the class list's
                "attempts": r.attempts,
                "counted_id": r.counted_id,
            }
            for r in records(service.queue, assignment.id)
        ]

    return JSONResponse(await run_in_threadpool(listed))


def readable(service: Service, who: Identity, attempt_id: int) -> Attempt:
    """Attempt ``attempt_id`` when ``who`` may read it; ``Refused`` (404) otherwise, the
    same for another learner's as for none at all."""
    found = service.queue.attempt(attempt_id)
    if found is None or not (who.instructor or found.student == who.student):
        text = N_("You have no submission {id}.")
        raise Refused(404, Refusal(text, {"id": attempt_id}))
    return found


def shown(service: Service, who: Identity, attempt_id: int, request: Request) -> dict[str, object]:
    return shown_attempt(service, who, readable(service, who, attempt_id), request)


def shown_attempt(
    service: Service, who: Identity, attempt: Attempt, request: Request
) -> dict[str, object]:
    """``attempt`` as ``who`` may see it now, in their language."""
    assignment = service.assignment(attempt.assignment)
    counted = counted_id(service.queue, assignment.id, attempt.student)
    view = graded_view(service.queue, attempt, assignment, counted)
    result = None
    if view.result is not None:
        result = learner_result(
            view.result,
            shown_to(service.queue, who, assignment),
            service.languages(assignment.id),
            service.language(request),
        )
    left = None
    if not who.instructor:
        left = service.queue.attempts_left(assignment, attempt.student)
        if service.queue.dropped(assignment.id, attempt.student):
            left = 0  # withdrawn: nothing more is taken from them
    return attempt_json(view, result) | {"counted": attempt.id == counted, "attempts_left": left}


def _seconds(value: str | None) -> float:
    try:
        return min(MAX_WAIT_S, max(0.0, float(value))) if value else 0.0
    except ValueError:
        return 0.0


def _iso(value: datetime) -> str:
    return value.isoformat()
