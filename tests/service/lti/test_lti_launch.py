"""LTI 1.3 launches from the test LMS: the OIDC login (only to the tool's own URLs), the
id_token checked to the letter (each flaw refused with a clear message, and nothing stored),
the learner signed in with a token's rights and no more, in the launch's language, and a
frame that lost its cookie."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from joserfc.jwk import RSAKey
from lti_helpers import INSTRUCTOR_ROLE, csrf, launch, register, start, tool_and_lms
from lti_platform import LTI, Platform, User

pytestmark = pytest.mark.server  # the test LMS and the tool: uvicorn on loopback

pytest.importorskip("joserfc", reason="needs graders' serve extra")

STORED = ("lti_users", "lti_contexts", "lti_line_items", "lti_outcomes", "credentials")


def _spoiled(**claims: Any) -> Callable[[Platform], None]:
    def spoil(lms: Platform) -> None:
        lms.spoil = lambda c: c.update(claims)

    return spoil


def _expired(lms: Platform) -> None:
    now = int(time.time())
    lms.spoil = lambda c: c.update(iat=now - 4000, exp=now - 3600)


def _retargeted(where: str) -> Callable[[Platform], None]:
    """The launch's ``target_link_uri`` claim made ``where`` (``{tool}``: the tool's URL)."""

    def spoil(lms: Platform) -> None:
        target = where.format(tool=lms.tool_url)
        lms.spoil = lambda c: c.update({LTI + "target_link_uri": target})

    return spoil


def _untargeted(lms: Platform) -> None:
    lms.spoil = lambda c: c.pop(LTI + "target_link_uri")


def _foreign_key(lms: Platform) -> None:
    # Another key under the platform's own key id: the signature cannot match.
    lms.sign_with = RSAKey.generate_key(2048, parameters={"kid": lms.key.kid, "alg": "RS256"})


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        pytest.param(
            _spoiled(aud="another-tool", azp="another-tool"),
            "The LMS's message is not meant for this course (issuer or audience)",
            id="wrong-aud",
        ),
        pytest.param(
            _spoiled(iss="https://lms.example.org"),
            "The LMS's message is not meant for this course (issuer or audience)",
            id="wrong-iss",
        ),
        pytest.param(_expired, "This sign-in from your LMS has expired", id="expired"),
        pytest.param(
            _spoiled(**{LTI + "deployment_id": "deployment-9"}),
            "The LMS's deployment 'deployment-9' is not registered with this course",
            id="unknown-deployment",
        ),
        pytest.param(
            _foreign_key,
            "The LMS's message is not signed by the LMS this course knows",
            id="bad-signature",
        ),
        pytest.param(
            _spoiled(nonce="another-nonce"), "This sign-in was already used", id="wrong-nonce"
        ),
        pytest.param(
            _spoiled(**{LTI + "version": "1.1"}),
            "The LMS did not send an LTI 1.3 launch",
            id="version",
        ),
        pytest.param(
            _retargeted("https://elsewhere.example.org/lti/launch"),
            "The LMS's link (https://elsewhere.example.org/lti/launch) does not lead to this "
            "course",
            id="target-elsewhere",
        ),
        pytest.param(
            _retargeted("{tool}/assignments/ps2"),
            "The LMS's launch does not lead where its sign-in asked",
            id="target-not-the-logins",
        ),
        pytest.param(_untargeted, "The LMS did not send an LTI 1.3 launch", id="no-target"),
    ],
)
def test_a_flawed_launch_is_refused_and_stores_nothing(
    tmp_path: Path, spoil: Callable[[Platform], None], message: str
) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        browser = tool.browser()
        spoil(lms)
        action, fields = start(browser, lms, "ada")
        refused = browser.post(action, data=fields)
        assert refused.status_code == 401
        assert message in html.unescape(
            refused.text
        ) and "graders_session" not in refused.headers.get("set-cookie", "")
        assert {table: tool.count(table) for table in STORED} == dict.fromkeys(STORED, 0)


def test_a_replayed_launch_is_refused(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        browser = tool.browser()
        action, fields = start(browser, lms, "ada")
        assert browser.post(action, data=fields).status_code == 303
        stored = {table: tool.count(table) for table in STORED}
        again = tool.browser().post(action, data=fields)  # the same id_token and state
        assert again.status_code == 401 and "expired or was already used" in again.text
        # The old id_token with a new login's state: its nonce is not this login's.
        _, fresh = start(browser, lms, "ada")
        replayed = tool.browser().post(
            action, data={"id_token": fields["id_token"], "state": fresh["state"]}
        )
        assert replayed.status_code == 401 and "This sign-in was already used" in html.unescape(
            replayed.text
        )
        assert {table: tool.count(table) for table in STORED} == stored


def test_an_unknown_lms_and_an_unknown_deployment_cannot_start_a_login(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        browser = tool.browser()
        fields = lms.login_fields("ada") | {"iss": "https://lms.example.org"}
        refused = browser.post("/lti/login", data=fields)
        assert refused.status_code == 400 and "is not registered with this course" in html.unescape(
            refused.text
        )
        fields = lms.login_fields("ada") | {"lti_deployment_id": "deployment-9"}
        assert browser.get("/lti/login", params=fields).status_code == 400
        assert tool.count("lti_states") == 0


def test_a_login_initiation_stores_nothing_and_its_launch_still_signs_in(tmp_path: Path) -> None:
    # Anyone may send an LMS's login initiation (a GET naming a registered issuer): many of
    # them write no row of any table; the state is the tool's signed token, refused when
    # altered, and used once, by a launch the platform signed, which still signs in.
    from graders.gradebook.tables import Base

    with tool_and_lms(tmp_path) as (tool, lms):
        browser = tool.browser()
        tool.service.lti.keys.signing()  # the tool's key: made once, on its first use

        def rows() -> dict[str, int]:
            return {table: tool.count(table) for table in Base.metadata.tables}

        before = rows()
        for _ in range(25):
            assert browser.get("/lti/login", params=lms.login_fields("ada")).status_code == 302
            assert browser.post("/lti/login", data=lms.login_fields("ada")).status_code == 302
        assert rows() == before
        action, fields = start(browser, lms, "ada")
        altered = fields | {"state": fields["state"][:-6] + ("A" * 6)}
        refused = browser.post(action, data=altered)
        assert refused.status_code == 401, refused.text
        assert "expired or was already used" in html.unescape(refused.text)
        assert rows() == before
        signed_in = browser.post(action, data=fields)
        assert signed_in.status_code == 303 and "graders_session" in browser.cookies
        assert tool.count("lti_states") == before["lti_states"] + 1  # used: kept till it expires
        again = tool.browser().post(action, data=fields)
        assert again.status_code == 401 and "expired or was already used" in again.text


def test_a_login_for_a_target_elsewhere_is_refused_and_not_redirected_to(
    tmp_path: Path,
) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        browser = tool.browser()
        for target in (
            "https://evil.example.org/lti/launch",
            f"http://127.0.0.1.nip.io:{tool.port}/lti/launch",  # the tool's host, as a prefix
            f"http://ada@127.0.0.1:{tool.port}/lti/launch",  # a user part before the host
        ):
            fields = lms.login_fields("ada") | {"target_link_uri": target}
            refused = browser.post("/lti/login", data=fields)
            assert refused.status_code == 400 and "location" not in refused.headers
            assert (
                f"The LMS's link ({target}) does not lead to this course: ask your instructor."
                in html.unescape(refused.text)
            )
        assert tool.count("lti_states") == 0
        # The tool's own URLs are the tool's, whichever page the link opens.
        fields = lms.login_fields("ada") | {"target_link_uri": f"{tool.url}/assignments/ps1"}
        assert browser.get("/lti/login", params=fields).status_code == 302


def test_a_deep_linking_launch_must_lead_where_its_login_asked(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        ida = tool.browser()
        lms.spoil = lambda c: c.update({LTI + "target_link_uri": f"{tool.url}/lti/launch?x=1"})
        action, fields = start(ida, lms, "ida", None, deep=True)
        refused = ida.post(action, data=fields)
        assert refused.status_code == 401 and "does not lead where its sign-in asked" in (
            html.unescape(refused.text)
        )
        assert {table: tool.count(table) for table in STORED} == dict.fromkeys(STORED, 0)
        action, fields = start(ida, lms, "ida", None, deep=True)  # as the LMS sends it
        assert ida.post(action, data=fields).status_code == 200


def test_a_rotated_platform_key_is_fetched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graders.service.lti import platforms

    with tool_and_lms(tmp_path) as (tool, lms):
        launch(tool.browser(), lms, "ada")
        assert lms.jwks_fetches == 1
        launch(tool.browser(), lms, "ada")
        assert lms.jwks_fetches == 1  # cached
        lms.rotate_key()
        # Within REFETCH_S of the last fetch an unknown key id fetches nothing (a forged
        # one must not make the tool hammer the LMS): the launch is refused.
        action, fields = start(tool.browser(), lms, "ada")
        assert tool.browser().post(action, data=fields).status_code == 401
        assert lms.jwks_fetches == 1
        monkeypatch.setattr(platforms, "REFETCH_S", 0.0)  # the window has passed
        page = launch(tool.browser(), lms, "ada")
        assert "Signed in as ada" in page.text and lms.jwks_fetches == 2


def test_a_learner_has_a_learners_rights_and_an_instructor_an_instructors(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        ada = tool.browser()
        launch(ada, lms, "ada")
        assert ada.get("/instructor").status_code == 403
        grades = ada.get("/api/assignments/ps1/grades")
        assert (
            grades.status_code == 403 and "Only the course's instructors" in grades.json()["error"]
        )
        assert ada.get("/api/assignments/ps1/submissions").json() == []  # their own: none yet
        action, fields = start(ada, lms, "ada", deep=True)
        stored = {table: tool.count(table) for table in STORED}
        refused = ada.post(action, data=fields)
        assert {table: tool.count(table) for table in STORED} == stored
        assert (
            refused.status_code == 403
            and "Only the course's instructors may add" in html.unescape(refused.text)
        )

        ida = tool.browser()
        page = launch(ida, lms, "ida", None)
        assert str(page.url).endswith("/instructor")
        assert ida.get("/api/assignments/ps1/grades").status_code == 200
        assert tool.count("lti_outcomes") == 1  # ada's: an instructor's launch sends no grade


def test_the_launch_speaks_the_learners_language(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        lms.users["ada"].locale = "zh-CN"
        page = launch(tool.browser(), lms, "ada")
        assert '<html lang="zh">' in page.text


def test_a_frame_that_lost_its_cookie_opens_a_new_window(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        browser = tool.browser()
        action, fields = start(browser, lms, "ada")
        posted = browser.post(action, data=fields)
        cookieless = tool.browser()  # a frame whose browser keeps no third-party cookie
        page = cookieless.get(posted.headers["location"])
        assert page.status_code == 200 and "Open in a new window" in page.text
        link = page.text.split('href="', 2)[-1]
        new_window = link[: link.index('"')].replace("&amp;", "&")
        assert "window=new" in new_window
        window = tool.browser()
        named = window.get(new_window)  # names who would be signed in; signs nobody in
        assert named.status_code == 200 and "Continue as ada" in named.text
        assert "session" not in named.headers.get("set-cookie", "")
        fields = {"csrf": csrf(named.text), **_hidden(named.text, "pass", "next")}
        opened = window.post("/lti/continue", data=fields, follow_redirects=True)
        assert str(opened.url).endswith("/assignments/ps1") and "Signed in as ada" in opened.text
        again = tool.browser().get(new_window)
        assert again.status_code == 401  # the pass works once


def _hidden(page: str, *names: str) -> dict[str, str]:
    return {
        name: html.unescape(re.search(rf'name="{name}" value="([^"]*)"', page)[1])  # type: ignore[index]
        for name in names
    }


def test_a_link_to_someone_else_s_pass_signs_nobody_in(tmp_path: Path) -> None:
    # Login CSRF through the new-window link: an attacker's own launch leaves them a pass;
    # a link to it, opened by the victim (signed in as herself), changes nothing until she
    # chooses, on a page naming the attacker, to go on; a post from another site is refused.
    with tool_and_lms(tmp_path) as (tool, lms):
        lms.users["grace"] = User("u-grace-3", "Grace Hopper", "grace@example.org", "grace")
        victim = tool.browser()
        launch(victim, lms, "ada")
        attacker = tool.browser()
        action, fields = start(attacker, lms, "grace")
        posted = tool.browser().post(action, data=fields)  # not the browser that began it
        link = posted.headers["location"] + "&window=new"
        opened = victim.get(link, headers={"Sec-Fetch-Site": "cross-site"})
        assert opened.status_code == 200 and "session" not in opened.headers.get("set-cookie", "")
        shown = html.unescape(opened.text)
        assert "This browser is signed in as ada" in shown and "Continue as grace" in shown
        assert "Signed in as ada" in victim.get("/assignments").text
        forged = victim.post(
            "/lti/continue",
            data=_hidden(opened.text, "pass", "next"),
            headers={"Origin": "https://attacker.example"},
        )
        assert forged.status_code == 403
        assert "Signed in as ada" in victim.get("/assignments").text


def test_a_launch_signs_in_only_the_browser_that_began_its_login(tmp_path: Path) -> None:
    # Login CSRF through the LMS: an attacker's own launch form (their id_token and state),
    # posted from their page by the victim's browser, which is signed in as the victim.
    with tool_and_lms(tmp_path) as (tool, lms):
        lms.users["grace"] = User("u-grace-3", "Grace Hopper", "grace@example.org", "grace")
        victim = tool.browser()
        launch(victim, lms, "ada")
        action, fields = start(tool.browser(), lms, "grace")  # the attacker's login

        posted = victim.post(action, data=fields)

        assert posted.status_code == 303 and "session" not in posted.headers.get("set-cookie", "")
        page = victim.get(posted.headers["location"])
        assert page.status_code == 200 and "Open in a new window" in page.text
        assert "You will be signed in as grace" in html.unescape(page.text)
        assert "Signed in as ada" in victim.get("/assignments").text  # still the victim
        # The browser that began a login is signed in, and its login cookie is spent.
        browser = tool.browser()
        launch(browser, lms, "grace")
        assert "Signed in as grace" in browser.get("/assignments").text
        assert not [name for name in browser.cookies if name.startswith("graders-lti-")]


def test_the_tool_publishes_its_keys_and_lets_only_its_lms_frame_it(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        browser = tool.browser()
        first = browser.get("/lti/jwks").json()["keys"]
        assert [k["kty"] for k in first] == ["RSA"] and "d" not in first[0]
        tool.service.lti.keys.rotate()
        both = [k["kid"] for k in browser.get("/lti/jwks").json()["keys"]]
        assert len(both) == 2 and first[0]["kid"] in both  # the old one a while longer
        policy = browser.get("/sign-in").headers["content-security-policy"]
        assert f"frame-ancestors 'self' {lms.url};" in policy


def test_an_lms_user_is_the_rosters_student_and_stays_so(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        roster = "student,name,email\nalovelace,Ada Lovelace,ada@example.org\n"
        (tool.root / "roster.csv").write_text(roster, encoding="utf-8")
        page = launch(tool.browser(), lms, "ada")
        assert "Signed in as alovelace" in page.text
        lms.users["ada"].email = "ada@new.example.org"  # the LMS changes what it says
        assert "Signed in as alovelace" in launch(tool.browser(), lms, "ada").text


def test_a_refused_first_instructor_launch_binds_no_lms_course(tmp_path: Path) -> None:
    # The platform's first instructor launch binds its LMS course, but only a launch that
    # is taken: one naming an assignment the course lacks stores nothing, the binding too.
    with tool_and_lms(tmp_path) as (tool, lms):
        browser = tool.browser()
        action, fields = start(browser, lms, "ida", "no-such-assignment")
        refused = browser.post(action, data=fields)
        assert refused.status_code == 404
        assert {table: tool.count(table) for table in STORED} == dict.fromkeys(STORED, 0)


def _eve(lms: Platform, login: str) -> None:
    lms.users["eve"] = User("u-eve-9", "Eve", "eve@example.org", login)


def _ada_launched(tool: Any, lms: Platform) -> None:
    launch(tool.browser(), lms, "ada")


def _ada_minted(tool: Any, lms: Platform) -> None:
    tool.service.credentials.mint(["ada"], "learner")


@pytest.mark.parametrize(
    ("before", "login"),
    [
        pytest.param(_ada_launched, "ada", id="another-lms-user-s"),
        pytest.param(_ada_minted, "ada", id="a-minted-token-s"),
        pytest.param(_ada_launched, "Ada", id="differs-in-case-only"),
        pytest.param(lambda tool, lms: None, "ida", id="the-instructor-s-token"),
    ],
)
def test_a_new_lms_user_never_becomes_a_learner_someone_else_is(
    tmp_path: Path, before: Callable[[Any, Platform], None], login: str
) -> None:
    # A new LMS user whose login name is another person's learner id here (eve, login
    # 'ada'): she would read ada's work, hand in as ada, and get ada's grade in the LMS.
    with tool_and_lms(tmp_path) as (tool, lms):
        tool.service.credentials.mint(["ida"], "instructor")
        before(tool, lms)
        _eve(lms, login)
        stored = {table: tool.count(table) for table in STORED}
        browser = tool.browser()
        action, fields = start(browser, lms, "eve")
        refused = browser.post(action, data=fields)
        assert refused.status_code == 403, refused.text
        assert "is someone else's already. Ask your instructor" in html.unescape(refused.text)
        assert "graders_session" not in refused.headers.get("set-cookie", "")
        assert {table: tool.count(table) for table in STORED} == stored


def test_the_roster_s_student_with_a_minted_token_is_who_the_roster_says(tmp_path: Path) -> None:
    # The instructor's roster binds the LMS user to its student, token or not; a second LMS
    # user the roster would bind to the same student is refused.
    with tool_and_lms(tmp_path) as (tool, lms):
        roster = "student,name,email\nalovelace,Ada Lovelace,ada@example.org\n"
        (tool.root / "roster.csv").write_text(roster, encoding="utf-8")
        tool.service.credentials.mint(["alovelace"], "learner")
        assert "Signed in as alovelace" in launch(tool.browser(), lms, "ada").text
        lms.users["eve"] = User("u-eve-9", "Eve", "ada@example.org", "eve")
        browser = tool.browser()
        action, fields = start(browser, lms, "eve")
        assert browser.post(action, data=fields).status_code == 403


def _teacher(lms: Platform, name: str) -> None:
    lms.users[name] = User(
        f"u-{name}", name.title(), f"{name}@example.org", name, [INSTRUCTOR_ROLE]
    )


def _instructor(browser: Any) -> bool:
    """Whether the browser's session has an instructor's rights (the page and the API)."""
    page, grades = browser.get("/instructor"), browser.get("/api/assignments/ps1/grades")
    assert page.status_code == grades.status_code, (page.status_code, grades.status_code)
    return bool(page.status_code == 200)


def test_an_lms_role_counts_only_in_the_lms_course_the_course_is_bound_to(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A learner who makes a sandbox course on the same LMS is its Instructor: from there, or
    from no LMS course at all, they are a learner here; the first instructor launch binds."""
    with tool_and_lms(tmp_path) as (tool, lms):
        ida = tool.browser()
        launch(ida, lms, "ida", None)  # the first instructor launch: course-101 is bound
        assert _instructor(ida) and "now bound to LMS course 'course-101'" in caplog.text

        _teacher(lms, "mallory")
        lms.context = "sandbox-of-mallory"
        mallory = tool.browser()
        assert str(launch(mallory, lms, "mallory", None).url).endswith("/assignments")
        assert not _instructor(mallory)
        assert "which this course is not bound to" in caplog.text
        action, fields = start(mallory, lms, "mallory", deep=True)
        assert mallory.post(action, data=fields).status_code == 403  # adds no assignment

        lms.context = "course-101"
        lms.spoil = lambda c: c.pop(LTI + "context")
        nobody = tool.browser()
        launch(nobody, lms, "mallory", None)
        assert not _instructor(nobody)

        lms.context = "course-101"
        again = tool.browser()
        launch(again, lms, "ida", None)
        assert _instructor(again)


