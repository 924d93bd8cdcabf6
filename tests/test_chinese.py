"""A Chinese class of the bundled ps2, end to end, and in a real browser.

`graders release ps2 --lang zh` writes the notebook; a learner fills it in (one answer
matching a declared misconception, one that cannot be read) and checks it; `graders
autograde` grades it (grading never depends on the language: answers are literals);
`graders feedback ps2 --lang zh` and `graders report ps2 --lang zh` write the pages,
whose own words come from the Chinese catalogue and whose course texts are the course's
Chinese ones. Chromium opens one feedback page and the report: screenshots go to
test-artifacts/ (feedback-zh.png, report-zh.png).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from chinese_class import UNREADABLE, WRONG, bundled_course, two_misses
from click.testing import CliRunner
from in_browser import artifact, launched_chromium, needs_browser
from notebook_helpers import fill, load_nb, save_nb
from what_starts import starts

from graders.cli import main
from graders.workspace import load

# Its many in-process commands share one warm sandbox (tests/warm_sandbox.py).
pytestmark = pytest.mark.usefixtures("warm_sandbox")


def run(*args: str) -> str:
    done = CliRunner().invoke(main, list(args))
    assert done.exit_code == 0, done.output
    return done.output


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The course, ada's Chinese notebook as handed in, and what was written from it."""
    root = bundled_course(tmp_path_factory.mktemp("course"))
    course = ("--course", str(root))
    run("release", "ps2", "--lang", "zh", "--out", str(root / "release"), *course)
    answers = two_misses(root, json.loads(run("key", "ps2", "--json", *course)))
    loaded = load(root)
    released = load_nb(root / "release" / "ps2" / "ps2.ipynb")
    handed_in = save_nb(fill(released, answers), root / "submissions" / "ada" / "ps2.ipynb")
    # bob hands in the notebook released in English; cy's says a language the course lacks.
    run("release", "ps2", "--out", str(root / "release-en"), *course)
    english = load_nb(root / "release-en" / "ps2" / "ps2.ipynb")
    save_nb(fill(english, answers), root / "submissions" / "bob" / "ps2.ipynb")
    edited = fill(released, answers)
    edited["metadata"]["graders"]["language"] = "fr"
    save_nb(edited, root / "submissions" / "cy" / "ps2.ipynb")
    checked = CliRunner().invoke(main, ["check", str(handed_in)])
    checked_en = CliRunner().invoke(main, ["check", str(handed_in), "--lang", "en"])
    CliRunner().invoke(main, ["autograde", "ps2", str(root / "submissions"), *course])
    run("feedback", "ps2", "--lang", "zh", *course)
    run("report", "ps2", "--lang", "zh", *course)
    run("feedback", "ps2", "--out", str(root / "own-language"), *course)
    return {
        "root": root,
        "notebook": released,
        "check": checked,
        "check_en": checked_en,
        "zh": loaded.in_language("zh"),
        "en": loaded,
        "feedback": (root / "autograded" / "ps2" / "feedback" / "ada.html"),
        "report": (root / "autograded" / "ps2" / "report.html"),
    }


def text_of(path: Path) -> str:
    html = path.read_text(encoding="utf-8")
    return unescape(re.sub(r"<[^>]+>", "", html))


def question(loaded: Any, item: str) -> Any:
    exercise, qid = item.split("/")
    return next(q for q in loaded.exercises[exercise].exercise.questions if q.id == qid)


