"""ps1's key typed on a Chinese keyboard, in a notebook released in Chinese, earns full marks.

A Chinese input method types `（`, `，`, `。`, `：`, `【】`, `《》` and `——` where Python
wants ASCII punctuation, curly quotes where it wants `"`, and `没有报错` for "no error".
ada's notebook, released with `graders release ps1 --lang zh`, holds her own variant's key
typed that way; `graders check` reads every answer and `graders autograde` gives her full
marks. bob's holds a character the grader cannot read: the check names it and what to type
instead, in Chinese.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from chinese_class import bundled_course
from click.testing import CliRunner
from notebook_helpers import answer_index, fill, load_nb, save_nb

from graders.cli import main
from graders.said import from_json, render

# Its many in-process commands share one warm sandbox (tests/warm_sandbox.py).
pytestmark = pytest.mark.usefixtures("warm_sandbox")

# What a Chinese input method types for each ASCII character of an answer.
CHINESE_KEYS = str.maketrans(
    {
        "(": "（",
        ")": "）",
        ",": "，",
        ".": "。",
        ":": "：",
        "[": "【",
        "]": "】",
        "<": "《",
        ">": "》",
        "=": "＝",
        "_": "——",
    }
)
WORD = re.compile(r"[A-Za-z]+")


def run(*args: str) -> str:
    done = CliRunner().invoke(main, list(args))
    assert done.exit_code == 0, done.output
    return done.output


def typed_in_chinese(literal: str, n: int) -> str:
    """The answer cell a learner with a Chinese input method writes for ``literal``."""
    if literal == "no error":
        return 'answer = "没有报错。"' if n % 2 else "answer = “不报错”"
    if literal.endswith("Error"):  # a traceback's last line, its colon typed in Chinese
        return f'answer = "{literal}：a leaf Variable that requires grad……"'
    if WORD.fullmatch(literal):  # True, False, None: in the quotes the keyboard types
        return f"answer = “{literal}”" if n % 2 else f"answer = 「{literal}」"
    typed = literal.translate(CHINESE_KEYS)
    if n % 3 == 0:
        typed = typed.replace("，", "、") + "。"  # the other comma, and a full stop
    return f"answer = {json.dumps(typed, ensure_ascii=False)}"


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = bundled_course(tmp_path_factory.mktemp("course"))
    course = ("--course", str(root))
    run("release", "ps1", "--lang", "zh", "--out", str(root / "zh"), *course)
    released = load_nb(root / "zh" / "ps1" / "ps1.ipynb")
    key = json.loads(run("key", "ps1", "--json", "--student", "ada", *course))
    typed = {k: typed_in_chinese(v, n) for n, (k, v) in enumerate(key.items()) if "/" in k}
    ada = fill(released, {k: v for k, v in key.items() if "/" not in k})  # the code exercise
    cells = answer_index(ada)
    for item, source in typed.items():
        ada["cells"][cells[item]]["source"] = source
    subs = root / "submissions"
    save_nb(ada, subs / "ada" / "ps1.ipynb")
    bob = fill(released, {"clone-requires-grad/flags": "（True，True）—"})
    save_nb(bob, subs / "bob" / "ps1.ipynb")
    checked = {
        s: CliRunner().invoke(main, ["check", str(subs / s / "ps1.ipynb")]) for s in ("ada", "bob")
    }
    run("autograde", "ps1", str(subs), *course)
    results = json.loads((root / "autograded" / "ps1" / "results.json").read_text("utf-8"))
    return {
        "typed": typed,
        "check": checked,
        "results": {s["student"]: s for s in results["students"]},
    }


def test_the_answers_are_typed_the_chinese_way(term: dict[str, Any]) -> None:
    typed = "\n".join(term["typed"].values())
    for mark in ("（", "，", "、", "。", "：", "【", "《", "——", "“", "「", "没有报错", "不报错"):
        assert mark in typed, mark


def test_the_check_reads_every_answer(term: dict[str, Any]) -> None:
    checked = term["check"]["ada"]
    assert checked.exit_code == 0, checked.output
    assert "评分程序读不懂" not in checked.output
    assert re.search(r"(\d+) 个答案中有 \1 个可以读取", checked.output), checked.output
    # Cells in curly quotes are read, and in a notebook released now they do not stop Run
    # All (its first cell runs answer cells as text): no stop, a note on the quotes.
    assert "SyntaxError" not in checked.output, checked.output
    assert "答案两边的引号不是 Python 读取的引号" in checked.output, checked.output


def test_ps1_typed_on_a_chinese_keyboard_earns_full_marks(term: dict[str, Any]) -> None:
    ada = term["results"]["ada"]
    wrong = {q["id"]: (q["answer"], q["status"]) for q in ada["questions"]}
    wrong = {k: v for k, v in wrong.items() if v[1] != "correct"}
    assert wrong == {}
    assert ada["score"] == pytest.approx(ada["max_score"])


def test_the_feedback_says_how_the_answers_were_read(term: dict[str, Any]) -> None:
    # The feedback is stored as parts: written here in English, as an English page shows it.
    feedback = [render(from_json(q["feedback"]), "en") for q in term["results"]["ada"]["questions"]]
    notes = "\n".join(feedback)
    assert "Read as `(True, True)`, in the ASCII characters Python reads." in notes
    assert "The quotes around the answer are not the ones Python reads" in notes


def test_the_check_names_a_character_it_cannot_read_in_chinese(term: dict[str, Any]) -> None:
    checked = term["check"]["bob"]
    assert checked.exit_code == 1, checked.output
    assert "其中第 12 个字符 `—`（U+2014）Python 读不了：请改为输入 `-`" in checked.output


def test_bob_s_unreadable_answer_is_invalid_not_wrong(term: dict[str, Any]) -> None:
    bob = {q["id"]: q["status"] for q in term["results"]["bob"]["questions"]}
    assert bob["clone-requires-grad/flags"] == "invalid"
