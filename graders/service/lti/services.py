"""Calls to a platform's services (AGS, NRPS): an access token first, then each call with
its own media type, retried with backoff when the platform is busy or failing.

    calls = ServiceCalls(platform, keys)
    answer = calls.get(url, AGS_SCOPES, accept=LINE_ITEMS)          # an httpx.Response
    calls.post(url, SCORE_SCOPES, body, content_type=SCORE)
    for answer in pages(calls, url, AGS_SCOPES, accept=LINE_ITEMS, limit=50):  # Link: next

The token comes from the platform's token endpoint by OAuth 2 client credentials with a
JWT assertion signed by the tool's key (LTI Security Framework, section 4.1); it is kept
until a minute before it expires. A 429 or a 5xx answer, or a connection that fails, is
tried again (``tenacity``: exponential backoff with jitter, or the ``Retry-After`` the
platform asked for); after ``ATTEMPTS`` tries, or on any other error, ``ServiceError``.

Every call goes through ``graders.outbound`` (as ``graders submit``'s do): https except to
this machine, a total deadline per call (``HTTP_TIMEOUT_S``), an answer's size capped
(``ANSWER_BYTES``), the access token never sent on to another origin by a redirect. Its
answer is handed on as an ``httpx.Response`` (``json()``, ``links``, ``text``).

A paged answer (RFC 8288's ``Link: <...>; rel="next"``, as AGS and NRPS page) is read page
by page, at most ``limit`` pages, and only on the origin of its first page: the access
token goes with every call, so a next link elsewhere is not followed (``Unfollowed``).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode, urljoin

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

from ...outbound import Limits, OutboundError, fetch, origin
from .keys import ToolKeys
from .platforms import ANSWER_BYTES, HTTP_TIMEOUT_S, Platform

ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ATTEMPTS = 5
BACKOFF_S = (0.5, 8.0)  # first wait, longest wait
MAX_RETRY_AFTER_S = 30.0  # a platform asking for more is tried again at the next round


class ServiceError(Exception):
    """A call to the platform failed for good (for now): what it answered, in words."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Busy(ServiceError):
    """A 429 or 5xx answer, or no answer: worth trying again."""

    def __init__(self, message: str, status: int | None, retry_after: float | None) -> None:
        super().__init__(message, status)
        self.retry_after = retry_after


class Unfollowed(ServiceError):
    """A paged answer that goes on where it is not followed: another origin, or past the
    page bound. What was read is not the whole list."""


class ServiceCalls:
    """The service calls of one platform, with their access tokens."""

    def __init__(self, platform: Platform, keys: ToolKeys) -> None:
        self.platform, self.keys = platform, keys
        self._tokens: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def get(
        self, url: str, scopes: tuple[str, ...], *, accept: str, **params: str
    ) -> httpx.Response:
        return self.call("GET", url, scopes, headers={"Accept": accept}, params=params or None)

    def post(
        self,
        url: str,
        scopes: tuple[str, ...],
        body: dict[str, Any],
        *,
        content_type: str,
        accept: str | None = None,
    ) -> httpx.Response:
        headers = {"Content-Type": content_type} | ({"Accept": accept} if accept else {})
        return self.call("POST", url, scopes, headers=headers, json=body)

    def call(
        self, method: str, url: str, scopes: tuple[str, ...], **options: Any
    ) -> httpx.Response:
        """``method url`` with a token for ``scopes``, retried while the platform is busy."""
        for attempt in _retrying():
            with attempt:
                return self._once(method, url, scopes, **options)
        raise AssertionError("unreachable: tenacity re-raises the last error")

    def _once(
        self, method: str, url: str, scopes: tuple[str, ...], **options: Any
    ) -> httpx.Response:
        headers = dict(options.pop("headers", {}))
        headers["Authorization"] = f"Bearer {self.token(scopes)}"
        json_body = options.pop("json", None)
        if json_body is not None:
            import json

            options["content"] = json.dumps(json_body).encode()
        params = options.pop("params", None)
        if params:
            url = str(httpx.URL(url, params=params))
        try:
            answer = request(method, url, headers, options.pop("content", None))
        except OutboundError as exc:
            raise Busy(f"{method} {url}: {exc}", None, None) from exc
        if answer.status_code == 401:
            self.forget(scopes)  # a token the platform revoked: a new one next try
            raise Busy(f"{method} {url}: 401 {answer.text[:200]}", 401, None)
        _check(answer, f"{method} {url}")
        return answer

    def token(self, scopes: tuple[str, ...]) -> str:
        """An access token for ``scopes`` (kept until a minute before it expires)."""
        key = " ".join(sorted(scopes))
        with self._lock:
            found = self._tokens.get(key)
            if found is not None and found[0] > time.monotonic():
                return found[1]
        answer = self._token_request(key)
        data = answer.json()
        token = data.get("access_token")
        if not isinstance(token, str):
            raise ServiceError(f"the token endpoint answered no access_token: {answer.text[:200]}")
        lasts = float(data.get("expires_in", 3600))
        with self._lock:
            self._tokens[key] = (time.monotonic() + max(0.0, lasts - 60), token)
        return token

    def forget(self, scopes: tuple[str, ...]) -> None:
        with self._lock:
            self._tokens.pop(" ".join(sorted(scopes)), None)

    def _token_request(self, scope: str) -> httpx.Response:
        form = {
            "grant_type": "client_credentials",
            "client_assertion_type": ASSERTION,
            "client_assertion": self.assertion(),
            "scope": scope,
        }
        headers = {
            "Accept": "application/json",
            "Content-Type": "application/x-www-form-urlencoded",
        }
        try:
            answer = request("POST", self.platform.token_url, headers, urlencode(form).encode())
        except OutboundError as exc:
            raise Busy(f"token endpoint: {exc}", None, None) from exc
        _check(answer, "token endpoint")
        return answer

    def assertion(self) -> str:
        """The tool's signed claim to be the platform's client (five minutes, used once)."""
        now = int(time.time())
        claims = {
            "iss": self.platform.client_id,
            "sub": self.platform.client_id,
            "aud": self.platform.token_url,
            "iat": now,
            "exp": now + 300,
            "jti": secrets.token_urlsafe(16),
        }
        return self.keys.sign(claims)


