"""LTI 1.3 Assignment and Grade Services against the test LMS: a learner launched from the
LMS hands in, and their grade of record reaches the LMS's gradebook once, with the right
score; an override sends it again; a failing LMS costs nothing; `graders lti sync`; the
line items looked through page by page, on the LMS's own origin, up to a bound."""

from __future__ import annotations

import logging
import re
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from lti_helpers import csrf, launch, tool_and_lms, upload_page, wait_for
from lti_platform import CONTEXT, ITEM_QUERY, Platform
from service_helpers import fix_the_shares_key
from small_course import RIGHT, notebook

from graders.cli import main
from graders.gradebook import audit, overrides

pytestmark = pytest.mark.server  # the test LMS and the tool: uvicorn on loopback

pytest.importorskip("joserfc", reason="needs graders' serve extra")

ONE_WRONG = RIGHT | {"clone-basics/shares": "True"}  # 5 of 6


def test_a_launched_learner_hands_in_and_the_lms_gets_the_score_once(
    tmp_path: Path, gradebook_url: str
) -> None:
    with tool_and_lms(tmp_path, gradebook_url) as (tool, lms):
        browser = tool.browser()
        page = launch(browser, lms, "ada", "ps1")
        assert str(page.url).endswith("/assignments/ps1") and "Signed in as ada" in page.text
        done = upload_page(browser, page.text, notebook(ONE_WRONG))
        assert done.status_code == 200, done.text
        wait_for(lambda: lms.scores)
        score = lms.scores[0]["body"]
        assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == (
            "u-ada-1",
            5.0,
            6.0,
        )
        assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
        assert lms.line_item_posts == 1
        [item] = lms.line_items.values()
        assert (item["resourceId"], item["scoreMaximum"]) == ("ps1", 6.0)
        assert item["id"].endswith(f"/lineitems/1?{ITEM_QUERY}")

        # Nothing changed: nothing more is sent, and no second line item is made.
        tool.service.lti.wake()
        assert tool.service.lti.passback.send_changed().sent == 0
        assert len(lms.scores) == 1 and lms.line_item_posts == 1

        # An override (as `graders override` writes it) sends the new score.
        decision = overrides.Decision("clone-basics/shares", 1.0, "a fair reading", "ida")
        overrides.set_override(tool.service.engine, tool.service.course.id, "ps1", "ada", decision)
        wait_for(lambda: len(lms.scores) == 2)
        assert lms.scores[1]["body"]["scoreGiven"] == 6.0 and lms.line_item_posts == 1
        engine, course = tool.service.engine, tool.service.course.id

        def sent() -> int:  # written once the LMS answered: a moment after it has the score
            return [e.action for e in audit.history(engine, course, "ada")].count("lti-passback")

        wait_for(lambda: sent() == 2)
        tool.service.lti.passback.send_changed()
        assert sent() == 2 and len(lms.scores) == 2


def _asks_about_shares(tool: Any, lms: Platform) -> None:
    """ada, launched from the LMS, hands in with `shares` wrong (5 of 6, sent to the LMS)
    and asks for a review of it on her attempt's page."""
    learner = tool.browser()
    done = upload_page(learner, launch(learner, lms, "ada", "ps1").text, notebook(ONE_WRONG))
    wait_for(lambda: lms.scores)
    assert lms.scores[0]["body"]["scoreGiven"] == 5.0
    attempt = learner.get(str(done.url))
    asked = learner.post(
        f"{urlsplit(str(done.url)).path}/requests",
        data={"csrf": csrf(attempt.text), "question": "clone-basics/shares", "reason": "?"},
    )
    assert asked.status_code == 303, asked.text


def test_an_accepted_review_request_reaches_the_lms_line_item(
    tmp_path: Path, gradebook_url: str
) -> None:
    """A learner launched from the LMS asks for a review on the attempt's page; the LMS's
    instructor, launched too, accepts it on the desk: the override it makes is the grade of
    record the LMS's line item receives, and the history says each step."""
    with tool_and_lms(
        tmp_path,
        gradebook_url,
        feedback="{before_due: full, after_due: full}",
        requests="{per_assignment: 2, window_days: 7}",
    ) as (tool, lms):
        _asks_about_shares(tool, lms)
        desk = tool.browser()
        launch(desk, lms, "ida", "ps1")
        listed = desk.get("/instructor")
        request_id = re.search(r'action="/requests/(\d+)"', listed.text)
        assert request_id, listed.text
        accepted = desk.post(
            f"/requests/{request_id[1]}",
            data={"csrf": csrf(listed.text), "action": "accept", "reason": "fair"},
        )
        assert accepted.status_code == 303, accepted.text
        wait_for(lambda: len(lms.scores) == 2)
        assert lms.scores[1]["body"]["scoreGiven"] == 6.0 and lms.line_item_posts == 1
        actions = [e.action for e in audit.history(tool.service.engine, "tiny", "ada")]
        assert {"request", "override", "request-accepted"} <= set(actions)


