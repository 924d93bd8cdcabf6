"""The form gate as a rule: every state-changing request, on every route the service has
and on one added after it was written, comes from the service's own page (its origin and
its form token) or is an API call with a Bearer token; the exemptions are named with why.
The web surface's other rules, each on every route and one added later: a body read up to
its bound, no answer kept by a cache, no redirect to the request's Host, no GET that writes
or grades."""

from __future__ import annotations

import re
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import pytest
from service_helpers import bearer, course_to_serve, in_process, tokens

from graders.service.lti.launch import EXEMPTIONS

pytest.importorskip("starlette", reason="needs graders' serve extra")

from starlette.requests import Request  # noqa: E402
from starlette.responses import PlainTextResponse, Response  # noqa: E402
from starlette.routing import Route  # noqa: E402

UNSAFE = ("POST", "PUT", "PATCH", "DELETE")
ELSEWHERE = {"Origin": "https://elsewhere.example", "Sec-Fetch-Site": "cross-site"}


def form_token(html: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert found, html
    return found[1]


async def changed(request: Request) -> Response:
    """A route added after the gate was written: it changes something, and says what it got."""
    form = await request.form()
    return PlainTextResponse(f"changed with {dict(form)}")


@pytest.fixture
def served(tmp_path: Path) -> Any:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, service):
        client.app.router.routes.append(Route("/added", changed, methods=list(UNSAFE)))
        yield client, service


def test_a_route_added_later_is_behind_the_gate(served: Any) -> None:
    client, service = served
    for method in UNSAFE:
        refused = client.request(method, "/added", data={"what": "x"})
        assert refused.status_code == 403, method
        assert "This form has expired" in refused.text
    token = form_token(client.get("/sign-in").text)  # a first page: the pre-session key
    sent = client.post("/added", data={"csrf": token, "what": "x"})
    assert sent.status_code == 200 and "'what': 'x'" in sent.text  # the body reached it whole
    multipart = client.post("/added", data={"csrf": token}, files={"f": ("a.txt", b"z" * 9000)})
    assert multipart.status_code == 200 and "'csrf'" in multipart.text
    ada = tokens(service, "ada")["ada"]  # a page's route: a token exempts it from nothing
    assert client.post("/added", data={"what": "x"}, headers=bearer(ada)).status_code == 403
    assert client.post("/added", data={"csrf": "é" * 64}).status_code == 403  # not a 500


def test_another_sites_page_is_refused_even_with_the_token(served: Any) -> None:
    client, _service = served
    token = form_token(client.get("/sign-in").text)
    for headers in (
        ELSEWHERE,
        {"Origin": "https://elsewhere.example"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "null"},
    ):
        refused = client.post("/added", data={"csrf": token}, headers=headers)
        assert refused.status_code == 403, headers
        assert "sent from another site" in refused.text
    own = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert client.post("/added", data={"csrf": token}, headers=own).status_code == 200


def test_every_state_changing_route_is_gated_or_named_as_exempt(served: Any) -> None:
    client, _service = served
    exempt = {**EXEMPTIONS.cross_site, **EXEMPTIONS.own_token}
    assert all(why for why in exempt.values())
    seen = []
    for route in client.app.routes:
        for method in sorted(set(getattr(route, "methods", None) or ()) & set(UNSAFE)):
            path = route.path.replace("{assignment}", "ps1").replace("{id:int}", "1")
            seen.append(path)
            answer = client.request(method, path, data={}, headers=ELSEWHERE)
            if route.path in EXEMPTIONS.cross_site:
                assert answer.status_code != 403 or "form" not in answer.text, path
            elif path.startswith("/api/"):  # a script's: a Bearer token or nothing
                assert answer.status_code == 401, (method, path, answer.text[:200])
            else:
                assert answer.status_code == 403, (method, path, answer.text[:200])
    assert {"/sign-in", "/sign-out", "/language", "/assignments/ps1", "/added"} <= set(seen)


