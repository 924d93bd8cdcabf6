"""The service's pages: HTML written on the server, in the reader's language, that work
without JavaScript (a script only reloads a page whose grade is being made).

    /sign-in                 sign in with the token the instructor gave (a session cookie)
    /assignments             the course's assignments: due dates, attempts, grades
    /assignments/{a}         upload, attempts left, history, the latest feedback
    /submissions/{id}        one attempt and its feedback (a learner's own only)

The instructor's pages (``/instructor``, the class list as CSV, the class report) are the
desk's (``desk.py``), written with this module's ``render``.

A form that changes something carries the browser's form token (``gate.form_token`` of its
session, or before sign-in of its pre-session cookie, which the first page sets): the gate
every state-changing request passes (``gate.FormGate``) refuses one without it, so that no
other site can post it in a learner's name; the session cookie is HttpOnly,
SameSite=Lax, and Secure when the server is reached over HTTPS (a reverse proxy's
``X-Forwarded-Proto``, which uvicorn trusts from the proxy's address).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import ChoiceLoader, Environment, PackageLoader
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..course.model import Assignment
from ..course.times import zone_of
from ..course.visibility import closes
from ..gradebook.service_tables import FAILED, GRADED, QUEUED, TOKEN
from ..i18n import AUTONYMS, N_, speaking
from ..notebook.parts import late_rule
from ..reports import feedback
from ..reports.page_templates import html_environment
from .attempts import Attempt
from .gate import FORM_COOKIE, form_key, form_token, new_form_key
from .identity import SESSION_COOKIE, SESSION_HOURS, Identity, SessionCookie, identify
from .refusals import Refusal, Refused
from .requests import reviewable
from .state import LANGUAGE_COOKIE, Service, service_of
from .views import counted_id, graded_view

STATIC = Path(__file__).with_name("static")
PAGE_WAIT_S = 10.0  # how long an upload's answer waits for its grade before showing the queue
FEEDBACK = "feedback_body.html.j2"  # the feedback page's content (``reports/templates``)


def routes() -> list[BaseRoute]:
    return [
        Route("/", home),
        Route("/sign-in", sign_in_page),
        Route("/sign-in", sign_in, methods=["POST"]),
        Route("/sign-out", sign_out, methods=["POST"]),
        Route("/language", choose_language, methods=["POST"]),
        Route("/assignments", assignments_page),
        Route("/assignments/{assignment}", assignment_page),
        Route("/assignments/{assignment}", upload, methods=["POST"]),
        Route("/submissions/{id:int}", submission_page),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]


class SignIn(Exception):
    """The page needs someone signed in: go to the sign-in page, then come back."""


async def signed_in(request: Request) -> Identity:
    service = service_of(request)
    asked = await run_in_threadpool(identify, request, service.credentials, (SessionCookie(),))
    if asked.identity is None:
        raise SignIn
    return asked.identity


async def home(request: Request) -> Response:
    service = service_of(request)
    asked = await run_in_threadpool(identify, request, service.credentials, (SessionCookie(),))
    return RedirectResponse("/assignments" if asked.identity else "/sign-in", 303)


async def sign_in_page(request: Request, error: str | None = None, status: int = 200) -> Response:
    context = {"error": error, "request_next": request.query_params.get("next")}
    return render(request, "sign_in.html.j2", None, context, status)


async def sign_in(request: Request) -> Response:
    service = service_of(request)
    form = await request.form(max_files=0, max_fields=4)
    token = str(form.get("token", "")).strip()
    who = await run_in_threadpool(service.credentials.identity, token, TOKEN) if token else None
    if who is None:
        message = Refusal(N_("This token is not valid: check it, or ask your instructor."))
        return await sign_in_page(request, message.in_language(service.language(request)), 401)
    secret = await run_in_threadpool(service.credentials.start_workspace, who)
    response = RedirectResponse(_next(request), 303)
    response.set_cookie(
        SESSION_COOKIE,
        secret,
        max_age=SESSION_HOURS * 3600,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )
    return response


async def sign_out(request: Request) -> Response:
    service = service_of(request)
    secret = request.cookies.get(SESSION_COOKIE)
    if secret:
        await run_in_threadpool(service.credentials.end_session, secret)
    response = RedirectResponse("/sign-in", 303)
    response.delete_cookie(SESSION_COOKIE)
    return response


async def choose_language(request: Request) -> Response:
    service = service_of(request)
    form = await request.form(max_files=0, max_fields=4)
    chosen = str(form.get("lang", ""))
    back = str(form.get("back", "/"))
    response = RedirectResponse(back if _local(back) else "/", 303)
    if chosen in service.course.languages:
        response.set_cookie(LANGUAGE_COOKIE, chosen, max_age=365 * 24 * 3600, samesite="lax")
    return response


async def assignments_page(request: Request) -> Response:
    service = service_of(request)
    who = await signed_in(request)

    def rows() -> list[dict[str, Any]]:
        found = []
        for assignment in course_in(service, request).course.assignments:
            mine = service.queue.attempts(assignment.id, who.student)
            found.append(
                {
                    "assignment": assignment,
                    "due": service.queue.due_for(assignment, who.student).due,
                    "attempts": len([a for a in mine if a.status != FAILED]),
                    "left": service.queue.attempts_left(assignment, who.student),
                    "dropped": not who.instructor
                    and service.queue.dropped(assignment.id, who.student),
                }
            )
        return found

    return render(request, "assignments.html.j2", who, {"rows": await run_in_threadpool(rows)})


async def assignment_page(
    request: Request, error: str | None = None, status: int = 200
) -> Response:
    service = service_of(request)
    who = await signed_in(request)
    assignment = service.assignment(request.path_params["assignment"])
    context = await run_in_threadpool(_assignment_context, service, who, assignment, request)
    return render(request, "assignment.html.j2", who, context | {"error": error}, status)


async def upload(request: Request) -> Response:
    from .api import accept

    service = service_of(request)
    who = await signed_in(request)
    assignment = service.assignment(request.path_params["assignment"])
    try:
        attempt = await accept(service, request, who, assignment.id)
    except Refused as refused:
        message = refused.message.in_language(service.language(request))
        page = await assignment_page(request, message, refused.status)
        page.headers.update(refused.headers)  # Retry-After, for a browser that reads it
        return page

    # Grading takes well under a second when the queue is short: answer with the feedback.
    await service.waiters.wait(attempt.id, PAGE_WAIT_S)
    return RedirectResponse(f"/submissions/{attempt.id}", 303)


async def submission_page(request: Request) -> Response:
    from .api import readable

    service = service_of(request)
    who = await signed_in(request)
    attempt_id = int(request.path_params["id"])
    attempt = await run_in_threadpool(readable, service, who, attempt_id)
    context = await run_in_threadpool(_submission_context, service, who, attempt, request)
    return render(request, "submission.html.j2", who, context)


def error_page(
    request: Request, status: int, message: str, headers: Mapping[str, str] | None = None
) -> Response:
    """A refusal as a page, with the header and menu of whoever is signed in (a route that
    refused before asking who it was, or an address no route has, asks here)."""
    who = getattr(request.state, "identity", None)
    if who is None and request.cookies.get(SESSION_COOKIE):
        who = identify(request, service_of(request).credentials, (SessionCookie(),)).identity
    response = render(request, "error.html.j2", who, {"status": status, "message": message}, status)
    response.headers.update(headers or {})
    return response


def render(
    request: Request,
    template: str,
    who: Identity | None,
    context: Mapping[str, Any],
    status: int = 200,
) -> HTMLResponse:
    """``template`` in the reader's language, with what every page shows."""
    service = service_of(request)
    language = service.language(request)
    key, new_key = form_key(request.cookies), ""
    if not key:  # a browser's first page: its forms are signed before it signs in
        key = new_key = new_form_key()
    common = {
        "lang": language,
        "course_title": course_in(service, request).course.title,
        "who": who,
        "csrf": form_token(key),
        "languages": [(code, AUTONYMS.get(code, code)) for code in service.course.languages],
        "here": request.url.path,
    }
    with speaking(language):
        html = environment().get_template(template).render({**context, **common})
    response = HTMLResponse(html, status)
    if new_key:
        response.set_cookie(
            FORM_COOKIE,
            new_key,
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )
    return response


