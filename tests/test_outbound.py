"""graders' one set of outbound rules (``graders.outbound``), held against hostile servers by
every call site: the learner's ``graders submit`` client and the service's calls to an LMS
(its key set, its token endpoint, its services). A server that trickles, one that answers
without end, one that redirects a credential elsewhere, and plain http to another host."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from what_starts import starts

from graders.outbound import Limits, OutboundError, checked_url, fetch

pytest.importorskip("httpx", reason="the service's side needs graders' serve extra")


class Hostile:
    """A loopback server whose every answer is ``behaviour``; it keeps what it was sent."""

    def __init__(self, behaviour: Callable[[BaseHTTPRequestHandler], None]) -> None:
        self.seen: list[dict[str, str]] = []
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hostile.seen.append(dict(self.headers))
                behaviour(self)

            do_POST = do_PUT = do_GET

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
@starts("server")
def hostile() -> Iterator[Callable[[Callable[[BaseHTTPRequestHandler], None]], Hostile]]:
    made: list[Hostile] = []

    def make(behaviour: Callable[[BaseHTTPRequestHandler], None]) -> Hostile:
        made.append(Hostile(behaviour))
        return made[-1]

    yield make
    for server in made:
        server.close()


def trickle(handler: BaseHTTPRequestHandler) -> None:
    """Headers, then a byte every 0.2 s, without end: each read returns in time."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.end_headers()
    try:
        while True:
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.2)
    except OSError:
        return  # the client gave up: what the rule is for


def _drip(handler: BaseHTTPRequestHandler, head: bytes, byte: bytes) -> None:
    try:
        handler.wfile.write(head)
        while True:
            handler.wfile.write(byte)
            handler.wfile.flush()
            time.sleep(0.2)
    except OSError:
        return


def trickle_status(handler: BaseHTTPRequestHandler) -> None:
    """The status line, a byte every 0.2 s, without end (no header is ever read)."""
    _drip(handler, b"HTTP/1.1 200 ", b"O")