def test_a_login_from_another_site_starts_no_session(served: Any) -> None:
    """Login CSRF: another site's form posting the attacker's token would sign the victim's
    browser in as the attacker, and the victim's next upload would land in that account."""
    client, service = served
    attacker = tokens(service, "mallory")["mallory"]
    forged = client.post("/sign-in", data={"token": attacker}, follow_redirects=False)
    assert forged.status_code == 403 and "graders_session" not in forged.headers.get(
        "set-cookie", ""
    )
    elsewhere = client.post(
        "/sign-in", data={"token": attacker}, headers=ELSEWHERE, follow_redirects=False
    )
    assert elsewhere.status_code == 403 and "graders_session" not in client.cookies
    token = form_token(client.get("/sign-in").text)
    own = client.post("/sign-in", data={"csrf": token, "token": attacker}, follow_redirects=False)
    assert own.status_code == 303 and "graders_session" in client.cookies


def test_an_uploads_token_is_read_without_reading_the_notebook(served: Any) -> None:
    client, _service = served
    token = form_token(client.get("/sign-in").text)
    late = client.post(  # the token after the file: the page never writes it so
        "/added", files={"f": ("a.txt", b"z" * 20000), "csrf": (None, token)}
    )
    assert late.status_code == 403


@pytest.mark.parametrize("sent", ["Bearer made-up", "Bearer "], ids=["made-up", "empty"])
def test_a_pages_form_needs_its_token_whatever_bearer_header_comes_with_it(
    served: Any, sent: str
) -> None:
    # Every form of the pages, and a route added later: a Bearer header beside the
    # browser's cookie exempts none of them (sign-out ended the cookie's session).
    from service_helpers import signed_in

    client, service = served
    signed_in(client, tokens(service, "ada")["ada"])
    pages = [
        route.path.replace("{assignment}", "ps1").replace("{id:int}", "1")
        for route in client.app.routes
        if set(getattr(route, "methods", None) or ()) & set(UNSAFE)
        and not route.path.startswith("/api/")
        and route.path not in EXEMPTIONS.cross_site
        and route.path not in EXEMPTIONS.own_token
    ]
    assert {"/sign-in", "/sign-out", "/language", "/added"} <= set(pages)
    for path in pages:
        refused = client.post(path, data={"what": "x"}, headers={"Authorization": sent})
        assert refused.status_code == 403, (path, refused.status_code)
    assert client.get("/api/assignments/ps1/submissions").status_code == 200  # still signed in


@pytest.mark.parametrize("sent", ["Bearer made-up", "Bearer "], ids=["made-up", "empty"])
def test_a_request_that_says_bearer_is_not_spoken_for_by_a_cookie(served: Any, sent: str) -> None:
    # The gate lets an API request that says Bearer pass without a form token: it is then
    # who its token says, or nobody, never the browser's session beside it.
    from service_helpers import signed_in
    from small_course import RIGHT, notebook

    client, service = served
    signed_in(client, tokens(service, "ada")["ada"])
    page = client.post(
        "/assignments/ps1",
        headers={"Authorization": sent},
        files={"notebook": ("ps1.ipynb", notebook(RIGHT), "application/x-ipynb+json")},
        follow_redirects=False,
    )
    assert page.status_code == 403, (page.status_code, page.text)  # a page's form: no token
    api = client.post(
        "/api/assignments/ps1/submissions",
        headers={"Authorization": sent},
        files={"notebook": ("ps1.ipynb", notebook(RIGHT), "application/x-ipynb+json")},
    )
    assert api.status_code == 401, api.text
    assert service.queue.attempts("ps1", "ada") == []  # nothing was handed in in her name
    assert client.get("/api/assignments/ps1/submissions").status_code == 200  # her cookie


async def read_whole(request: Request) -> Response:
    """A route added after the body bound was written: it reads whatever it is sent."""
    return PlainTextResponse(f"read {len(await request.body())} bytes")


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_every_route_reads_a_body_only_up_to_its_bound(served: Any, chunked: bool) -> None:
    # A review request's route, the sign-in form, an LMS's launch (no sign-in needed) and a
    # route added later: each answers 413 past the bound, told by Content-Length or not
    # (then counted as it is read, and the rest never read).
    from graders.service.bodies import OTHER_BYTES

    client, service = served
    client.app.router.routes.append(Route("/api/later", read_whole, methods=["POST"]))
    ada = tokens(service, "ada")["ada"]
    big = b"x" * (OTHER_BYTES + 1)

    def body() -> Any:
        for start in range(0, len(big), 65536):
            yield big[start : start + 65536]

    for path, headers in (
        ("/api/submissions/1/requests", bearer(ada) | {"Content-Type": "application/json"}),
        ("/api/later", bearer(ada)),
        ("/lti/launch", {"Content-Type": "application/x-www-form-urlencoded"}),
        ("/lti/login", {"Content-Type": "application/x-www-form-urlencoded"}),
    ):
        answer = client.post(path, content=body() if chunked else big, headers=headers)
        assert answer.status_code == 413, (path, answer.status_code, answer.text)
        assert "larger than the 256 KiB" in answer.text, answer.text
    small = client.post("/api/later", content=b"x" * 1000, headers=bearer(ada))
    assert small.text == "read 1000 bytes"  # under the bound: read as sent


