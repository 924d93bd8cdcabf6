"""The ASGI application of ``graders serve``: the API, the pages, and the grading behind them.

    service = Service(session, db_url, workers=2)      # or cluster="local:2"
    app = create_app(service)          # Starlette; ``graders serve`` runs it under uvicorn

``Service`` holds what every request shares: the course, the gradebook, the queue of
attempts, the grader (``workers`` threads over the session's warm sandbox, or over a Dask
cluster's workers with ``cluster``; none with ``workers=0``: a process that only takes
uploads, beside others that grade), and who is asking (``identity``). The application
starts the grader when the server starts and, when it stops, stops it (``Grader.stop``:
what is grading finishes or goes back to the queue). A refusal is JSON under ``/api/``
and a page elsewhere, in the reader's language.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as ASGIMessage

from ..course.learner_language import LearnerLanguages
from ..course.model import Assignment
from ..gradebook import store as gradebook
from ..i18n import N_
from ..notebook.read import MAX_NOTEBOOK_BYTES
from ..session import Session
from .grader import Grader
from .identity import Authenticator, BearerToken, Credentials, Identity, SessionCookie, identify
from .lti.tool import LtiTool
from .queue import Queue
from .refusals import Message, Refused
from .servers import Servers
from .sites import Here, OnCluster, Site
from .waiting import Waiters

log = logging.getLogger("graders.service")
LANGUAGE_COOKIE = "graders_lang"
API = "/api/"
SECURITY_HEADERS = {
    # Pages load their style and script from the service only; only the LMSs registered for
    # LTI may frame them (``{frames}``: 'none' without one).
    "content-security-policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors {frames}; form-action 'self'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


class Service:
    """What every request of one course's service shares."""

    def __init__(
        self,
        session: Session,
        db_url: str,
        *,
        workers: int | None = 1,
        cluster: str | None = None,
        isolation: str = "auto",
        max_bytes: int = MAX_NOTEBOOK_BYTES,
        queue_limit: int = 10_000,
        grace_s: float = 30.0,
        base_url: str | None = None,
        lti_every_s: float = 10.0,
    ) -> None:
        self.session = session
        self.loaded = session.loaded
        self.course = session.loaded.course
        self.engine = gradebook.open_gradebook(db_url)
        self.credentials = Credentials(self.engine, self.course.id)
        self.queue = Queue(self.engine, self.course.id, queue_limit, self.loaded.renamed)
        self.max_bytes, self.grace_s = max_bytes, grace_s
        self.base_url = base_url.rstrip("/") if base_url else None  # where an LMS reaches it
        self.lti = LtiTool(self.engine, self.loaded, every_s=lti_every_s)
        self.stopping = threading.Event()  # the server was asked to stop
        self.waiters = Waiters(self.stopping, self.queue.finished)
        site = _site(session, workers, cluster, isolation)
        self.grader = (
            Grader(session, self.queue, Servers(self.engine), site, done=self._graded)
            if site is not None
            else None
        )
        self._languages: dict[str, LearnerLanguages] = {}

    def _graded(self, attempt_id: int) -> None:
        self.waiters.done(attempt_id)
        self.lti.wake()  # a new grade of record may be an LMS's to receive

    def assignment(self, ident: str) -> Assignment:
        """The course's assignment ``ident``; ``Refused`` (404) when there is none."""
        found = self.course.assignment(ident)
        if found is None:
            text = N_("There is no assignment '{assignment}' in this course.")
            raise Refused(404, Message(text, {"assignment": ident}))
        return found

    def languages(self, assignment: str) -> LearnerLanguages:
        """The course of ``assignment`` in each language its learners read (made once)."""
        if assignment not in self._languages:
            self._languages[assignment] = LearnerLanguages(self.loaded, assignment)
        return self._languages[assignment]

    def language(self, request: Request) -> str:
        """The reader's language: ``?lang=``, else the one they chose on a page, else the
        first of their browser's that the course has, else the course's first."""
        languages = self.course.languages
        for chosen in (request.query_params.get("lang"), request.cookies.get(LANGUAGE_COOKIE)):
            if chosen in languages:
                return chosen
        for tag in accepted_languages(request.headers.get("accept-language", "")):
            for candidate in (tag, tag.split("-")[0]):
                if candidate in languages:
                    return candidate
        return languages[0]

    async def who(self, request: Request, ways: Sequence[Authenticator]) -> Identity:
        """Who sent ``request``; ``Refused`` (401) when no one the service knows did."""
        asked = await run_in_threadpool(identify, request, self.credentials, ways)
        if asked.identity is not None:
            return asked.identity
        text = (
            N_(
                "This token is not valid (it may have been replaced by a newer one): ask "
                "your instructor."
            )
            if asked.presented
            else N_("Sign in: send your token as 'Authorization: Bearer TOKEN'.")
        )
        raise Refused(401, Message(text), headers={"WWW-Authenticate": 'Bearer realm="graders"'})