def test_a_request_regraded_against_a_fixed_key_reaches_the_lms_line_item(tmp_path: Path) -> None:
    """The learner asks about a question whose key is then fixed; the instructor regrades the
    request at the course's command line while the tool runs: the new grade of record is what
    the LMS's line item receives (passback sends whatever changed the grade of record)."""
    with tool_and_lms(
        tmp_path,
        feedback="{before_due: full, after_due: full}",
        requests="{per_assignment: 2, window_days: 7}",
    ) as (tool, lms):
        _asks_about_shares(tool, lms)
        fix_the_shares_key(tool.root)
        course = ["--course", str(tool.root)]
        listed = CliRunner().invoke(main, ["requests", "ps1", *course])
        request_id = listed.output.split()[0]
        regraded = CliRunner().invoke(
            main, ["request", request_id, "regrade", "--reason", "key fixed", *course]
        )
        assert regraded.exit_code == 0, regraded.output
        wait_for(lambda: len(lms.scores) == 2)
        assert lms.scores[1]["body"]["scoreGiven"] == 6.0 and lms.line_item_posts == 1
        actions = [e.action for e in audit.history(tool.service.engine, "tiny", "ada")]
        assert {"request", "request-regraded"} <= set(actions)


def test_an_accommodated_learner_s_late_hand_in_reaches_the_lms_on_time(tmp_path: Path) -> None:
    """48 extra hours, set before the service starts: a hand-in a day after the due date is
    on time in the grade the LMS receives (the course's late rule: x0.75 a started day)."""
    from datetime import UTC, datetime, timedelta

    due = (datetime.now(UTC) - timedelta(hours=20)).isoformat()
    root = tmp_path / "course"
    accommodated = ["accommodate", "ada", "--extra-hours", "48", "--course", str(root)]
    with tool_and_lms(tmp_path, due=due, before_start=accommodated) as (tool, lms):
        learner = tool.browser()
        upload_page(learner, launch(learner, lms, "ada", "ps1").text, notebook(ONE_WRONG))
        wait_for(lambda: lms.scores)
        assert lms.scores[0]["body"]["scoreGiven"] == 5.0  # not 5 x 0.75