def test_an_lms_course_bound_by_hand_is_the_only_one_whose_teachers_teach(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        register(tool, lms, contexts=("course-202",))
        first = tool.browser()
        launch(first, lms, "ida", None)  # from course-101: not the bound one, first or not
        assert not _instructor(first)
        lms.context = "course-202"
        bound = tool.browser()
        launch(bound, lms, "ida", None)
        assert _instructor(bound)


def test_over_https_the_login_cookie_is_the_host_s_own_and_reaches_the_lms_frame() -> None:
    from starlette.requests import Request
    from starlette.responses import Response

    from graders.service.lti.launch import _cookie, login_cookie

    def request(scheme: str) -> Request:
        scope = {"type": "http", "scheme": scheme, "server": ("tool.example", 443)}
        return Request({**scope, "path": "/", "query_string": b"", "headers": []})

    name = login_cookie(request("https"), "a-state")
    assert name.startswith("__Host-graders-lti-") and name != login_cookie(request("https"), "b")
    assert login_cookie(request("http"), "a-state") == name.removeprefix("__Host-")
    response = Response()
    _cookie(request("https"), response, name, "1", 600)
    _cookie(request("https"), response, name, "", 0)  # spent, set the same way
    given, spent = response.headers.getlist("set-cookie")
    for header in (given, spent):
        assert all(part in header for part in ("Path=/", "Secure", "SameSite=None", "Partitioned"))
    assert "Max-Age=600" in given and "Max-Age=0" in spent