async def listed(request: Request) -> Response:
    """A GET route added after the headers were written: it shows something."""
    return PlainTextResponse("grades")


def test_every_answer_but_the_static_files_and_the_keys_is_kept_by_no_cache(served: Any) -> None:
    # Pages and API answers hold grades: none is stored by a browser or a proxy, on every
    # route the app has, one added later, and its refusals; the style and the LMS's key set
    # (max-age: LMSs fetch it) may be kept.
    client, service = served
    client.app.router.routes.append(Route("/later", listed))
    prof = tokens(service, "prof", role="instructor")["prof"]
    seen = []
    for route in client.app.routes:
        if "GET" not in (getattr(route, "methods", None) or ()):
            continue
        path = route.path.replace("{assignment}", "ps1").replace("{id:int}", "1")
        seen.append(path)
        for headers in ({}, bearer(prof)):
            answer = client.get(path, headers=headers)
            kept = answer.headers.get("cache-control")
            if path == "/lti/jwks":
                assert kept is not None and "max-age" in kept, answer.headers
            else:
                assert kept == "no-store", (path, answer.status_code, kept)
    assert {"/assignments", "/instructor", "/api/submissions/1", "/later"} <= set(seen)
    assert client.get("/no-such-page").headers["cache-control"] == "no-store"
    style = client.get("/static/" + _a_static_file())
    assert style.status_code == 200 and "no-store" not in style.headers.get("cache-control", "")


def _a_static_file() -> str:
    from graders.service.pages import STATIC

    return sorted(p.name for p in Path(STATIC).iterdir() if p.is_file())[0]


async def elsewhere(request: Request) -> Response:
    """A route added after the redirect rule was written: it builds its address from the
    request, as ``url_for`` does."""
    from starlette.responses import RedirectResponse

    return RedirectResponse(str(request.url_for("later_home")), 303)


def test_no_redirect_goes_where_the_requests_host_says(served: Any) -> None:
    # Every route's slash variant (Starlette's redirect), one added later, one that builds
    # its address from the request: a foreign Host names no Location; the path stays.
    client, service = served
    client.app.router.routes.append(Route("/later-home", listed, name="later_home"))
    client.app.router.routes.append(Route("/later-away", elsewhere))
    prof = tokens(service, "prof", role="instructor")["prof"]
    foreign = {"Host": "evil.example"} | bearer(prof)
    seen = []
    for route in client.app.routes:
        methods = getattr(route, "methods", None) or ()
        if not route.path.startswith("/") or not methods:
            continue
        path = route.path.replace("{assignment}", "ps1").replace("{id:int}", "1")
        for variant in (path + "/", path + "/?next=x"):
            answer = client.get(variant, headers=foreign, follow_redirects=False)
            located = answer.headers.get("location", "")
            assert "evil.example" not in located, (variant, located)
            if answer.status_code in (307, 308) and route.path != "/":
                assert located.split("?")[0] == path, (variant, located)
                seen.append(path)
    assert {"/assignments", "/instructor", "/later-home", "/lti/jwks"} <= set(seen)
    away = client.get("/later-away", headers=foreign, follow_redirects=False)
    assert away.headers["location"] == "/later-home"
    twice = client.get("//evil.example/", headers=foreign, follow_redirects=False)
    assert not twice.headers.get("location", "/").startswith("//")


SAFE = ("GET", "HEAD")
_SERVING: ContextVar[str] = ContextVar("serving", default="")
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


