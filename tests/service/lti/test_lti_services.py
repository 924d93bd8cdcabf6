"""Deep linking and Names and Role Provisioning against the test LMS, and the `graders lti`
commands: the signed deep-linking answer the LMS checks, the roster paged in from the
LMS, what an LMS administrator is told to enter."""

from __future__ import annotations

import csv
import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from lti_helpers import launch, start, tool_and_lms
from lti_platform import DL, LTI, Platform
from service_helpers import course_to_serve

from graders.cli import main

pytestmark = pytest.mark.server  # the test LMS and the tool: uvicorn on loopback

pytest.importorskip("joserfc", reason="needs graders' serve extra")


def test_deep_linking_answers_with_a_signed_link_to_the_assignment(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        ida = tool.browser()
        action, fields = start(ida, lms, "ida", None, deep=True)
        picker = ida.post(action, data=fields)
        assert picker.status_code == 200 and 'name="assignment" value="ps1"' in picker.text
        ticket = re.search(r'name="ticket" value="([^"]*)"', picker.text)
        assert ticket
        answer = tool.browser().post(  # no cookie needed: an LMS's dialog is a frame
            "/lti/deep-link", data={"ticket": ticket[1], "assignment": "ps1"}
        )
        assert answer.status_code == 200
        assert f"form-action 'self' {lms.url};" in answer.headers["content-security-policy"]
        back = re.search(r'action="([^"]*)" id="lti-return"', answer.text)
        jwt = re.search(r'name="JWT" value="([^"]*)"', answer.text)
        assert back and jwt and html.unescape(back[1]) == f"{lms.url}/deep-link-return"
        import httpx

        assert httpx.post(html.unescape(back[1]), data={"JWT": jwt[1]}).status_code == 200
        [claims] = lms.deep_links  # the LMS checked it with the tool's published keys
        assert claims[LTI + "message_type"] == "LtiDeepLinkingResponse"
        assert claims[LTI + "deployment_id"] == "deployment-1"
        assert claims[DL + "data"] == "platform-state-42"
        [link] = claims[DL + "content_items"]
        assert link["type"] == "ltiResourceLink" and link["custom"] == {"assignment": "ps1"}
        assert link["url"] == f"{tool.url}/lti/launch"
        assert link["lineItem"] | {} == {
            "scoreMaximum": 6.0,
            "label": link["title"],
            "resourceId": "ps1",
            "tag": "graders",
        }


def test_a_forged_picker_ticket_is_refused(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, _lms):
        refused = tool.browser().post(
            "/lti/deep-link", data={"ticket": "x.y.z", "assignment": "ps1"}
        )
        assert refused.status_code == 403


def test_the_roster_pages_through_the_lms_memberships(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        lms.add_learners(5)  # with ada and ida: 7 members, 4 pages of 2
        launch(tool.browser(), lms, "ida", None)  # the LMS course is bound by its teacher's
        lms.context = "sandbox-of-ada"  # a course a learner made: its members are not read
        launch(tool.browser(), lms, "ada")
        root = tool.root
        (root / "roster.csv").write_text("student,section\nada,A1\ngone,B2\n", encoding="utf-8")
        done = CliRunner().invoke(
            main, ["lti", "roster", "--course", str(root), "--db", str(tool.service.engine.url)]
        )
        assert done.exit_code == 0, done.output
        assert (
            len(lms.member_pages) == 4 and "6 learners from 1 LMS courses (4 pages)" in done.output
        )
        with (root / "roster.csv").open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        assert [r["student"] for r in rows] == [
            "ada",
            *[f"learner{n:02d}@example.org" for n in range(5)],
        ]
        assert rows[0]["section"] == "A1" and rows[0]["email"] == "ada@example.org"


def test_add_platform_tool_config_and_rotate_key(tmp_path: Path) -> None:
    root = course_to_serve(tmp_path)
    db = f"sqlite:///{root / 'gradebook.db'}"
    lms = Platform(port=1)
    cli = CliRunner()
    added = cli.invoke(
        main, ["lti", "add-platform", *lms.registration(), "--course", str(root), "--db", db]
    )
    assert added.exit_code == 0, added.output
    bad = cli.invoke(
        main,
        [
            "lti",
            "add-platform",
            *lms.registration()[:-1],
            "not-a-url",
            "--course",
            str(root),
            "--db",
            db,
        ],
    )
    assert bad.exit_code == 2 and "--jwks-url must be an http(s) URL" in bad.output
    plain = [*lms.registration()[:-1], "http://lms.example.edu/jwks"]  # not this machine
    clear = cli.invoke(main, ["lti", "add-platform", *plain, "--course", str(root), "--db", db])
    assert (
        clear.exit_code == 2 and "--jwks-url: http://lms.example.edu/jwks: refused" in clear.output
    )
    config = cli.invoke(
        main,
        ["lti", "tool-config", "--base-url", "https://tool.example.edu", "--course", str(root)],
    )
    key = json.loads(config.output)
    assert key["oidc_initiation_url"] == "https://tool.example.edu/lti/login"
    assert key["public_jwk_url"] == "https://tool.example.edu/lti/jwks"
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in key["scopes"]
    moodle = cli.invoke(
        main,
        [
            "lti",
            "tool-config",
            "--lms",
            "moodle",
            "--base-url",
            "https://tool.example.edu",
            "--course",
            str(root),
        ],
    )
    assert "Initiate login URL: https://tool.example.edu/lti/login" in moodle.output
    rotated = cli.invoke(main, ["lti", "rotate-key", "--course", str(root), "--db", db])
    assert rotated.exit_code == 0 and rotated.output.startswith("new signing key ")
