"""Before the due date a learner who missed questions reads none of their expected answers,
in any text graders writes for them: the feedback page, `graders ci`'s log, job summary,
JUnit report and Gradescope file (the tests Gradescope shows before the due date), the
Gradescope files of `graders autograde`, and the pytest plugin's failures.

Every problem set of the bundled course, each handed in by two learners in their own
variants, wu in English and li in Chinese, with every answer missed: a misconception's
answer where the question declares one, else a wrong answer, some left unanswered or
unreadable; each code exercise crashing or returning a wrong value. An expected answer
may appear only where the learner's own notebook (as released to them, and as they
filled it in) already holds it; a lone True or False is not looked for, as the status of
a yes/no question says it (the README says so). The explanations that would give the key
away come with it, after the due date: a test at the end checks they do.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from chinese_class import bundled_assignments, bundled_course
from click.testing import CliRunner
from notebook_helpers import answer_index, fill, load_nb, save_nb

from graders.cli import main

# Its many in-process commands share one warm sandbox (tests/warm_sandbox.py).
pytestmark = pytest.mark.usefixtures("warm_sandbox")

ASSIGNMENTS = bundled_assignments()
LEARNERS = {"wu": "en", "li": "zh"}
CRASH = "def {entry}(*args, **kwargs):\n    raise ValueError('not yet')\n"
WRONG_CODE = "def {entry}(*args, **kwargs):\n    return args[0] if args else None\n"


def run(*args: str) -> str:
    done = CliRunner().invoke(main, list(args))
    assert done.exit_code == 0, done.output
    return done.output


def text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def misses(root: Path, key: dict[str, str], nb: dict[str, Any]) -> dict[str, str]:
    """An answer for every cell of ``nb`` that earns nothing."""
    from graders.workspace import load

    loaded = load(root)
    declared = {
        f"{ex.exercise.id}/{q.id}": [m.answer for m in q.misconceptions]
        for ex in loaded.exercises.values()
        for q in getattr(ex.exercise, "questions", [])
    }
    answers: dict[str, str] = {}
    for n, item in enumerate(answer_index(nb)):
        if item not in key:
            continue
        if "/" not in item:  # a code exercise: its entry is the function the cell defines
            entry = re.search(r"def (\w+)\(", key[item]).group(1)  # type: ignore[union-attr]
            answers[item] = (CRASH if n % 2 else WRONG_CODE).format(entry=entry)
        elif n % 7 == 5:
            answers[item] = "..."  # unanswered
        elif n % 7 == 6:
            answers[item] = "(1, 2"  # not an answer
        else:
            wrong = [a for a in declared.get(item, []) if a != key[item]]
            other = "RuntimeError" if key[item] != "RuntimeError" else "no error"
            answers[item] = wrong[0] if wrong else other
    return answers


def secrets(key: dict[str, str], graded: dict[str, Any], known: str) -> dict[str, str]:
    """Item -> expected answer, for each item missed whose answer ``known`` (the learner's
    own notebook) does not hold and the status does not tell."""
    missed = {q["id"] for q in graded["questions"] if q["status"] != "correct"}
    return {
        item: answer
        for item, answer in key.items()
        if item in missed
        and "/" in item
        and answer not in ("True", "False", "")
        and answer not in known
    }


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The bundled course, and every problem set handed in by wu and li, all missed."""
    root = bundled_course(tmp_path_factory.mktemp("course"))
    at = ("--course", str(root))
    (root / "roster.csv").write_text("student\nwu\nli\n", encoding="utf-8")
    found: dict[str, Any] = {"root": root, "at": at, "learners": {}}
    for assignment in ASSIGNMENTS:
        for student, language in LEARNERS.items():
            out = root / "release" / language
            run("release", assignment, "--roster", str(root / "roster.csv"), "--lang", language,
                "--out", str(out), *at)  # fmt: skip
            nb = load_nb(out / assignment / student / f"{assignment}.ipynb")
            key = json.loads(run("key", assignment, "--student", student, "--json", *at))
            handed = fill(nb, misses(root, key, nb))
            path = save_nb(
                handed, root / "submissions" / assignment / student / f"{assignment}.ipynb"
            )
            known = "\n".join(cell["source"] for cell in handed["cells"])
            found["learners"][assignment, student] = {"key": key, "known": known, "path": path}
        run("autograde", assignment, str(root / "submissions" / assignment), *at)
        run("feedback", assignment, *at)
        results = json.loads((root / "autograded" / assignment / "results.json").read_text())
        for graded in results["students"]:
            mine = found["learners"][assignment, graded["student"]]
            mine["secrets"] = secrets(mine["key"], graded, mine["known"])
            mine["graded"] = graded
    return found