class Watched:
    """The app, with each request's method and path known to what it calls, in the thread
    pool too (a context variable: Starlette's ``run_in_threadpool`` carries it there)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        serving = f"{scope.get('method', '')} {scope.get('path', '')}"
        token = _SERVING.set(serving)
        try:
            await self.app(scope, receive, send)
        finally:
            _SERVING.reset(token)


def a_get_that_writes(request: Request) -> Response:
    """A GET route added after the rule was written: it stores something (as a login
    initiation or a preview that graded did)."""
    service = request.app.state.service
    service.credentials.mint(["prefetched"], "learner")
    return PlainTextResponse("stored")


@pytest.mark.sandbox
def test_no_get_writes_to_the_gradebook_or_grades(tmp_path: Path) -> None:
    # A GET must be safe: a link prefetcher, or another site's <img> with the instructor's
    # cookie, starts nothing. Every GET route of the app (a review request and its attempt
    # there to be previewed, an instructor asking by cookie and by token, an LMS's login
    # initiation) writes no row and grades nothing; a GET route added here that writes is
    # caught.
    from service_helpers import signed_in
    from small_course import WRONG, notebook
    from sqlalchemy import event
    from starlette.testclient import TestClient

    from graders.service.gate import SAFE as GATE_SAFE
    from graders.service.lti.platforms import Platforms, Registration

    root = course_to_serve(
        tmp_path, feedback="{before_due: full, after_due: full}", requests="{per_assignment: 2}"
    )
    with in_process(root) as (client, service):
        client.app.router.routes.append(Route("/later-stores", a_get_that_writes))
        ada = tokens(service, "ada")["ada"]
        prof = tokens(service, "prof", role="instructor")["prof"]
        files = {"notebook": ("ps1.ipynb", notebook(WRONG), "application/x-ipynb+json")}
        sent = client.post("/api/assignments/ps1/submissions", files=files, headers=bearer(ada))
        attempt = sent.json()["id"]
        graded = client.get(f"/api/submissions/{attempt}?wait=30", headers=bearer(ada)).json()
        assert graded["status"] == "graded", graded
        asked = client.post(
            f"/api/submissions/{attempt}/requests",
            json={"question": "clone-basics/shares", "reason": "I think so"},
            headers=bearer(ada),
        )
        assert asked.status_code == 201 and asked.json()["id"] == 1, asked.text
        service.lti.keys.signing()  # the tool's key, made once on its first use
        lms = "https://lms.example.org"
        Platforms(service.engine, service.course.id).add(
            Registration(lms, "c-1", "d-1", f"{lms}/auth", f"{lms}/token", f"{lms}/jwks")
        )
        asked = {  # what a GET may carry: an LMS's login initiation, a frame's pass
            "/lti/login": {
                "iss": lms,
                "login_hint": "ada",
                "client_id": "c-1",
                "target_link_uri": "http://testserver/lti/launch",
            },
            "/lti/continue": {"pass": "made-up", "window": "new"},
        }

        done: list[str] = []
        site = service.grader.site
        grade = site.grade
        site.grade = lambda *a: (done.append("graded: " + _SERVING.get()), grade(*a))[1]

        def watch(_c: Any, _cur: Any, statement: str, *_rest: Any) -> None:
            serving = _SERVING.get()
            if serving.split(" ")[0] in SAFE and statement.lstrip().upper().startswith(WRITES):
                done.append(f"{serving}: {statement.split()[0:3]}")

        event.listen(service.engine, "before_cursor_execute", watch)
        browser = TestClient(Watched(client.app))  # the same service, its lifespan running
        signed_in(browser, prof)
        seen = []
        for route in client.app.routes:
            if "GET" not in (getattr(route, "methods", None) or ()):
                continue
            path = route.path.replace("{assignment}", "ps1").replace("{id:int}", str(attempt))
            seen.append(path)
            for headers in ({}, bearer(prof)):
                answer = browser.get(
                    path, params=asked.get(path), headers=headers, follow_redirects=False
                )
                assert path != "/lti/login" or answer.status_code == 302, answer.text
        browser.get("/requests/1/preview", follow_redirects=False)  # the old link's address
        event.remove(service.engine, "before_cursor_execute", watch)
    assert {"/instructor", "/lti/login", "/lti/continue", "/later-stores"} <= set(seen)
    assert set(GATE_SAFE) >= set(SAFE)
    assert done and all(d.startswith("GET /later-stores") for d in done), done
