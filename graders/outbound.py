"""Every request graders makes to another server, under one set of rules.

    answer = fetch("GET", url, headers={"Authorization": "Bearer ..."},
                   limits=Limits(deadline_s=10, max_bytes=1 << 20))
    answer.status, answer.header("retry-after"), answer.body, answer.json()

The learner's ``graders submit`` (``notebook.service_client``) and the service's calls to an
LMS (its keys, access tokens, grades and rosters: ``service.lti``) both go through
``fetch``, so a rule written here holds for every call site, including the next one:

- **https**, except to this machine (loopback): a token sent over plain ``http://`` to
  another host can be read on the way (``OutboundError`` naming the URL).
- **A total deadline per call**, not per read: every read of the socket is given what is
  left of ``Limits.deadline_s``, so a server that sends a byte every few seconds is cut off
  when the call's time is up, however many bytes it trickled.
- **A size cap**: an answer larger than ``Limits.max_bytes`` is refused once that many
  bytes were read (or at once, by its ``Content-Length``); memory stays bounded.
- **Credentials stay on their origin**: a redirect within the origin is followed with the
  request's headers (at most ``MAX_REDIRECTS``); to another origin, without the headers
  named in ``credentials`` (``Authorization``, ``Cookie``), and never with the request's
  body (a 307 or 308 that would re-send it elsewhere, the notebook of ``graders submit`` or
  the LMS token request's signed assertion, is refused); never from https to http.

Only the standard library (``http.client``): a learner's install has nothing more, and the
service's calls are small JSON documents that need no more.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import threading
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from .json_text import read_json, whole_number

MAX_REDIRECTS = 5
CHUNK = 64 * 1024
CREDENTIALS = ("authorization", "cookie")
TOO_SLOW = "no complete answer in the time the call has"


class OutboundError(Exception):
    """No usable answer: one sentence naming the URL (unreachable, refused by a rule, too
    slow, too large)."""


@dataclass(frozen=True)
class Limits:
    """What one call may take: seconds in all, and bytes of answer."""

    deadline_s: float
    max_bytes: int


@dataclass(frozen=True)
class Answer:
    """An HTTP answer read whole (within the limits): its status, headers and body."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    url: str  # where it came from, after the redirects followed

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((v for k, v in reversed(self.headers) if k.lower() == wanted), None)

    def json(self) -> Any:
        """The body's JSON value (None when empty); ``ValueError`` when it is not JSON."""
        return read_json(self.body) if self.body else None


def origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, lower case: what a credential belongs to."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def loopback(host: str) -> bool:
    """Whether ``host`` is this machine (``localhost``, 127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def checked_url(url: str) -> str:
    """``url`` when graders may send a request there; ``OutboundError`` saying why not."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OutboundError(f"{url} is not an http:// or https:// address")
    if parts.scheme == "http" and not loopback(parts.hostname):
        raise OutboundError(
            f"{url}: refused: plain http:// to another machine would send the request, and its "
            "token, where anyone on the way can read them; use its https:// address"
        )
    return url


def fetch(
    method: str,
    url: str,
    *,
    limits: Limits,
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    credentials: Collection[str] = CREDENTIALS,
) -> Answer:
    """``method url``, by the module's rules; the answer (any status), or ``OutboundError``."""
    deadline = time.monotonic() + limits.deadline_s
    sent = dict(headers or {})
    home = origin(checked_url(url))
    for _ in range(MAX_REDIRECTS + 1):
        answer = _once(method, url, sent, body, limits, deadline)
        location = answer.header("location")
        if answer.status not in (301, 302, 303, 307, 308) or not location:
            return answer
        target = checked_url(urljoin(url, location))
        if urlsplit(url).scheme == "https" and urlsplit(target).scheme != "https":
            raise OutboundError(f"{url} redirected to {target}: not followed (https to http)")
        if answer.status == 303 or (answer.status in (301, 302) and method == "POST"):
            method, body = "GET", None
            sent = {k: v for k, v in sent.items() if k.lower() != "content-type"}
        if origin(target) != home:  # the credentials belong to the origin they were sent to
            if body is not None:  # so does a body: a notebook, a signed client assertion
                raise OutboundError(
                    f"{url} redirected to {target}, another origin, with the request's body: "
                    "not followed (the body is for the address it was sent to only)"
                )
            sent = {k: v for k, v in sent.items() if k.lower() not in credentials}
        url = target
    raise OutboundError(f"{url}: more than {MAX_REDIRECTS} redirects: not followed further")


def _once(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes | None,
    limits: Limits,
    deadline: float,
) -> Answer:
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = kind(parts.netloc, timeout=_left(url, deadline))
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    # The call's deadline, whatever is being read when it comes (the status line, a header,
    # a chunk's size, the body): a timeout per read is met by a server that sends a byte
    # just in time, forever. At the deadline the socket is shut, and the read under way ends.
    expired = threading.Event()

    def cut() -> None:
        expired.set()
        if connection.sock is not None:
            with contextlib.suppress(OSError):
                connection.sock.shutdown(socket.SHUT_RDWR)

    watchdog = threading.Timer(_left(url, deadline), cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.request(method, target, body=body, headers=dict(headers))
        sock = connection.sock  # the response reads it, also once the connection let it go
        _give(sock, url, deadline)
        response = connection.getresponse()
        length = whole_number(response.getheader("content-length"))
        if length is not None and length > limits.max_bytes:
            raise _too_large(url, limits)
        read = bytearray()
        while True:
            _give(sock, url, deadline)
            chunk = response.read1(CHUNK)
            if not chunk:
                break
            read += chunk
            if len(read) > limits.max_bytes:
                raise _too_large(url, limits)
        if expired.is_set():  # the shut socket reads as an end: the answer was cut short
            raise OutboundError(f"{url}: {TOO_SLOW}")
        return Answer(response.status, tuple(response.getheaders()), bytes(read), url)
    except TimeoutError:
        raise OutboundError(f"{url}: {TOO_SLOW}") from None
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set():
            raise OutboundError(f"{url}: {TOO_SLOW}") from None
        raise OutboundError(f"{url}: {exc or type(exc).__name__}") from None
    finally:
        watchdog.cancel()
        connection.close()


def _left(url: str, deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise OutboundError(f"{url}: {TOO_SLOW}")
    return left


def _give(sock: socket.socket | None, url: str, deadline: float) -> None:
    """The next read of the socket may take only what is left of the call's time."""
    left = _left(url, deadline)
    if sock is not None:
        sock.settimeout(left)


def _too_large(url: str, limits: Limits) -> OutboundError:
    return OutboundError(f"{url}: the answer is larger than {limits.max_bytes} bytes: not read")
