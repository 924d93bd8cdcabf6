"""`graders.submit()` where learners run it: JupyterLab and Notebook 7 in Debian's Chromium
(Playwright), each on loopback with no token, against a real `graders serve`.

The learner opens ps1 as `graders release --service` wrote it, types two answers, saves,
and runs the submit cell; the token is typed once into the password box the notebook
shows; the feedback appears in the cell's output, and the service holds the attempt.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from in_browser import artifact, launched_chromium, needs_browser
from jupyter_app import JupyterServer
from notebook_helpers import fill, load_nb, save_nb
from service_helpers import (
    ServedCourse,
    ServerProcess,
    bearer,
    browser_server,
    environment,
    graders,
    mint,
    repository_course,
)
from what_starts import starts

STARTER = 'answer = "..."'
TYPED = (
    "clone-requires-grad/same-object",
    "clone-requires-grad/same-memory",
)  # typed in the browser, in notebook order

pytestmark = needs_browser
pytest.importorskip("uvicorn", reason="needs graders' serve extra")
pytest.importorskip("jupyterlab", reason="needs JupyterLab")
pytest.importorskip("notebook", reason="needs Notebook 7")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> ServedCourse:
    return repository_course(tmp_path_factory.mktemp("submit-browser"), submissions="{max: 3}")


@pytest.fixture(scope="module")
@starts("server")
def server(course: ServedCourse) -> Iterator[ServerProcess]:
    with browser_server(course) as s:
        yield s


@pytest.fixture(scope="module")
def released(course: ServedCourse, server: ServerProcess) -> dict[str, Any]:
    out = course.root / "release"
    done = graders("release", "ps1", "--service", server.url, "--out", str(out), cwd=course.root)
    assert done.returncode == 0, done.stderr
    return load_nb(out / "ps1" / "ps1.ipynb")


@pytest.fixture(scope="module")
@starts("browser")
def chromium() -> Iterator[Any]:
    with launched_chromium() as browser:
        yield browser


@pytest.mark.parametrize(("app", "learner"), [("lab", "ada"), ("notebook", "bea")])
def test_a_learner_types_saves_submits_and_reads_the_feedback(
    app: str,
    learner: str,
    course: ServedCourse,
    server: ServerProcess,
    released: dict[str, Any],
    chromium: Any,
    tmp_path: Path,
) -> None:
    token = mint(course.root, learner, db_url=server.db_url)[learner]
    assert set(TYPED) <= set(course.key)
    answers = {k: v for k, v in course.key.items() if k not in TYPED}
    path = save_nb(fill(released, answers), tmp_path / "work" / "ps1.ipynb")
    env = environment() | {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    for name in ("GRADERS_TOKEN", "GRADERS_SERVICE"):
        env.pop(name, None)
    with JupyterServer(app, path.parent, env, tmp_path / "jupyter") as jupyter:
        page = chromium.new_page(viewport={"width": 1200, "height": 900})
        try:
            page.goto(jupyter.notebook_url(path.name))
            _type_answers(page, course.key)
            page.keyboard.press("Control+s")
            _wait_saved(path, course.key)
            output = _run_submit(page, token)
        finally:
            page.screenshot(path=str(artifact(f"submit-{app}.png")), full_page=True)
            page.close()
    ident, max_score = _held_by_the_service(server, token)
    assert ident and f"Your attempt 1 at ps1: {max_score} / {max_score} points." in output
    assert "You have 2 attempts left." in output and "Every answer is correct." in output
    assert "Save the notebook first" not in output
    kept = json.loads((tmp_path / "config" / "graders" / "tokens.json").read_text())
    assert kept == {server.url: token} and token not in path.read_text()


def _type_answers(page: Any, key: dict[str, str]) -> None:
    """Type each of ``TYPED``'s answers into its cell, as a learner does: the starter
    selected and replaced."""
    for question in TYPED:
        cell = page.locator(".jp-CodeCell", has_text=STARTER).first
        cell.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.type(f"answer = {json.dumps(key[question])}")
        page.keyboard.press("Escape")  # command mode, as after typing


def _wait_saved(path: Path, key: dict[str, str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if STARTER not in path.read_text(encoding="utf-8"):
            return
        time.sleep(0.2)
    raise AssertionError(f"the notebook was not saved with the typed answers:\n{path.read_text()}")


def _run_submit(page: Any, token: str) -> str:
    """Run the submit cell, type the token into the password box; its output's text."""
    cell = page.locator(".jp-CodeCell", has_text="graders.submit()")
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+Enter")  # run it, staying on it
    box = cell.locator("input[type=password]")
    box.wait_for(timeout=120_000)
    box.fill(token)
    box.press("Enter")
    cell.locator(".graders-feedback").wait_for(timeout=180_000)
    text: str = cell.locator(".jp-OutputArea").inner_text()
    return text


def _held_by_the_service(server: ServerProcess, token: str) -> tuple[int, str]:
    """The learner's one attempt, as the service holds it: its id and its (full) score."""
    mine = httpx.get(
        f"{server.url}/api/assignments/ps1/submissions", headers=bearer(token), timeout=30
    ).json()
    assert [a["status"] for a in mine] == ["graded"]
    assert mine[0]["score"] == mine[0]["max_score"]
    return mine[0]["id"], f"{mine[0]['max_score']:g}"
