"""The learner's side of ``graders serve``'s API: hand a notebook in, ask for its grade.

    client = ServiceClient("https://grading.example.edu", token, language="zh")
    sent = client.upload("ps1", "ps1.ipynb", data)         # the 202's submission id
    found = client.submission(sent, wait_s=20)             # the API's JSON of it

Every request goes through ``graders.outbound`` (the standard library's ``http.client``, as
the service's calls to an LMS do): https except to this machine, a total deadline per call,
an answer's size capped, and the token never sent on to another origin by a redirect. A
learner's install is graders' own dependencies, what ``graders check`` needs, and no more.
Every answer that is not a success is raised as ``Answered`` (the status, the service's own
sentence in the reader's language, its ``reason`` and ``Retry-After``) or, when no answer
came at all, ``Unreachable``; ``submit`` turns them into one sentence for the learner.
"""

from __future__ import annotations

import secrets
import urllib.parse
from collections.abc import Mapping
from typing import Any

from .. import __version__
from ..json_text import read_json, whole_number
from ..outbound import Answer, Limits, OutboundError, checked_url, fetch

MULTIPART_FIELD = "notebook"  # the form field the service reads (service.uploads.FIELD)
CONNECT_TIMEOUT_S = 30.0  # what a call may take beyond the wait it asks for
UPLOAD_S = 300.0  # a notebook of the size limit, on a slow line
ANSWER_BYTES = 8 * 1024 * 1024  # the service's JSON of one submission is kilobytes


class Unreachable(Exception):
    """No HTTP answer came: the address is wrong, the network is down, or it timed out."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Answered(Exception):
    """The service answered, but not with what was asked for."""

    def __init__(
        self, status: int, message: str, reason: str | None = None, retry_after: int | None = None
    ) -> None:
        super().__init__(status, message)
        self.status = status
        self.message = message  # the service's sentence, in the language asked for, or ""
        self.reason = reason  # the API's word for it: a 429's attempt-limit or too-soon
        self.retry_after = retry_after  # seconds, from Retry-After


def service_url(text: str) -> str:
    """``text`` as the base URL of a service (no trailing slash); ``ValueError`` when it is
    not an http(s) URL with a host."""
    parsed = urllib.parse.urlsplit(text.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"{text!r} is not an http:// or https:// address")
    try:
        checked_url(text.strip())
    except OutboundError as exc:
        raise ValueError(str(exc)) from None
    if parsed.query or parsed.fragment:
        raise ValueError(f"{text!r}: an address of a service has no query or fragment")
    return urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, parsed.path.rstrip("/"), "", ""))


class ServiceClient:
    """Requests to one service as one learner (their token), in one language."""

    def __init__(self, url: str, token: str, language: str) -> None:
        self.url, self.token, self.language = service_url(url), token, language

    def upload(self, assignment: str, filename: str, data: bytes) -> int:
        """POST the notebook ``data``; the id of the submission the service accepted."""
        boundary = f"graders-{secrets.token_hex(16)}"
        body = _multipart(boundary, filename, data)
        path = f"/api/assignments/{urllib.parse.quote(assignment, safe='')}/submissions"
        kind = f"multipart/form-data; boundary={boundary}"
        answer = self._call("POST", path, body, {"Content-Type": kind}, UPLOAD_S)
        ident = answer.get("id")
        if not isinstance(ident, int):
            raise Unreachable(f"the service's answer has no submission id: {answer!r}")
        return ident

    def submission(
        self, ident: int, wait_s: float, within_s: float | None = None
    ) -> dict[str, Any]:
        """The submission ``ident`` as the service shows it to this learner; the service
        answers once it is graded or after ``wait_s`` seconds (its long poll). The call
        takes at most ``within_s`` seconds in all (default: the wait and a connection's)."""
        path = f"/api/submissions/{ident}?wait={wait_s:g}"
        limit = wait_s + CONNECT_TIMEOUT_S if within_s is None else within_s
        return self._call("GET", path, None, {}, limit)

    def _call(
        self,
        method: str,
        path: str,
        body: bytes | None,
        headers: Mapping[str, str],
        timeout_s: float,
    ) -> dict[str, Any]:
        sent = {
            "Authorization": f"Bearer {self.token}",
            "Accept": "application/json",
            "Accept-Language": self.language,
            "User-Agent": f"graders/{__version__}",
            **headers,
        }
        try:
            answer = fetch(
                method,
                self.url + path,
                headers=sent,
                body=body,
                limits=Limits(deadline_s=timeout_s, max_bytes=ANSWER_BYTES),
            )
        except OutboundError as exc:
            raise Unreachable(str(exc)) from None
        if answer.status >= 400:
            raise _answered(answer)
        try:
            return _json(answer.body)
        except ValueError:
            # Another site at that address, or a proxy's page (a redirect that turned the
            # upload into a GET): nothing a graders service says.
            raise Unreachable(f"{self.url}{path} did not answer as graders serve does") from None


def _answered(answer: Answer) -> Answered:
    try:
        data = _json(answer.body)
    except ValueError:
        data = {}
    message = data.get("error")
    reason = data.get("reason")
    return Answered(
        answer.status,
        message if isinstance(message, str) else "",
        reason if isinstance(reason, str) else None,
        _retry_after(answer.header("retry-after")),
    )


def _retry_after(value: str | None) -> int | None:
    return whole_number(value)  # seconds; an HTTP date or '²' is no number of them


def _json(raw: bytes) -> dict[str, Any]:
    data = read_json(raw) if raw else {}
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


def _multipart(boundary: str, filename: str, data: bytes) -> bytes:
    """A multipart/form-data body holding one file field (RFC 7578)."""
    quoted = filename.replace("\\", "\\\\").replace('"', '\\"')
    head = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="{MULTIPART_FIELD}"; filename="{quoted}"\r\n'
        "Content-Type: application/x-ipynb+json\r\n\r\n"
    )
    return head.encode("utf-8") + data + f"\r\n--{boundary}--\r\n".encode()
