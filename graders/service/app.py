"""The ASGI application of ``graders serve``: the API, the pages, and the grading behind them.

    service = Service(session, db_url, workers=2)      # or cluster="local:2"
    app = create_app(service)          # Starlette; ``graders serve`` runs it under uvicorn

``Service`` (``state``) holds what every request shares: the course, the gradebook, the queue of
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
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as ASGIMessage

from ..i18n import N_
from .bodies import BodyLimit
from .gate import FormGate
from .redirects import OwnRedirects
from .refusals import Refusal, Refused
from .state import Service, service_of
from .uploads import upload_limit

log = logging.getLogger("graders.service")
API = "/api/"
SECURITY_HEADERS = {
    # Pages load their style and script from the service only; only the LMSs registered for
    # LTI may frame them (``{frames}``: 'none' without one).
    "content-security-policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors {frames}; form-action 'self'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    # Pages and answers hold grades, feedback, tokens' forms: no cache keeps them (a shared
    # computer's browser, a proxy). What may be kept says so itself (``/lti/jwks``).
    "cache-control": "no-store",
}
# The style and script: the same for everyone, kept as a browser likes.
PUBLIC = ("/static/",)


def create_app(service: Service) -> Starlette:
    """The application: the API's routes, the pages', and the grader's start and stop."""
    from . import api, desk, pages, requests
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

    def own() -> tuple[str, ...]:
        return (service.base_url,) if service.base_url else ()

    app = Starlette(
        routes=[
            *api.routes(),
            *requests.routes(),
            *pages.routes(),
            *desk.routes(),
            *launch.routes(),
        ],
        lifespan=lifespan,
        exception_handlers={
            pages.SignIn: pages.to_sign_in,
            Refused: _refused,
            HTTPException: _http_error,
            ClientDisconnect: _client_gone,
            Exception: _internal_error,
        },
        middleware=[
            Middleware(SecurityHeaders, frames=service.lti.frame_ancestors),
            # Every redirect, on every route and Starlette's own: never to the request's Host.
            Middleware(OwnRedirects, origins=own),
            # Every request's body, on every route, now and later: read up to its bound.
            Middleware(
                BodyLimit, refuse=_refused, upload_bytes=lambda: upload_limit(service.max_bytes)
            ),
            # Every state-changing request, on every route, now and later: from our pages.
            Middleware(FormGate, refuse=_refused, exemptions=launch.EXEMPTIONS, origins=own),
        ],
    )
    app.state.service = service
    return app


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
        return await _refused(request, Refused(404, Refusal(N_("There is no such page here."))))
    if exc.status_code == 405:
        text = N_("This address does not take a {method} request.")
        return await _refused(request, Refused(405, Refusal(text, {"method": request.method})))
    return await _refused(request, Refused(exc.status_code, Refusal(str(exc.detail))))


async def _client_gone(request: Request, exc: Exception) -> Response:
    """The client went away before its request was read whole (a slow upload cut off):
    nothing of it was stored and nobody waits for the answer. Every route reads its request
    through Starlette's, so this is said here once, as what happened, not as a bug."""
    log.info("the client went away during %s %s", request.method, request.url.path)
    return Response(status_code=400)


async def _internal_error(request: Request, exc: Exception) -> Response:
    log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc)
    text = N_("Something went wrong in graders (a bug, now in the server's log): try again.")
    return await _refused(request, Refused(500, Refusal(text)))


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS`` to every response that does not set its own, on every route,
    a route added later included (``Cache-Control`` not under ``PUBLIC``)."""

    def __init__(self, app: ASGIApp, frames: Callable[[], str] = lambda: "'none'") -> None:
        self.app, self.frames = app, frames

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        public = str(scope.get("path", "")).startswith(PUBLIC)

        async def with_headers(message: ASGIMessage) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                frames = self.frames()
                extra = [
                    (name.encode(), value.replace("{frames}", frames).encode())
                    for name, value in SECURITY_HEADERS.items()
                    if name.encode() not in names and not (public and name == "cache-control")
                ]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)
