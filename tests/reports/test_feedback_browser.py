"""A feedback page with a code exercise, in a real browser (Debian's chromium, via playwright).

One learner of the repository's ps1 hands in late, with wrong and unreadable answers and a
code exercise that fails some checks. The real pipeline grades it (truths and code from
torch, in process), the gradebook keeps it, `graders feedback` writes the page, and
chromium opens it: the summary comes first (score, the delay after the due date, points
per section, links to each question to review), the learner's code is shown once, and
each check's explanation appears once. The screenshot goes to test-artifacts/.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from in_browser import artifact, launched_chromium, needs_browser
from what_starts import starts

from graders.cli import main
from graders.course.times import time_text
from graders.gradebook import store as gradebook
from graders.grading.pipeline import Submission, answer_key, grade_submission, prepare_assignment
from graders.kinds.base import Context
from graders.sandbox import InProcessRunner
from graders.workspace import load

REPO = Path(__file__).resolve().parent.parent.parent
CODE = "import torch\n\n\ndef independent_copy(t):\n    return t.detach()  # no copy\n"

pytestmark = needs_browser


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """ada's feedback page for ps1, and the explanations of the code exercise's checks."""
    root = tmp_path_factory.mktemp("course")
    shutil.copy(REPO / "course.yml", root / "course.yml")
    for folder in ("exercises", "solutions", "checkers"):
        shutil.copytree(REPO / folder, root / folder)
    loaded = load(root)
    prep = prepare_assignment(
        loaded, "ps1", Context(loaded.course, loaded.root, InProcessRunner(), None)
    )
    key = answer_key(prep)
    answers = {k: v for k, v in key.items() if "/" in k}
    wrong = [k for k in answers if answers[k] in ("True", "False")][:3]
    for item in wrong:
        answers[item] = "True" if answers[item] == "False" else "False"
    answers[next(iter(answers))] = "same as a"  # cannot be read
    late = prep.assignment.due + timedelta(days=1, hours=2, minutes=30)
    result = grade_submission(
        prep, Submission("ada", "ps1", {**answers, "independent-copy": CODE}, submitted_at=late)
    )
    engine = gradebook.open_gradebook(gradebook.default_url(root))
    gradebook.record(
        engine,
        loaded.course.id,
        "ps1",
        gradebook.Graded(result, "k", None, None, late, "2.13.0", "inprocess"),
    )
    done = CliRunner().invoke(main, ["feedback", "ps1", "--course", str(root)])
    assert done.exit_code == 0, done.output
    checks = next(e for e in prep.exercises if e.loaded.exercise.id == "independent-copy")
    explains = [c.explain.strip() for c in checks.loaded.exercise.checks]
    return root / "autograded" / "ps1" / "feedback" / "ada.html", {
        "explains": explains,
        "result": result,
        "due": time_text(prep.assignment.due),
    }


@pytest.fixture(scope="module")
@starts("browser")
def page(page_file: tuple[Path, dict[str, Any]]) -> Iterator[Any]:
    path, _ = page_file
    with launched_chromium() as chromium:
        tab = chromium.new_page(viewport={"width": 1100, "height": 1400})
        tab.route("**/*", lambda r: r.continue_() if r.request.url == path.as_uri() else r.abort())
        tab.goto(path.as_uri())
        yield tab


def test_the_summary_comes_first_with_score_delay_sections_and_links(
    page: Any, page_file: tuple[Path, dict[str, Any]]
) -> None:
    result = page_file[1]["result"]
    summary = page.locator("section.summary")
    first_question = page.locator("article.question").first
    assert summary.bounding_box()["y"] < first_question.bounding_box()["y"]
    text = summary.inner_text()
    assert f"{result.score:g}"[:4] in text.replace(" ", "")
    # The bundled course's own due date (its example term's: the year moves with it).
    due = page_file[1]["due"]
    assert f"Submitted 1 day, 2 hours after the due date ({due})" in text
    assert "multiplied by 0.8" in text
    rows = page.eval_on_selector_all("table.sections tbody tr", "rs => rs.map(r => r.innerText)")
    assert any(r.startswith("article §1a") for r in rows) and len(rows) >= 3
    links = page.eval_on_selector_all(
        "ul.missed a", "as => as.map(a => [a.textContent, a.getAttribute('href')])"
    )
    missed = [q for q in result.questions if q.status.value != "correct"]
    assert [href for _, href in links] == [f"#{q.id}" for q in missed]
    assert links[0][0].startswith("Question 1.")
    for _, href in links:  # every link lands on its question
        assert page.locator(f"[id='{href[1:]}']").count() == 1


def test_the_code_is_shown_once_and_each_check_explained_once(
    page: Any, page_file: tuple[Path, dict[str, Any]]
) -> None:
    block = page.locator("section", has=page.locator("[id='independent-copy/values']"))
    assert block.locator(".code pre").count() == 1
    assert block.locator(".code pre").inner_text().strip() == CODE.strip()
    body = page.inner_text("body")
    for explain in page_file[1]["explains"]:
        shown = explain.split("\n")[0].strip().replace("`", "")  # `code` renders as code
        assert body.count(shown) == 1, shown
    heads = block.locator("article .head span:first-child").all_inner_texts()
    assert heads and all(h.startswith("Exercise 8, check ") for h in heads)


def test_screenshot_of_the_feedback_page(page: Any) -> None:
    page.screenshot(path=str(artifact("feedback.png")))
    page.screenshot(path=str(artifact("feedback-full.png")), full_page=True)
    assert artifact("feedback.png").stat().st_size > 10_000