def trickle_header(handler: BaseHTTPRequestHandler) -> None:
    """A header's value, a byte every 0.2 s, without end."""
    _drip(handler, b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a")


def trickle_chunk_size(handler: BaseHTTPRequestHandler) -> None:
    """A chunked answer whose first chunk-size line never ends."""
    _drip(handler, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"0")


def endless(handler: BaseHTTPRequestHandler) -> None:
    """An answer without a length that never ends, as fast as the line allows."""
    handler.send_response(200)
    handler.end_headers()
    try:
        while True:
            handler.wfile.write(b"[" * 65536)
    except OSError:
        return


def declared_huge(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(300 * 1024 * 1024))
    handler.end_headers()


# Every place graders calls another server, as a function of that server's URL.
def _submit_poll(url: str) -> None:
    from graders.notebook.service_client import ServiceClient, Unreachable

    try:
        ServiceClient(url, "learner-token", "en").submission(1, wait_s=0, within_s=1.5)
    except Unreachable as exc:
        raise OutboundError(str(exc)) from exc


def _platform_keys(url: str) -> None:
    from graders.service.lti import platforms

    try:
        platforms.fetch_jwks(url + "/jwks")
    except platforms.PlatformKeysUnavailable as exc:
        raise OutboundError(str(exc)) from exc


def _platform_service(url: str) -> None:
    from graders.service.lti import services

    try:
        services.request("GET", url + "/lineitems", {"Authorization": "Bearer at"}, None)
    except OutboundError:
        raise


CALL_SITES = [
    pytest.param(_submit_poll, id="graders-submit"),
    pytest.param(_platform_keys, id="lms-key-set"),
    pytest.param(_platform_service, id="lms-services"),
]


@pytest.fixture
def short_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service's calls get 1.5 s here (10 s in use): the rule, not the figure, is tested."""
    from graders.service.lti import platforms, services

    monkeypatch.setattr(platforms, "HTTP_TIMEOUT_S", 1.5)
    monkeypatch.setattr(services, "HTTP_TIMEOUT_S", 1.5)
    monkeypatch.setattr(platforms, "ANSWER_BYTES", 1024 * 1024)
    monkeypatch.setattr(services, "ANSWER_BYTES", 1024 * 1024)


@pytest.mark.usefixtures("short_deadlines")
@pytest.mark.parametrize("call", CALL_SITES)
@pytest.mark.parametrize(
    "behaviour",
    [trickle, trickle_status, trickle_header, trickle_chunk_size],
    ids=["body", "status-line", "header", "chunk-size"],
)
def test_a_server_that_trickles_is_cut_off_when_the_calls_time_is_up(
    hostile: Any, call: Any, behaviour: Any
) -> None:
    # A deadline for the whole call, whatever part of the answer is dripping: a timeout
    # per read would never end, as each byte comes in time.
    server = hostile(behaviour)
    with pytest.raises(OutboundError, match="no complete answer in the time the call has"):
        call(server.url)


@pytest.mark.usefixtures("short_deadlines")
@pytest.mark.parametrize("call", CALL_SITES)
@pytest.mark.parametrize("behaviour", [endless, declared_huge], ids=["endless", "declared"])
def test_an_answer_past_the_size_cap_is_not_read(hostile: Any, call: Any, behaviour: Any) -> None:
    server = hostile(behaviour)
    with pytest.raises(OutboundError, match="the answer is larger than"):
        call(server.url)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_credential_stays_on_its_origin_when_redirected(hostile: Any, status: int) -> None:
    elsewhere = hostile(lambda h: (h.send_response(200), h.end_headers(), h.wfile.write(b"{}")))

    def away(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        handler.send_header("Location", elsewhere.url + "/taken")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    home = hostile(away)
    limits = Limits(deadline_s=10, max_bytes=1024)
    sent = {"Authorization": "Bearer secret", "Cookie": "s=1", "Accept": "application/json"}
    if status in (307, 308):  # the method and the body would go on: neither is sent there
        with pytest.raises(OutboundError, match="another origin, with the request's body"):
            fetch("POST", home.url + "/poll", headers=sent, body=b"x", limits=limits)
        assert elsewhere.seen == []
        answer = fetch("GET", home.url + "/poll", headers=sent, limits=limits)  # no body
    else:
        answer = fetch("POST", home.url + "/poll", headers=sent, body=b"x", limits=limits)
    assert answer.status == 200 and answer.url == elsewhere.url + "/taken"
    (there,) = elsewhere.seen
    assert "Authorization" not in there and "Cookie" not in there
    assert there["Accept"] == "application/json"
    assert home.seen[0]["Authorization"] == "Bearer secret"


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_body_never_goes_to_another_origin_by_a_redirect(hostile: Any, status: int) -> None:
    # Whatever the method: a PUT redirected by a 301 keeps its method and body too.
    elsewhere = hostile(_answer(200, b"{}"))
    home = hostile(_answer(status, b"", Location=elsewhere.url + "/taken"))
    limits = Limits(deadline_s=10, max_bytes=1024)
    with pytest.raises(OutboundError, match="another origin"):
        fetch("PUT", home.url, body=b"the notebook", limits=limits)
    assert elsewhere.seen == []


def test_a_redirect_within_the_origin_keeps_the_credential(hostile: Any) -> None:
    def hop(handler: BaseHTTPRequestHandler) -> None:
        if handler.path == "/start":
            handler.send_response(307)
            handler.send_header("Location", "/next")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        else:
            handler.send_response(200)
            handler.send_header("Content-Length", "2")
            handler.end_headers()
            handler.wfile.write(b"{}")

    server = hostile(hop)
    limits = Limits(deadline_s=10, max_bytes=1024)
    fetch("GET", server.url + "/start", headers={"Authorization": "Bearer t"}, limits=limits)
    assert [seen.get("Authorization") for seen in server.seen] == ["Bearer t", "Bearer t"]


@pytest.mark.parametrize(
    "url",
    ["http://grading.example.edu/api", "http://10.0.0.7:8000", "http://[2001:db8::1]/"],
)
def test_plain_http_to_another_machine_is_refused_naming_the_url(url: str) -> None:
    with pytest.raises(OutboundError, match="refused: plain http://"):
        checked_url(url)
    from graders.notebook.service_client import service_url

    with pytest.raises(ValueError, match="use its https:// address"):
        service_url(url)


@pytest.mark.parametrize(
    "url",
    ["https://grading.example.edu", "http://127.0.0.1:8000", "http://localhost", "http://[::1]:9"],
)
def test_https_and_this_machine_are_allowed(url: str) -> None:
    assert checked_url(url) == url


def test_an_https_answer_never_redirects_to_http(monkeypatch: pytest.MonkeyPatch) -> None:
    from graders import outbound

    def answered(*args: Any) -> outbound.Answer:
        return outbound.Answer(302, (("Location", "http://127.0.0.1:1/x"),), b"", args[1])

    monkeypatch.setattr(outbound, "_once", answered)
    with pytest.raises(OutboundError, match="not followed \\(https to http\\)"):
        fetch("GET", "https://grading.example.edu/x", limits=Limits(5, 100))


HTTP_CLIENTS = ("urllib.request", "http.client", "requests", "aiohttp", "urllib3")
HTTPX_CALLS = {
    "get",
    "post",
    "put",
    "patch",
    "delete",
    "request",
    "stream",
    "Client",
    "AsyncClient",
}


def test_every_request_graders_makes_goes_through_outbound() -> None:
    """A call site added later cannot use an HTTP client of its own: only ``outbound`` may."""
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "graders"
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "outbound.py" and path.parent == package:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            if any(n == c or n.startswith(c + ".") for n in names for c in HTTP_CLIENTS):
                found.append(f"{path.relative_to(package)}:{node.lineno} imports {names}")
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "httpx"
                and node.attr in HTTPX_CALLS
            ):
                found.append(f"{path.relative_to(package)}:{node.lineno} calls httpx.{node.attr}")
    assert found == []


DEEP = b"[" * 100_000 + b"]" * 100_000


def _answer(status: int, body: bytes, **headers: str) -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        if "content-length" in handler.headers:
            handler.rfile.read(int(handler.headers["content-length"]))
        handler.send_response(status)
        for name, value in {"Content-Length": str(len(body)), **headers}.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.end_headers()
        handler.wfile.write(body)

    return answer


@pytest.mark.parametrize(
    ("behaviour", "raised"),
    [
        pytest.param(_answer(202, DEEP), "Unreachable", id="a-202-nested-too-deeply"),
        pytest.param(_answer(500, b'{"error": ' + DEEP + b"}"), "Answered", id="a-deep-error"),
        pytest.param(
            _answer(429, b'{"error": "wait", "reason": "too-soon"}', Retry_After="\u00b2"),
            "Answered",
            id="retry-after-not-ascii-digits",
        ),
        pytest.param(_answer(200, b"{}", Content_Length="\u00b2"), "Unreachable", id="length-²"),
    ],
)
def test_every_answer_that_is_not_a_success_is_answered_or_unreachable(
    hostile: Any, behaviour: Any, raised: str
) -> None:
    # graders submit's promise: one sentence for the learner, never a traceback, whatever
    # the server at that address sends.
    from graders.notebook import service_client

    server = hostile(behaviour)
    client = service_client.ServiceClient(server.url, "token", "en")
    with pytest.raises((service_client.Answered, service_client.Unreachable)) as caught:
        client.upload("ps1", "ps1.ipynb", b"{}")
    assert type(caught.value).__name__ == raised
    if isinstance(caught.value, service_client.Answered):
        assert caught.value.retry_after is None


def test_every_json_from_the_network_is_read_by_one_reader() -> None:
    """A request's body and a server's answer are read by ``graders.json_text`` (a route or
    call site added later included): ``json.loads`` there misses RecursionError."""
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "graders"
    # What the tool itself wrote to the gradebook: its keys, a key set read_json read.
    own = {"service/lti/keys.py", "service/lti/platforms.py"}
    found = []
    for path in sorted(
        [
            *(package / "service").rglob("*.py"),
            package / "outbound.py",
            package / "notebook" / "service_client.py",
        ]
    ):
        name = str(path.relative_to(package))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            target = node.func.value
            if node.func.attr == "loads" and isinstance(target, ast.Name) and name not in own:
                found.append(f"{name}:{node.lineno} calls {target.id}.loads")
            if node.func.attr == "json" and isinstance(target, ast.Name) and target.id == "request":
                found.append(f"{name}:{node.lineno} calls request.json()")
    assert found == []