def pages(
    calls: ServiceCalls,
    url: str,
    scopes: tuple[str, ...],
    *,
    accept: str,
    limit: int,
    **params: str,
) -> Iterator[httpx.Response]:
    """Each page of the list at ``url`` (``params``: the first page's query; the next links
    carry their own), following ``rel="next"`` on ``url``'s origin for at most ``limit``
    pages; ``Unfollowed`` when the list goes on elsewhere or past ``limit``."""
    home = origin(url).lower()
    next_url = url
    for page in range(limit):
        answer = calls.get(next_url, scopes, accept=accept, **(params if page == 0 else {}))
        yield answer
        link = answer.links.get("next", {}).get("url")
        if not link:
            return
        next_url = urljoin(str(answer.url), link)  # a relative link: from the page it is on
        if origin(next_url).lower() != home:
            raise Unfollowed(
                f"the list at {url} goes on at another origin ({origin(next_url)}): not "
                "followed (the access token would go with it)"
            )
    raise Unfollowed(f"the list at {url} goes on past {limit} pages: not followed further")


def request(method: str, url: str, headers: dict[str, str], body: bytes | None) -> httpx.Response:
    """``method url`` by graders' one set of outbound rules, as an ``httpx.Response``."""
    answer = fetch(
        method,
        url,
        headers=headers,
        body=body,
        limits=Limits(deadline_s=HTTP_TIMEOUT_S, max_bytes=ANSWER_BYTES),
    )
    return httpx.Response(
        answer.status,
        headers=list(answer.headers),
        content=answer.body,
        request=httpx.Request(method, answer.url),
    )


def _check(answer: httpx.Response, what: str) -> None:
    if answer.status_code == 429 or answer.status_code >= 500:
        raise Busy(
            f"{what}: {answer.status_code} {answer.text[:200]}",
            answer.status_code,
            _retry_after(answer.headers.get("retry-after")),
        )
    if answer.status_code >= 400:
        raise ServiceError(f"{what}: {answer.status_code} {answer.text[:200]}", answer.status_code)


def _retry_after(value: str | None) -> float | None:
    try:
        return min(MAX_RETRY_AFTER_S, max(0.0, float(value))) if value else None
    except ValueError:
        return None  # an HTTP date: the backoff's own wait will do


def _retrying() -> Retrying:
    backoff = wait_exponential_jitter(initial=BACKOFF_S[0], max=BACKOFF_S[1])

    def wait(state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        asked = error.retry_after if isinstance(error, Busy) else None
        return asked if asked is not None else float(backoff(state))

    return Retrying(
        stop=stop_after_attempt(ATTEMPTS),
        wait=wait,
        retry=retry_if_exception(lambda e: isinstance(e, Busy)),
        reraise=True,
    )
