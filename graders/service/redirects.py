"""The one place every redirect of the service passes: its ``Location`` never names the
``Host`` the request came with.

    app = Starlette(..., middleware=[Middleware(OwnRedirects, origins=own), ...])

A request chooses its ``Host`` header: an address built from it (Starlette's slash
redirect, ``/assignments/`` to ``http://{Host}/assignments``; ``request.url_for``; any route
added later that builds one) sends the browser, or a cache that keeps the answer for
everyone, to whatever site the request named: an open redirect, a poisoned cache. So every
response's ``Location`` passes here: one of the service's configured origin (``--base-url``)
is kept, one of the request's own ``Host`` is made relative (the browser then stays on the
address it asked, whatever the header said), and one of another site is kept, for it was
not built from the request (the LMS's authorization endpoint, a platform's own URL). A
relative one that a browser would read as another site's (``//elsewhere``, ``/\\elsewhere``)
is made a path of this one.

This is middleware, not a rule in each route, so that a route added later, and Starlette's
own redirects, are covered without anyone remembering to (``tests/service/test_gate.py``
adds one and finds it so).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..outbound import origin


class OwnRedirects:
    """ASGI middleware: rewrites a ``Location`` built from the request's ``Host`` to a path."""

    def __init__(self, app: ASGIApp, origins: Callable[[], tuple[str, ...]] = tuple) -> None:
        self.app, self.origins = app, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = Headers(scope=scope).get("host", "").lower()

        async def located(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                sent = headers.get("location")
                if sent is not None:
                    headers["location"] = own_location(sent, host, self.origins())
            await send(message)

        await self.app(scope, receive, located)


def own_location(location: str, host: str, configured: tuple[str, ...] = ()) -> str:
    """``location`` as the service may send it to a request that said ``Host: host``."""
    parts = urlsplit(location)
    if parts.netloc:
        if origin(location) in {origin(o) for o in configured}:
            return location
        if parts.netloc.lower() != host:
            return location  # another site's own address, not built from this request
    elif not parts.scheme and not parts.path.startswith(("/", "\\")):
        return location  # relative to the page asked (``?page=2``): this service's
    # A path of this service: one slash first, so no browser reads another site's in it.
    path = "/" + parts.path.replace("\\", "/").lstrip("/")
    return urlunsplit(("", "", path, parts.query, parts.fragment))
