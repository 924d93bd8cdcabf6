"""What a request's body may cost, for every route: its size, bounded while it is read.

One middleware, outside every other, counts the bytes each request's body brings as they
are received (and refuses at once a ``Content-Length`` past the bound): a notebook's upload
may bring the course's notebook limit and a form's worth more; every other request, a form,
a review request, an LMS's launch, at most ``OTHER_BYTES``. A route added later gets the
small bound unless it is an upload route (``UPLOADS``): it fails closed. Past the bound the
answer is 413, saying the limit, in the reader's language, and nothing more is read.

A route that reads JSON reads it with ``json_body``, the one reader of a request's JSON:
what is not a JSON value (malformed, not UTF-8, nested past what the parser's stack holds)
is the route's 422, never a 500 (``graders.json_text``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..i18n import N_
from ..json_text import read_json
from .gate import Refuse
from .refusals import Refusal, Refused

OTHER_BYTES = 256 * 1024  # an LMS's id_token is a few kilobytes; a form, far less
# The routes that take a notebook: the page's upload form and the API's.
UPLOADS = (re.compile(r"/assignments/[^/]+"), re.compile(r"/api/assignments/[^/]+/submissions"))
TOO_LARGE = N_("The request is larger than the {limit} this address takes.")


class BodyTooLarge(Exception):
    """The body went past its bound while it was read."""


class BodyLimit:
    """ASGI middleware: a request's body is read up to its bound (``limit_for``), no more."""

    def __init__(self, app: ASGIApp, refuse: Refuse, upload_bytes: Callable[[], int]) -> None:
        self.app, self.refuse, self.upload_bytes = app, refuse, upload_bytes

    def limit_for(self, scope: Scope) -> int:
        """The bound of this request's body."""
        path = scope.get("path", "")
        if scope.get("method") == "POST" and any(p.fullmatch(path) for p in UPLOADS):
            return self.upload_bytes()
        return OTHER_BYTES

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        length = dict(scope.get("headers", [])).get(b"content-length", b"")
        if length.isdigit() and int(length) > limit:
            await self._too_large(scope, receive, send, limit)
            return
        seen, started = [0], [False]

        async def counted() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                seen[0] += len(message.get("body", b""))
                if seen[0] > limit:
                    raise BodyTooLarge
            return message

        async def sending(message: Message) -> None:
            started[0] = started[0] or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except BodyTooLarge:
            if started[0]:
                raise
            await self._too_large(scope, receive, send, limit)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        request = Request(scope)
        shown = f"{limit // 1024} KiB" if limit < 1 << 20 else f"{limit / (1 << 20):g} MiB"
        refused = Refused(
            413, Refusal(TOO_LARGE, {"limit": shown}), headers={"Connection": "close"}
        )
        response = await self.refuse(request, refused)
        await response(scope, receive, send)


async def json_body(request: Request, unreadable: Refusal) -> Any:
    """The JSON value of ``request``'s body (read within its bound); ``Refused(422,
    unreadable)`` when the body holds none."""
    try:
        return read_json(await request.body())
    except ValueError:
        raise Refused(422, unreadable) from None