def _site(
    session: Session, workers: int | None, cluster: str | None, isolation: str
) -> Site | None:
    """Where this process grades: a cluster (``workers`` at once, by default twice its
    threads), else here (``workers`` at once); nowhere with ``workers=0``."""
    if workers == 0:
        return None
    if cluster is not None:
        return OnCluster(session, cluster, isolation=isolation, at_once=workers)
    return Here(session, workers or 1)


def accepted_languages(header: str) -> list[str]:
    """The language tags of an ``Accept-Language`` header, most wanted first."""
    found: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and tag != "*" and quality > 0:
            found.append((-quality, index, tag.lower()))
    return [tag for _, _, tag in sorted(found)]


API_WAYS: tuple[Authenticator, ...] = (BearerToken(), SessionCookie())
UPLOAD_WAYS: tuple[Authenticator, ...] = (BearerToken(),)  # a cookie may not post: forms do


def create_app(service: Service) -> Starlette:
    """The application: the API's routes, the pages', and the grader's start and stop."""
    from . import api, pages
    from .lti import launch

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        service.waiters.start(asyncio.get_running_loop())
        if service.grader is not None:
            await run_in_threadpool(service.grader.start)
        service.lti.start()
        try:
            yield
        finally:
            service.stopping.set()
            await service.waiters.stop()
            await run_in_threadpool(service.lti.stop)
            if service.grader is not None:
                await run_in_threadpool(service.grader.stop, service.grace_s)

    app = Starlette(
        routes=[*api.routes(), *pages.routes(), *launch.routes()],
        lifespan=lifespan,
        exception_handlers={
            pages.SignIn: pages.to_sign_in,
            Refused: _refused,
            HTTPException: _http_error,
            Exception: _internal_error,
        },
        middleware=[Middleware(SecurityHeaders, frames=service.lti.frame_ancestors)],
    )
    app.state.service = service
    return app


def service_of(request: Request) -> Service:
    found: Service = request.app.state.service
    return found


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    service = service_of(request)
    message = exc.message.in_language(service.language(request))
    if request.url.path.startswith(API):
        body: dict[str, object] = {"error": message, "status": exc.status}
        if exc.reason is not None:
            body["reason"] = exc.reason
        return JSONResponse(body, exc.status, headers=exc.headers)
    from .pages import error_page

    return error_page(request, exc.status, message, exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return await _refused(request, Refused(404, Message(N_("There is no such page here."))))
    if exc.status_code == 405:
        text = N_("This address does not take a {method} request.")
        return await _refused(request, Refused(405, Message(text, {"method": request.method})))
    return await _refused(request, Refused(exc.status_code, Message(str(exc.detail))))


async def _internal_error(request: Request, exc: Exception) -> Response:
    log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc)
    text = N_("Something went wrong in graders (a bug, now in the server's log): try again.")
    return await _refused(request, Refused(500, Message(text)))


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS`` to every response that does not set its own."""

    def __init__(self, app: ASGIApp, frames: Callable[[], str] = lambda: "'none'") -> None:
        self.app, self.frames = app, frames

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: ASGIMessage) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                frames = self.frames()
                extra = [
                    (name.encode(), value.replace("{frames}", frames).encode())
                    for name, value in SECURITY_HEADERS.items()
                    if name.encode() not in names
                ]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)