_ENVIRONMENT: Environment | None = None


def environment() -> Environment:
    """The pages' templates, beside the feedback page's (one body for both)."""
    global _ENVIRONMENT
    if _ENVIRONMENT is None:
        _ENVIRONMENT = html_environment(
            ChoiceLoader(
                [
                    PackageLoader("graders.service", "templates"),
                    PackageLoader("graders.reports", "templates"),
                ]
            )
        )
    return _ENVIRONMENT


def _assignment_context(
    service: Service, who: Identity, assignment: Assignment, request: Request
) -> dict[str, Any]:
    language = service.language(request)
    queue = service.queue
    mine = queue.due_for(assignment, who.student)
    attempts = service.queue.attempts(assignment.id, who.student)
    counted = counted_id(service.queue, assignment.id, who.student)
    latest = next((a for a in reversed(attempts) if a.status == GRADED), None)
    shown = course_in(service, request).course.assignment(assignment.id) or assignment
    with speaking(language):
        rule = late_rule(assignment.late)
    dropped = not who.instructor and service.queue.dropped(assignment.id, who.student)
    return {
        "dropped": dropped,  # told at once: no upload form, no attempts left to count
        "assignment": shown,
        "zone": zone_of(assignment),
        "policy": mine.submissions,
        "due": mine.due,
        "closes": closes(mine),
        "late_rule": rule,
        # Each stated as it counts now (the learner's due date, the overrides of the one
        # that counts), as its own page and the API state it.
        "attempts": [graded_view(queue, a, assignment, counted) for a in reversed(attempts)],
        "left": None
        if who.instructor or dropped
        else service.queue.attempts_left(assignment, who.student),
        "counted": counted,
        "latest": latest,
        "feedback": _feedback(service, who, latest, assignment, counted, language),
    }


