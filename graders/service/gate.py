"""The one gate every state-changing request passes: it comes from the service's own pages.

    app = Starlette(..., middleware=[Middleware(FormGate, refuse=..., cross_site=CROSS_SITE)])

A browser sends a site's cookies with a form another site posts to it, so a request that
changes something (a ``POST``, ``PUT``, ``PATCH`` or ``DELETE``: sign-in, sign-out, the
language, an upload, an LTI hand-off, an instructor's action, and any route added later)
is let through only when

- it is under ``/api/`` and carries ``Authorization: Bearer`` (the API and ``graders
  submit``, known by that token alone: a browser never adds that header to another site's
  form; under ``/api/`` nothing else is taken: 401; elsewhere a Bearer header exempts
  nothing, so a page's form, sign-out included, needs its form token whatever headers come
  with it), or its path is one a protocol posts from another site by design
  (``Exemptions.cross_site``: an LMS's OIDC login and launch, which carry their own proof:
  the signed id_token, the state and the nonce); else
- the browser says it comes from this origin (``Sec-Fetch-Site: same-origin``, or an
  ``Origin`` that is the service's: another site's page is refused even with a token); and
- its form carries the form token (``csrf``) of the browser's session or, before sign-in,
  of its pre-session cookie (``FORM_COOKIE``, set by the first page shown): another site
  can read neither, so it cannot sign a learner in as someone else (login CSRF), nor post
  in their name. A page writes its forms with the token first, so the gate reads it from
  the first part of a multipart upload without reading the notebook behind it (what it
  read is handed on to the route unchanged), and from a small urlencoded form whole.
  ``Exemptions.own_token`` paths (the deep-linking picker, framed by the LMS where cookies may be
  blocked) carry a signed ticket their route checks instead; their origin is still checked.

This is middleware, not a check in each route, so that a route added later is covered
without anyone remembering to (``tests/service/test_gate.py`` adds one and finds it so).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..i18n import N_
from ..outbound import origin
from .identity import SESSION_COOKIE, says_bearer
from .refusals import Refusal, Refused
from .state import BEARER_CHALLENGE, BEARER_NEEDED

API = "/api/"  # scripts with a Bearer token: no form, no cookie, changes anything there
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
FORM_COOKIE = "graders_form"  # a browser's form key before it signs in (login CSRF)
FIELD = "csrf"
FORM_BYTES = 64 * 1024  # an urlencoded form of the pages is a few hundred bytes
FIRST_PART_BYTES = 8 * 1024  # where a multipart form's token must have been read by

Refuse = Callable[[Request, Refused], Awaitable[Response]]


def form_token(key: str) -> str:
    """The value a page's form sends back for the browser whose session (or pre-session
    cookie) is ``key``: only a page the service wrote for that browser knows it."""
    return hmac.new(key.encode(), b"graders form", hashlib.sha256).hexdigest()


def new_form_key() -> str:
    """A pre-session cookie's value: 256 random bits."""
    return secrets.token_urlsafe(32)


def form_key(cookies: Mapping[str, str]) -> str:
    """The key a page signs its forms with: the session's, else the pre-session cookie's
    (empty when the browser has neither yet: the page sets ``FORM_COOKIE``)."""
    return cookies.get(SESSION_COOKIE) or cookies.get(FORM_COOKIE) or ""


@dataclass(frozen=True)
class Exemptions:
    """The paths that do not carry a form token, each with why.

    ``cross_site``: posted from another site by a protocol, proven by what they carry.
    ``own_token``: posted from the service's page with a signed token of their own."""

    cross_site: Mapping[str, str] = field(default_factory=dict)
    own_token: Mapping[str, str] = field(default_factory=dict)