def learners() -> list[Any]:
    return [pytest.param(a, s, id=f"{a}-{s}") for a in ASSIGNMENTS for s in LEARNERS]


def leaks(text: str, secret: dict[str, str]) -> dict[str, str]:
    return {item: answer for item, answer in secret.items() if answer in text}


@pytest.mark.parametrize(("assignment", "student"), learners())
def test_no_page_or_gradescope_file_holds_a_missed_answer(
    term: dict[str, Any], assignment: str, student: str
) -> None:
    mine = term["learners"][assignment, student]
    assert mine["secrets"], "every answer of the key is in the notebook: nothing to look for"
    out = term["root"] / "autograded" / assignment
    page = (out / "feedback" / f"{student}.html").read_text(encoding="utf-8")
    assert f'<html lang="{LEARNERS[student]}">' in page
    assert leaks(text_of(page), mine["secrets"]) == {}
    gradescope = json.loads((out / "gradescope" / f"{student}.json").read_text("utf-8"))
    assert leaks(visible_now(gradescope), mine["secrets"]) == {}


def visible_now(gradescope: dict[str, Any]) -> str:
    """What Gradescope shows a learner before the due date."""
    shown = [t["output"] for t in gradescope["tests"] if t.get("visibility") == "visible"]
    return "\n".join([gradescope["output"], *shown])


@pytest.mark.parametrize(("assignment", "student"), learners())
def test_graders_ci_holds_no_missed_answer(
    term: dict[str, Any], assignment: str, student: str, tmp_path: Path
) -> None:
    mine = term["learners"][assignment, student]
    reports = {
        "--gradescope": tmp_path / "results.json",
        "--summary": tmp_path / "summary.md",
        "--junit": tmp_path / "junit.xml",
    }
    options = [str(a) for pair in reports.items() for a in pair]
    done = CliRunner().invoke(
        main, ["ci", str(mine["path"]), "--student", student, *term["at"], *options]
    )
    assert done.exit_code == 0, done.output
    assert leaks(done.output, mine["secrets"]) == {}
    assert leaks(reports["--summary"].read_text("utf-8"), mine["secrets"]) == {}
    assert leaks(unescape(reports["--junit"].read_text("utf-8")), mine["secrets"]) == {}
    gradescope = json.loads(reports["--gradescope"].read_text("utf-8"))
    assert leaks(visible_now(gradescope), mine["secrets"]) == {}


@pytest.mark.parametrize("student", list(LEARNERS))
def test_the_pytest_plugin_holds_no_missed_answer(term: dict[str, Any], student: str) -> None:
    mine = term["learners"]["ps2", student]
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    command += ["-p", "graders.integrations.pytest_plugin"] if not _plugin_installed() else []
    command += [f"--graders-notebook={mine['path']}", f"--graders-course={term['root']}"]
    command += [f"--graders-student={student}"]
    done = subprocess.run(command, cwd=term["root"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "failed" in done.stdout
    assert leaks(done.stdout, mine["secrets"]) == {}


def _plugin_installed() -> bool:
    from importlib.metadata import entry_points

    return any(ep.name == "graders" for ep in entry_points(group="pytest11"))


def test_a_crash_is_said_once_in_the_learner_s_language(term: dict[str, Any]) -> None:
    out = term["root"] / "autograded" / "ps1" / "feedback"
    page = text_of((out / "li.html").read_text(encoding="utf-8"))
    crashes = re.findall(r"抛出了 ValueError（你代码的第 \d+ 行）：not yet", page)
    assert len(crashes) == 1, page
    assert "raised ValueError" not in page


def test_after_the_due_date_the_explanations_come_with_the_key(term: dict[str, Any]) -> None:
    root, at = term["root"], term["at"]
    held = "The explanation of this question comes with the expected answer."
    before = text_of((root / "autograded" / "ps1" / "feedback" / "wu.html").read_text())
    assert held in before
    course = root / "course.yml"
    text = course.read_text(encoding="utf-8")
    course.write_text(text.replace('due: "2036-10-05', 'due: "2020-10-05'), encoding="utf-8")
    try:
        run("feedback", "ps1", "--out", str(root / "after"), *at)
    finally:
        course.write_text(text, encoding="utf-8")
    after = text_of((root / "after" / "wu.html").read_text(encoding="utf-8"))
    mine = term["learners"]["ps1", "wu"]
    assert held not in after
    assert all(answer in after for answer in mine["secrets"].values())


def test_the_misses_match_declared_misconceptions(term: dict[str, Any]) -> None:
    # The misconceptions' explanations, shown before the due date, are among the texts read.
    matched = [
        q["misconception"]
        for mine in term["learners"].values()
        for q in mine["graded"]["questions"]
        if q.get("misconception")
    ]
    assert len(matched) >= 20, matched