def _submission_context(
    service: Service, who: Identity, attempt: Attempt, request: Request
) -> dict[str, Any]:
    language = service.language(request)
    assignment = service.assignment(attempt.assignment)
    counted = counted_id(service.queue, assignment.id, attempt.student)
    ahead = 0
    if attempt.status == QUEUED:
        ahead = sum(
            1
            for a in service.queue.all_attempts(assignment.id)
            if a.status == QUEUED and a.id < attempt.id
        )
    shown = course_in(service, request).course.assignment(assignment.id) or assignment
    return {
        "assignment": shown,
        "zone": zone_of(assignment),
        "attempt": attempt,
        "counted": counted,
        "ahead": ahead,
        "feedback": _feedback(service, who, attempt, assignment, counted, language),
        "review": reviewable(service, who, attempt),
    }


def _feedback(
    service: Service,
    who: Identity,
    attempt: Attempt | None,
    assignment: Assignment,
    counted: int | None,
    language: str,
) -> Markup | None:
    """``attempt``'s feedback, as the feedback page shows it and as ``who`` may see it now."""
    from .views import shown_to

    if attempt is None or attempt.status != GRADED:
        return None
    view = graded_view(service.queue, attempt, assignment, counted)
    if view.result is None:
        return None
    visible = shown_to(service.queue, who, assignment)
    with speaking(language):
        context = feedback.feedback_context(service.languages(assignment.id), view.result, visible)
        return Markup(environment().get_template(FEEDBACK).render(context))


def course_in(service: Service, request: Request) -> Any:
    language = service.language(request)
    first = service.course.assignments[0].id
    return service.languages(first).course_in(language)


def _next(request: Request) -> str:
    wanted = request.query_params.get("next", "/assignments")
    return wanted if _local(wanted) else "/assignments"


def _local(path: str) -> bool:
    """A path on this site (never another site's address: no open redirect)."""
    return path.startswith("/") and not path.startswith("//") and "\\" not in path


async def to_sign_in(request: Request, exc: Exception) -> Response:
    """Where a page that needs someone signed in sends a browser that is not."""
    return RedirectResponse(f"/sign-in?next={quote(request.url.path)}", 303)