def test_the_released_notebook_speaks_chinese(term: dict[str, Any]) -> None:
    nb = term["notebook"]
    intro = nb["cells"][0]["source"]
    assert intro.startswith("# .data 与 .detach()")
    for words in (
        "## 如何作答",
        "迟交：",
        "这些练习对应原文的 §4",
        "| # | 练习 | 原文章节 | 分数 |",
    ):
        assert words in intro
    prompts = [c["source"] for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert any(p.startswith("**问题 1.1**（1 分）") for p in prompts)
    assert any(p.startswith("## 1. .data 与 .detach()") and "原文 **§4**" in p for p in prompts)
    assert question(term["zh"], "data-vs-detach/flags").prompt.strip() in "\n".join(prompts)
    meta = nb["metadata"]["graders"]
    assert meta["language"] == "zh" and meta["labels"][UNREADABLE].startswith("问题 1.1 — ")


def test_the_check_answers_in_the_notebook_s_language(term: dict[str, Any]) -> None:
    checked, checked_en = term["check"], term["check_en"]
    assert checked.exit_code == 1, checked.output
    assert "评分程序读不懂你的 1 个答案：" in checked.output
    assert "  - 问题 1.1 — " in checked.output
    # Why it cannot be read, in graders' own words: in Chinese too.
    assert "无法读取这个答案：其中有未闭合的括号：`(` 没有闭合。" in checked.output
    assert "这项检查从不告诉你答案是否正确。" in checked.output
    assert "The grader cannot read 1 of your answers:" in checked_en.output
    assert "Could not read this answer: it has an unclosed bracket" in checked_en.output
    assert "  - 问题 1.1 — " in checked_en.output  # the notebook's own labels, as released


def test_the_feedback_page_speaks_chinese(term: dict[str, Any]) -> None:
    html = term["feedback"].read_text(encoding="utf-8")
    text = text_of(term["feedback"])
    assert '<html lang="zh">' in html
    for words in ("给 ada 的反馈", "需要复习", "你的答案", "你的答案符合一个常见误解", "原文 §4"):
        assert words in text, words
    wrong_zh, wrong_en = question(term["zh"], WRONG), question(term["en"], WRONG)
    # The misconception's explanation, in Chinese only; the question's comes with the key.
    zh, en = wrong_zh.misconceptions[0].explain, wrong_en.misconceptions[0].explain
    assert first_line(zh) in text and first_line(en) not in text
    assert first_line(wrong_zh.explain) not in text and first_line(wrong_en.explain) not in text
    assert "这道题的解释会和正确答案一起给出。" in text
    assert first_line(question(term["zh"], WRONG).prompt) in text
    # graders' own sentences, written when ada was graded, in Chinese as well.
    assert "无法读取这个答案：其中有未闭合的括号" in text
    for english in ("Could not read this answer", "Got ", "Write a Python literal"):
        assert english not in text, english


def test_without_lang_each_page_speaks_its_learner_s_notebook_s_language(
    term: dict[str, Any],
) -> None:
    own = term["root"] / "own-language"
    pages = {p.stem: p.read_text(encoding="utf-8") for p in own.iterdir()}
    assert '<html lang="zh">' in pages["ada"]
    assert "给 ada 的反馈" in text_of(own / "ada.html")
    assert "无法读取这个答案：其中有未闭合的括号" in text_of(own / "ada.html")
    assert '<html lang="en">' in pages["bob"] and "Feedback for bob" in text_of(own / "bob.html")
    # A language the course does not have is no language at all: the course's first.
    assert '<html lang="en">' in pages["cy"]
    with_lang = term["feedback"].with_name("bob.html").read_text(encoding="utf-8")
    assert '<html lang="zh">' in with_lang  # --lang speaks for every page


def test_the_class_report_speaks_chinese(term: dict[str, Any]) -> None:
    text = text_of(term["report"])
    for words in (
        "班级报告",
        "得分分布",
        "题目（由难到易）",
        "误解",
        "全部学生",
        "可能需要帮助的学生",
    ):
        assert words in text, words
    wrong = question(term["zh"], WRONG)
    assert first_line(wrong.misconceptions[0].explain) in text
    assert "通过 .data 把 sigmoid 的输出清零" in text  # the exercise's Chinese title


def test_a_language_the_course_lacks_is_a_usage_error(term: dict[str, Any]) -> None:
    course = ("--course", str(term["root"]))
    for args in (("release", "ps2"), ("feedback", "ps2"), ("report", "ps2")):
        done = CliRunner().invoke(main, [*args, "--lang", "fr", *course])
        assert done.exit_code == 2, done.output
        assert "--lang fr: the course has no language 'fr' (its languages: en, zh)" in done.output


def first_line(text: str) -> str:
    """A text's first line, without the markup the page renders (`code`)."""
    return text.strip().splitlines()[0].replace("`", "")[:40]


@pytest.fixture(scope="module")
@starts("browser")
def chromium() -> Iterator[Any]:
    with launched_chromium() as launched:
        yield launched


def opened(chromium: Any, path: Path) -> Any:
    tab = chromium.new_page(viewport={"width": 1100, "height": 1400})
    tab.route("**/*", lambda r: r.continue_() if r.request.url == path.as_uri() else r.abort())
    tab.goto(path.as_uri())
    return tab


@needs_browser
def test_a_chinese_feedback_page_in_a_browser(term: dict[str, Any], chromium: Any) -> None:
    tab = opened(chromium, term["feedback"])
    assert tab.locator("header .muted").nth(1).inner_text().startswith("给 ada 的反馈")
    assert tab.locator("section.summary h2").inner_text().startswith("需要复习")
    missed = tab.locator("article.question.wrong")
    assert missed.count() >= 1
    shown = missed.first.inner_text()
    assert "你的答案" in shown and "不正确" in shown
    wrong = question(term["zh"], WRONG)
    body = tab.inner_text("body")
    assert first_line(wrong.misconceptions[0].explain) in body
    tab.screenshot(path=str(artifact("feedback-zh.png")), full_page=True)
    assert artifact("feedback-zh.png").stat().st_size > 10_000


@needs_browser
def test_a_chinese_class_report_in_a_browser(term: dict[str, Any], chromium: Any) -> None:
    tab = opened(chromium, term["report"])
    headings = tab.locator("h2").all_inner_texts()
    for heading in ("得分分布", "题目（由难到易）", "误解", "全部学生"):
        assert heading in headings, headings
    assert tab.locator("#kpi-count").inner_text() == "3"  # ada, bob and cy
    kpis = tab.locator("dl.kpis dt").all_inner_texts()
    assert kpis[:3] == ["已评分", "平均分", "中位数"]
    tab.screenshot(path=str(artifact("report-zh.png")), full_page=True)
    assert artifact("report-zh.png").stat().st_size > 10_000


def test_one_release_serves_a_class_of_both_languages_by_the_roster(term: dict[str, Any]) -> None:
    """The roster's ``language`` column: each learner's notebook in theirs, the release's
    language for those without one; a language the course lacks is named with its line."""
    root = term["root"]
    course = ("--course", str(root))
    roster = root / "roster-languages.csv"
    roster.write_text("student,language\nada,zh\nbob,\ncy,en\n", encoding="utf-8")
    out = root / "release-both"
    run("release", "ps2", "--roster", str(roster), "--out", str(out), *course)
    spoken = {
        who: load_nb(out / "ps2" / who / "ps2.ipynb")["metadata"]["graders"].get("language")
        for who in ("ada", "bob", "cy")
    }
    assert spoken["ada"] == "zh" and spoken["bob"] == spoken["cy"] != "zh"  # the default
    assert "作业" in json.dumps(load_nb(out / "ps2" / "ada" / "ps2.ipynb"), ensure_ascii=False)
    roster.write_text("student,language\nada,zh\ndan,fr\n", encoding="utf-8")
    refused = CliRunner().invoke(
        main, ["release", "ps2", "--roster", str(roster), "--out", str(out), *course]
    )
    assert refused.exit_code == 2
    assert f"{roster}:3: language 'fr' is not one of the course's: en, zh" in refused.output