class FormGate:
    """ASGI middleware: refuses a state-changing request that is not shown to come from the
    service's own page (403, saying why, in the reader's language)."""

    def __init__(
        self,
        app: ASGIApp,
        refuse: Refuse,
        exemptions: Exemptions = Exemptions(),
        origins: Callable[[], tuple[str, ...]] = tuple,
    ) -> None:
        self.app, self.refuse, self.exemptions, self.origins = app, refuse, exemptions, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if request.url.path.startswith(API) and not says_bearer(request):
            refused = Refused(401, Refusal(BEARER_NEEDED), headers=BEARER_CHALLENGE)
            await (await self.refuse(request, refused))(scope, receive, send)
            return
        problem, replay = await self._judge(request, receive)
        if problem is None:
            await self.app(scope, replay, send)
            return
        response = await self.refuse(request, Refused(403, problem, reason="form"))
        await response(scope, replay, send)

    async def _judge(self, request: Request, receive: Receive) -> tuple[Refusal | None, Receive]:
        path = request.url.path
        # The API identifies by its token alone (``identify``): a browser never adds that
        # header to another site's form. A page's form needs its form token whatever else
        # comes with it: a made-up Bearer header beside a browser's cookie proves nothing.
        if path in self.exemptions.cross_site or path.startswith(API):
            return None, receive
        problem = self._origin_problem(request)
        if problem is not None or path in self.exemptions.own_token:
            return problem, receive
        key = form_key(request.cookies)
        sent, replay = await _token_sent(request, receive)
        # As bytes: a token sent with a character outside ASCII is wrong, not an error.
        expected = form_token(key).encode()
        if not key or sent is None or not hmac.compare_digest(sent.encode(), expected):
            return Refusal(EXPIRED), replay
        return None, replay

    def _origin_problem(self, request: Request) -> Refusal | None:
        site = request.headers.get("sec-fetch-site")
        if site is not None:
            return None if site in ("same-origin", "none") else Refusal(ELSEWHERE)
        sent = request.headers.get("origin")
        if sent is None:  # not a browser that says (a script): the token decides
            return None
        own = {origin(str(request.base_url)), *map(origin, self.origins())}
        return None if sent.lower() in own else Refusal(ELSEWHERE)


EXPIRED = N_("This form has expired: open the page again and send it from there.")
ELSEWHERE = N_(
    "This form was sent from another site, not from this course's pages: open the page "
    "here and send it from there."
)


async def _token_sent(request: Request, receive: Receive) -> tuple[str | None, Receive]:
    """The form token the body carries, and a ``receive`` that hands the route the whole
    body still (what was read first, then the rest)."""
    kind, options = parse_options_header(request.headers.get("content-type", ""))
    if kind == b"application/x-www-form-urlencoded":
        body, replay = await _read(receive, FORM_BYTES, lambda _chunks: False)
        fields = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        return fields.get(FIELD), replay
    if kind == b"multipart/form-data" and options.get(b"boundary"):
        first = _FirstPart(options[b"boundary"])
        _, replay = await _read(receive, FIRST_PART_BYTES, first.feed)
        return first.token(), replay
    return None, receive


async def _read(
    receive: Receive, limit: int, enough: Callable[[bytes], bool]
) -> tuple[bytes, Receive]:
    """Read the body until ``enough`` of it (or all, or ``limit`` bytes) is in; the bytes
    read, and a ``receive`` that gives them again before the rest."""
    read: list[bytes] = []
    more, seen = True, 0
    while more and seen <= limit:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(read), _then(read, False, message, receive)
        chunk = message.get("body", b"")
        read.append(chunk)
        seen += len(chunk)
        more = message.get("more_body", False)
        if enough(chunk):
            break
    return b"".join(read), _then(read, more, None, receive)


def _then(read: list[bytes], more: bool, pending: Message | None, receive: Receive) -> Receive:
    given = False

    async def replay() -> Message:
        nonlocal given, pending
        if not given:
            given = True
            return {"type": "http.request", "body": b"".join(read), "more_body": more}
        if pending is not None:
            message, pending = pending, None
            return message
        return await receive()

    return replay


class _FirstPart:
    """The name and value of a multipart body's first part, read as the bytes come."""

    def __init__(self, boundary: bytes) -> None:
        self.name: bytes | None = None
        self.value = bytearray()
        self.done = False
        self._header = (bytearray(), bytearray())
        self._parser = MultipartParser(
            boundary,
            {
                "on_header_field": lambda d, s, e: self._header[0].extend(d[s:e]),
                "on_header_value": lambda d, s, e: self._header[1].extend(d[s:e]),
                "on_header_end": self._header_end,
                "on_part_data": self._data,
                "on_part_end": self._end,
            },
        )

    def feed(self, chunk: bytes) -> bool:
        if not self.done:
            try:
                self._parser.write(chunk)
            except Exception:  # a malformed body has no token: the route says what is wrong
                self.done = True
        return self.done

    def token(self) -> str | None:
        if self.name != FIELD.encode() or not self.done or len(self.value) > 256:
            return None
        return self.value.decode("ascii", "replace")

    def _header_end(self) -> None:
        name, value = (bytes(part) for part in self._header)
        if name.lower() == b"content-disposition" and not self.done:
            self.name = parse_options_header(value)[1].get(b"name")
        for part in self._header:
            part.clear()

    def _data(self, data: bytes, start: int, end: int) -> None:
        if not self.done and len(self.value) <= 256:
            self.value.extend(data[start:end])

    def _end(self) -> None:
        self.done = True
