"""An LTI launch in a real browser (Debian's Chromium, driven by Playwright), from a page
of the test LMS to a real `graders serve` process registered by `graders lti add-platform`:
inside the LMS page's iframe (the learner hands in there, and the LMS gets the score), in
a new window, and from an LMS on another site, whose frame keeps no cookie of the tool's
(over plain HTTP a cookie cannot be SameSite=None): the frame offers a new window, which
is signed in."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from in_browser import assert_accessible, launched_chromium, needs_axe
from lti_platform import DL, INSTRUCTOR, Platform, User
from service_helpers import ServedCourse, ServerProcess, graders, repository_course
from what_starts import starts

pytestmark = [needs_axe, pytest.mark.server]  # the test LMS and graders serve
pytest.importorskip("joserfc", reason="needs graders' serve extra")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> ServedCourse:
    return repository_course(tmp_path_factory.mktemp("lti-browser"))


@pytest.fixture(scope="module")
@starts("browser")
def chromium() -> Iterator[Any]:
    with launched_chromium() as browser:
        yield browser


def served(course: ServedCourse, lms: Platform, name: str) -> ServerProcess:
    """`graders serve` with LTI for ``lms``, registered as an administrator does."""
    db_url = f"sqlite:///{course.root / f'{name}.db'}"
    added = graders("lti", "add-platform", *lms.registration(), "--db", db_url, cwd=course.root)
    assert added.returncode == 0, added.stderr
    server = ServerProcess(course.root, db_url)
    server.extra = ("--base-url", server.url, "--lti-every", "0.2")
    return server


def people(lms: Platform) -> None:
    lms.users["ada"] = User("u-ada-1", "Ada Lovelace", "ada@example.org", "ada")
    lms.users["bea"] = User("u-bea-2", "Bea Bell", "bea@example.org", "bea")
    lms.users["ida"] = User("u-ida-3", "Ida Rhodes", "ida@example.org", "ida", [INSTRUCTOR])


def test_a_launch_in_the_lms_frame_and_in_a_new_window(
    course: ServedCourse, chromium: Any, tmp_path: Path
) -> None:
    notebook = tmp_path / "ps1.ipynb"
    notebook.write_bytes(course.notebook())
    with Platform() as lms:
        people(lms)
        with served(course, lms, "frame") as server:
            lms.tool_url = server.url
            page = chromium.new_page()
            page.goto(f"{lms.url}/course?as=ada")
            frame = page.frame_locator("#tool")
            frame.get_by_text("Signed in as ada").wait_for()
            frame.locator("#notebook").set_input_files(str(notebook))
            frame.locator("form[enctype] button[type=submit]").click()
            frame.locator(".score").first.wait_for()
            deadline = time.monotonic() + 60
            while not lms.scores and time.monotonic() < deadline:
                time.sleep(0.1)
            [score] = lms.scores
            [item] = lms.line_items.values()
            assert score["body"]["userId"] == "u-ada-1"
            assert score["body"]["scoreGiven"] == item["scoreMaximum"] > 0

            page = chromium.new_page()
            page.goto(f"{lms.url}/course?as=bea")
            with page.expect_popup() as opened:
                page.locator("#new-window").click()
            window = opened.value
            window.get_by_text("Signed in as bea").wait_for()
            assert window.url.endswith("/assignments/ps1")

            # An instructor adds ps1 to an LMS assignment: the picker, then back to the LMS.
            page = chromium.new_page()
            page.goto(f"{lms.url}/start?as=ida&deep=1")
            page.get_by_role("button", name="Add it").wait_for()
            assert_accessible(page, "picker")
            page.get_by_label("ps1", exact=False).first.check()
            page.get_by_role("button", name="Add it").click()
            page.locator("#added").wait_for()
            [claims] = lms.deep_links
            assert claims[DL + "content_items"][0]["custom"] == {"assignment": "ps1"}
        assert server.returncode == 0, server.log()


def test_an_lms_on_another_site_opens_a_new_window(course: ServedCourse, chromium: Any) -> None:
    with Platform(host="localhost") as lms:
        people(lms)
        with served(course, lms, "cross-site") as server:
            lms.tool_url = server.url
            context = chromium.new_context()
            page = context.new_page()
            page.goto(f"{lms.url}/course?as=ada")
            frame = page.frame_locator("#tool")
            link = frame.get_by_role("link", name="Open in a new window")
            with page.expect_popup() as opened:
                link.click()
            window = opened.value
            go_on = window.get_by_role("button", name="Continue as ada")
            go_on.wait_for()  # the new window names who it would sign in
            assert_accessible(window, "continue")
            go_on.click()
            window.get_by_text("Signed in as ada").wait_for()
            assert window.url.endswith("/assignments/ps1")
            context.close()
            cookieless = chromium.new_context()  # the frame's page, on its own, for axe
            fallback = cookieless.new_page()
            fallback.goto(f"{server.url}/lti/continue?next=/assignments/ps1&pass=spent")
            fallback.get_by_role("heading", name="Open in a new window").wait_for()
            assert_accessible(fallback, "new-window")
            cookieless.close()
        assert server.returncode == 0, server.log()
