"""`graders serve` in a real browser: Debian's Chromium driven by Playwright, against a real
server process (uvicorn on a free loopback port, a SQLite file, the real sandbox).

A learner signs in with their token, opens ps1, uploads their notebook and reads the
feedback page; the instructor reads the class. Each page is checked with axe-core (the
copy bundled with axe-playwright-python): no serious or critical violation. The same walk
is done again with JavaScript off: every page is a document first. Screenshots go to
test-artifacts/.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from in_browser import artifact, assert_accessible, launched_chromium, needs_axe
from service_helpers import ServedCourse, ServerProcess, browser_server, mint, repository_course
from what_starts import starts

pytestmark = needs_axe
pytest.importorskip("uvicorn", reason="needs graders' serve extra")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> ServedCourse:
    # The expected answers are shown at once, so a review can be asked for while ps1 is open.
    return repository_course(
        tmp_path_factory.mktemp("browser"),
        submissions="{max: 5}",
        feedback="{before_due: full, after_due: full}",
    )


@pytest.fixture(scope="module")
@starts("server")
def server(course: ServedCourse) -> Iterator[ServerProcess]:
    with browser_server(course) as s:
        yield s


@pytest.fixture(scope="module")
def people(course: ServedCourse, server: ServerProcess) -> dict[str, str]:
    learners = mint(course.root, "ada", "bea", db_url=server.db_url)
    return learners | mint(course.root, "prof", db_url=server.db_url, instructor=True)


@pytest.fixture(scope="module")
@starts("browser")
def chromium() -> Iterator[Any]:
    with launched_chromium() as browser:
        yield browser


@pytest.fixture
def notebook_file(course: ServedCourse, tmp_path: Path) -> Path:
    path = tmp_path / "ps1.ipynb"
    path.write_bytes(course.notebook())
    return path


def accessible(page: Any, name: str) -> None:
    """axe-core finds nothing serious on ``page``; a screenshot of it is kept."""
    page.screenshot(path=str(artifact(f"serve-{name}.png")))
    assert_accessible(page, name)


def sign_in(page: Any, server: ServerProcess, token: str) -> None:
    page.goto(server.url)
    assert page.url.endswith("/sign-in")
    page.get_by_label("Your token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{server.url}/assignments")


def test_a_learner_signs_in_uploads_and_reads_the_feedback(
    chromium: Any, server: ServerProcess, people: dict[str, str], notebook_file: Path
) -> None:
    page = chromium.new_page(viewport={"width": 1100, "height": 1000})
    page.goto(server.url)
    accessible(page, "sign-in")
    sign_in(page, server, people["ada"])
    accessible(page, "assignments")
    page.get_by_role("link", name="clone(), detach(), clone().detach()").click()
    assert page.get_by_text("You have 5 attempts left.").is_visible()
    accessible(page, "assignment")
    page.get_by_label("Your notebook (.ipynb)").set_input_files(str(notebook_file))
    page.get_by_role("button", name="Hand in").click()
    page.wait_for_url(f"{server.url}/submissions/*")
    page.get_by_text("Feedback for ada").wait_for(timeout=120_000)
    score = page.locator(".summary .score").inner_text()
    top, _, most = score.partition(" / ")
    assert top == most and float(top) > 40
    assert page.get_by_text("Every answer is correct.").is_visible()
    accessible(page, "feedback")
    page.get_by_role("link", name="Back to clone(), detach(), clone().detach()").click()
    assert page.get_by_text("You have 4 attempts left.").is_visible()
    assert page.get_by_role("heading", name="Latest feedback (attempt 1)").is_visible()
    accessible(page, "assignment-graded")
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{server.url}/sign-in")
    page.close()


def test_the_instructor_reads_the_class(
    chromium: Any, server: ServerProcess, people: dict[str, str]
) -> None:
    page = chromium.new_page(viewport={"width": 1100, "height": 1000})
    sign_in(page, server, people["prof"])
    page.get_by_role("link", name="Instructor").click()
    page.get_by_role("heading", name="Queue").wait_for()
    accessible(page, "instructor")
    page.close()


def test_everything_works_without_javascript_and_in_chinese(
    chromium: Any, server: ServerProcess, people: dict[str, str], notebook_file: Path
) -> None:
    context = chromium.new_context(java_script_enabled=False, locale="zh-CN")
    page = context.new_page()
    page.goto(server.url)
    page.get_by_label("你的令牌").fill(people["bea"])
    page.get_by_role("button", name="登录").click()
    page.wait_for_url(f"{server.url}/assignments")
    page.goto(f"{server.url}/assignments/ps1")
    page.get_by_label("你的笔记本（.ipynb）").set_input_files(str(notebook_file))
    page.get_by_role("button", name="提交", exact=True).click()
    page.wait_for_url(f"{server.url}/submissions/*")
    # Without a script, the page the upload answers with is the feedback, or a link to
    # check again while the queue is long.
    for _ in range(60):
        if page.locator(".summary .score").count():
            break
        page.get_by_role("link", name="再看一次").click()
    assert page.locator("html").get_attribute("lang") == "zh"
    assert page.get_by_text("给 bea 的反馈").is_visible()
    # axe-core is a script: the same page, with the same session, in a browser that runs it.
    checker = chromium.new_context(locale="zh-CN")
    checker.add_cookies(context.cookies())
    shown = checker.new_page()
    shown.goto(page.url)
    accessible(shown, "feedback-zh")
    checker.close()
    context.close()


def test_a_learner_asks_for_a_review_and_the_instructor_answers(
    chromium: Any,
    server: ServerProcess,
    people: dict[str, str],
    course: ServedCourse,
    tmp_path: Path,
) -> None:
    """The request form on the attempt page and the instructor's list, each checked by
    axe-core, in English and in Chinese; the instructor's answer reaches the learner."""
    wrong = next(item for item, answer in course.key.items() if answer == "False")
    path = tmp_path / "ps1.ipynb"
    path.write_bytes(course.notebook({wrong: "True"}))
    page = chromium.new_page(viewport={"width": 1100, "height": 1000})
    sign_in(page, server, people["ada"])
    page.goto(f"{server.url}/assignments/ps1")
    page.get_by_label("Your notebook (.ipynb)").set_input_files(str(path))
    page.get_by_role("button", name="Hand in").click()
    page.wait_for_url(f"{server.url}/submissions/*")
    page.get_by_text("Feedback for ada").wait_for(timeout=120_000)
    attempt = page.url
    page.get_by_label("Question").select_option(wrong)
    page.get_by_label("Why should it be reviewed?").fill("<i>The prompt</i> said so.")
    page.get_by_role("button", name="Ask for a review").click()
    page.get_by_text("waiting for your instructor").wait_for()
    accessible(page, "request")
    zh = chromium.new_context(locale="zh-CN")
    zh.add_cookies(page.context.cookies())
    chinese = zh.new_page()
    chinese.goto(attempt)
    assert chinese.get_by_text("等待教师处理").is_visible()
    accessible(chinese, "request-zh")
    zh.close()
    page.close()
    desk = chromium.new_page(viewport={"width": 1100, "height": 1000})
    sign_in(desk, server, people["prof"])
    desk.goto(f"{server.url}/instructor")
    assert desk.get_by_text("<i>The prompt</i> said so.").is_visible()  # text, not markup
    accessible(desk, "instructor-requests")
    desk.get_by_label("Your answer (the learner reads it)").fill("The key is right.")
    desk.get_by_role("button", name="Decline").click()
    desk.get_by_text("No open review request.").wait_for()
    desk.close()
    again = chromium.new_page()
    sign_in(again, server, people["ada"])
    again.goto(attempt)
    assert again.get_by_text("The key is right.").is_visible()
    again.close()
