"""A learner's language is theirs through the whole term: every decision an instructor
makes (extend with --days, --until or --clear; override; regrade; drop and undo, of one
assignment or of the whole course) leaves their feedback page and Gradescope file in the
language their notebook was released in.

The bundled ps1, released in Chinese: li hands it in late, with one question missed.
"""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from chinese_class import bundled_course
from click.testing import CliRunner, Result
from notebook_helpers import fill, load_nb, save_nb

from graders.cli import main

# Its many in-process commands share one warm sandbox (tests/warm_sandbox.py).
pytestmark = pytest.mark.usefixtures("warm_sandbox")

MISSED = "clone-requires-grad/same-object"
# ps1 is due 2036-10-05T23:59+02:00: li hands in half a day late (x0.9).
TIMES = "student,submitted_at\nli,2036-10-06T12:00:00+02:00\n"


def run(*args: str) -> str:
    done: Result = CliRunner().invoke(main, list(args))
    assert done.exit_code == 0, done.output
    return done.output


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = bundled_course(tmp_path_factory.mktemp("course"))
    at = ("--course", str(root))
    run("release", "ps1", "--lang", "zh", "--out", str(root / "zh"), *at)
    key = json.loads(run("key", "ps1", "--json", *at))
    answers = {k: v for k, v in key.items() if "/" in k} | {MISSED: "'not the object'"}
    subs = root / "submissions"
    save_nb(fill(load_nb(root / "zh" / "ps1" / "ps1.ipynb"), answers), subs / "li" / "ps1.ipynb")
    (root / "times.csv").write_text(TIMES, encoding="utf-8")
    run("autograde", "ps1", str(subs), "--times", str(root / "times.csv"), *at)
    return {"root": root, "at": at, "out": root / "autograded" / "ps1"}


def chinese_everywhere(course: dict[str, Any]) -> dict[str, Any]:
    """li's page and Gradescope file are Chinese; li's entry in results.json."""
    run("feedback", "ps1", *course["at"])
    page = (course["out"] / "feedback" / "li.html").read_text(encoding="utf-8")
    assert '<html lang="zh">' in page
    text = unescape(re.sub(r"<[^>]+>", "", page))
    assert "需要复习" in text or "所有答案都正确" in text, text[:400]
    assert "To review" not in text and "Feedback for" not in text
    gradescope = json.loads((course["out"] / "gradescope" / "li.json").read_text("utf-8"))
    assert gradescope["output"].startswith("**得分："), gradescope["output"]
    results = json.loads((course["out"] / "results.json").read_text(encoding="utf-8"))
    li: dict[str, Any] = next(s for s in results["students"] if s["student"] == "li")
    assert li["language"] == "zh"
    return li


#: An instructor's term for li, in order: each decision acts on what the one before left.
DECISIONS = (
    ("extend", "li", "ps1", "--days", "2"),
    ("extend", "li", "ps1", "--until", "2036-10-09T12:00"),
    ("extend", "li", "ps1", "--clear"),
    ("override", "li", "ps1", MISSED, "1", "--reason", "题目有歧义"),
    ("override", "li", "ps1", MISSED, "--clear"),
    ("regrade", "li", "ps1"),
    ("drop", "li", "ps1"),
    ("drop", "li", "ps1", "--undo"),
    ("drop", "li"),
    ("drop", "li", "--undo"),
)


def test_every_decision_keeps_the_learner_s_language(course: dict[str, Any]) -> None:
    assert chinese_everywhere(course)["late_factor"] == 0.9
    for decision in DECISIONS:
        run(*decision, *course["at"])
        if decision[0] == "drop" and "--undo" not in decision:
            assert not (course["out"] / "gradescope" / "li.json").exists(), decision
            continue
        li = chinese_everywhere(course)
        if decision[0] == "override" and "--clear" not in decision:
            # The instructor's points, in Chinese; the question leaves the review list.
            page = (course["out"] / "feedback" / "li.html").read_text(encoding="utf-8")
            assert "老师已调整 · 1 / 1" in page and "老师调整了分数：题目有歧义" in page
            assert f'<a href="#{MISSED}">' not in page
        extended = decision[0] == "extend" and "--clear" not in decision
        assert li["late_factor"] == (1.0 if extended else 0.9), decision