def test_a_failing_lms_is_retried_and_nothing_is_lost(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        lms.failures = [429, 500, 503]  # busy, then broken twice: tenacity's backoff
        browser = tool.browser()
        page = launch(browser, lms, "ada", "ps1")
        upload_page(browser, page.text, notebook(RIGHT))
        wait_for(lambda: lms.scores)
        assert lms.failures == [] and [s["body"]["scoreGiven"] for s in lms.scores] == [6.0]


def test_a_score_the_lms_refuses_is_kept_and_sync_sends_it(tmp_path: Path) -> None:
    from graders.service.lti import services

    with tool_and_lms(tmp_path) as (tool, lms):
        lms.failures = [500] * (services.ATTEMPTS + 1)  # more than one round's retries
        browser = tool.browser()
        page = launch(browser, lms, "ada", "ps1")
        upload_page(browser, page.text, notebook(RIGHT))
        engine, course = tool.service.engine, tool.service.course.id
        wait_for(
            lambda: (
                "lti-passback-failed" in [e.action for e in audit.history(engine, course, "ada")]
            )
        )
        assert lms.scores == []
        tool.service.lti.stop()  # the service would send it again in a while: the command now
        lms.failures = []
        db = str(tool.service.engine.url)
        done = CliRunner().invoke(
            main, ["lti", "sync", "ps1", "--course", str(tool.root), "--db", db]
        )
        assert done.exit_code == 0 and "1 scores sent, 0 failed" in done.output, done.output
        assert [s["body"]["scoreGiven"] for s in lms.scores] == [6.0]


def test_a_dropped_learners_score_is_cleared_in_the_lms(tmp_path: Path) -> None:
    from graders.gradebook import drops

    with tool_and_lms(tmp_path) as (tool, lms):
        browser = tool.browser()
        page = launch(browser, lms, "ada", "ps1")
        upload_page(browser, page.text, notebook(RIGHT))
        wait_for(lambda: lms.scores)
        engine, course = tool.service.engine, tool.service.course.id
        drops.drop(engine, course, "ps1", "ada", reason="withdrew", by="ida")
        wait_for(lambda: len(lms.scores) == 2)
        cleared = lms.scores[1]["body"]
        assert "scoreGiven" not in cleared and cleared["gradingProgress"] == "NotReady"


def test_a_line_item_the_lms_has_already_is_found_by_its_resource_id(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        made = f"{lms.url}/api/course-101/lineitems/1?{ITEM_QUERY}"
        lms.line_items[1] = {"id": made, "resourceId": "ps1", "scoreMaximum": 6.0, "label": "ps1"}
        browser = tool.browser()
        page = launch(browser, lms, "ada", "ps1")
        upload_page(browser, page.text, notebook(RIGHT))
        wait_for(lambda: lms.scores)
        assert lms.line_item_posts == 0 and lms.scores[0]["item"] == 1


def _columns(lms: Platform, count: int, ps1_at: int | None = None) -> None:
    """``count`` columns in the LMS course, ps1's the ``ps1_at``-th (None: not among them)."""
    for n in range(1, count + 1):
        assignment = "ps1" if n == ps1_at else f"quiz{n}"
        lms.line_items[n] = {
            "id": f"{lms.url}/api/{CONTEXT}/lineitems/{n}?{ITEM_QUERY}",
            "resourceId": assignment,
            "scoreMaximum": 6.0,
            "label": assignment,
        }


def _hand_in(tool: Any, lms: Platform) -> None:
    """ada launches ps1 from the LMS and hands in a notebook all right."""
    browser = tool.browser()
    page = launch(browser, lms, "ada", "ps1")
    upload_page(browser, page.text, notebook(RIGHT))


def _hand_in_and_wait(tool: Any, lms: Platform) -> None:
    """ada hands in; her score is not sent, and no column is made (it may be on a page
    not read): the score waits for a later round."""
    _hand_in(tool, lms)
    engine, course = tool.service.engine, tool.service.course.id
    wait_for(
        lambda: "lti-passback-failed" in [e.action for e in audit.history(engine, course, "ada")]
    )
    assert lms.line_item_posts == 0 and lms.scores == []


def test_a_line_item_on_the_third_page_of_the_lms_list_is_found(tmp_path: Path) -> None:
    with tool_and_lms(tmp_path) as (tool, lms):
        lms.item_page_size = 2  # every column, two a page, next links relative (RFC 8288)
        _columns(lms, 7, ps1_at=6)
        _hand_in(tool, lms)
        wait_for(lambda: lms.scores)
        assert len(lms.item_pages) == 3  # and no further: found
        assert lms.line_item_posts == 0 and lms.scores[0]["item"] == 6  # no second column


def test_a_next_page_on_another_origin_is_not_followed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="graders.service.lti")
    with tool_and_lms(tmp_path) as (tool, lms):
        lms.item_page_size = 2
        elsewhere = f"http://localhost:{lms.port}"  # another origin (the same LMS, here)
        lms.item_next_origin = elsewhere
        _columns(lms, 7, ps1_at=6)
        _hand_in_and_wait(tool, lms)
        # Not followed (the access token would go with it), and the log says what then.
        assert [urlsplit(url).hostname for url in lms.item_pages] == ["127.0.0.1"]
        assert f"goes on at another origin ({elsewhere}): not followed" in caplog.text
        assert "LTI line item of ps1 not looked up further, and none made" in caplog.text


def test_the_line_items_are_read_up_to_a_bound(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from graders.service.lti import passback

    caplog.set_level(logging.WARNING, logger="graders.service.lti")
    with tool_and_lms(tmp_path) as (tool, lms):
        lms.item_page_size = 1
        _columns(lms, passback.LINE_ITEM_PAGES + 5, ps1_at=passback.LINE_ITEM_PAGES + 3)
        _hand_in_and_wait(tool, lms)
        assert len(lms.item_pages) == passback.LINE_ITEM_PAGES == 50
        assert "goes on past 50 pages: not followed further" in caplog.text


def test_two_lms_courses_linked_to_the_course_each_get_their_score(tmp_path: Path) -> None:
    # Two sections in two LMS courses, or last term's course and this term's copy: each
    # has its own column, and a learner's grade goes to the courses they launched from.
    with tool_and_lms(tmp_path) as (tool, lms):
        browser = tool.browser()
        page = launch(browser, lms, "ada", "ps1")
        lms.context = "course-102"
        launch(tool.browser(), lms, "ada", "ps1")
        upload_page(browser, page.text, notebook(RIGHT))
        wait_for(lambda: len(lms.scores) == 2)
        assert lms.line_item_posts == 2
        assert sorted(lms.item_context[s["item"]] for s in lms.scores) == [
            "course-101",
            "course-102",
        ]


def test_processes_sharing_a_postgresql_gradebook_take_turns_to_send(
    tmp_path: Path, postgres: Any
) -> None:
    from sqlalchemy import text

    from graders.service.lti import passback

    with tool_and_lms(tmp_path, postgres.new_database()) as (tool, lms):
        tool.service.lti.stop()  # this test sends, as two processes would
        browser = tool.browser()
        page = launch(browser, lms, "ada", "ps1")
        upload_page(browser, page.text, notebook(RIGHT))
        mine = "/api/assignments/ps1/submissions"
        wait_for(lambda: browser.get(mine).json()[0]["status"] == "graded")  # a score to send
        engine = tool.service.engine
        key = zlib.crc32(tool.service.course.id.encode()) & 0x7FFFFFFF
        with engine.connect() as other:  # another process, sending now
            other.execute(
                text("SELECT pg_advisory_lock(:a, :b)"), {"a": passback.SENDER_LOCK, "b": key}
            )
            assert tool.service.lti.passback.send_changed().sent == 0 and lms.scores == []
            other.execute(
                text("SELECT pg_advisory_unlock(:a, :b)"), {"a": passback.SENDER_LOCK, "b": key}
            )
            other.commit()
        wait_for(lambda: tool.service.lti.passback.send_changed().sent == 1)
        assert len(lms.scores) == 1
