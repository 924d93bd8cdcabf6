"""A learner reads graders in the language their notebook was released in, wherever they
read it: their feedback page, why their notebook could not be graded, a CI log, a GitHub
job summary, Gradescope's results, a pytest failure, the class report's list.

The bundled ps2, released in Chinese and in English. ada hands in the Chinese notebook
with an answer matching a misconception and one that cannot be read; eve hands in her
Chinese ps1 notebook for ps2; fay a file that is not a notebook at all (it says no
language); gus his Chinese ps2 after the late cutoff.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path
from typing import Any

import pytest
import yaml
from chinese_class import UNREADABLE, bundled_course, two_misses
from ci_support import venv_env
from click.testing import CliRunner, Result
from notebook_helpers import fill, load_nb, save_nb

from graders.cli import main
from graders.results import ResultsDocument
from graders.said import render

# Its many in-process commands share one warm sandbox (tests/warm_sandbox.py).
pytestmark = pytest.mark.usefixtures("warm_sandbox")

CANNOT_READ_ZH = "无法读取这个答案：其中有未闭合的括号"
MISCONCEPTION_ZH = "这个答案符合一个常见误解：以为修改 .data 不会有害。"  # its label, course.yml's
WRONG_ASSIGNMENT_ZH = "这个笔记本属于作业 'ps1'，而不是 'ps2'"
NOT_JSON_ZH = "不是笔记本：第 1 行第 1 列的 JSON 无效"
LATE_ZH = "已超过迟交期限"
# Each learner has their own variant of some of ps2: CI names them, as a platform would.
ADA = ("--student", "ada", "--no-late-policy")
EVE = ("--student", "eve", "--no-late-policy")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def run(*args: str) -> str:
    done = invoke(*args)
    assert done.exit_code == 0, done.output
    return done.output


def text_of(path: Path) -> str:
    return unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = bundled_course(tmp_path_factory.mktemp("course"))
    course = ("--course", str(root))
    for assignment in ("ps1", "ps2"):
        run("release", assignment, "--lang", "zh", "--out", str(root / "zh"), *course)
    answers = two_misses(root, json.loads(run("key", "ps2", "--json", *course)))
    chinese = fill(load_nb(root / "zh" / "ps2" / "ps2.ipynb"), answers)
    subs = root / "submissions"
    ada = save_nb(chinese, subs / "ada" / "ps2.ipynb")
    save_nb(load_nb(root / "zh" / "ps1" / "ps1.ipynb"), subs / "eve" / "ps2.ipynb")
    (subs / "fay").mkdir()
    (subs / "fay" / "ps2.ipynb").write_text("this is not JSON", encoding="utf-8")
    save_nb(chinese, subs / "gus" / "ps2" / "ps2.ipynb")
    times = root / "times.csv"  # the instructor's times: gus handed in after the cutoff
    times.write_text("student,submitted_at\ngus,2036-10-20 12:00:00 UTC\n", encoding="utf-8")
    invoke("autograde", "ps2", str(subs), "--times", str(times), *course)
    run("feedback", "ps2", *course)
    run("feedback", "ps2", "--lang", "zh", "--out", str(root / "all-zh"), *course)
    run("report", "ps2", "--lang", "zh", *course)
    return {"root": root, "course": course, "ada": ada, "out": root / "autograded" / "ps2"}


def page(term: dict[str, Any], student: str, folder: Path | None = None) -> str:
    return text_of((folder or term["out"] / "feedback") / f"{student}.html")


def test_why_a_chinese_notebook_could_not_be_graded_is_said_in_chinese(
    term: dict[str, Any],
) -> None:
    eve = page(term, "eve")
    assert "你的提交无法评分" in eve and WRONG_ASSIGNMENT_ZH in eve
    assert "this notebook is for assignment" not in eve
    gus = page(term, "gus")
    assert LATE_ZH in gus and "after the late cutoff" not in gus
    # The reason is kept with the grade as a message, for pages written later in any language.
    results = ResultsDocument.parse((term["out"] / "results.json").read_bytes())
    eve_result = next(s for s in results.students if s.student == "eve")
    assert eve_result.language == "zh" and eve_result.error is not None
    assert WRONG_ASSIGNMENT_ZH in render(eve_result.error, "zh")
    assert render(eve_result.error, "en").endswith(
        "this notebook is for assignment 'ps1', not 'ps2'"
    )


def test_a_misconception_is_named_by_its_label_in_the_page_s_language(
    term: dict[str, Any],
) -> None:
    ada = page(term, "ada")
    assert "你的答案符合一个常见误解：以为修改 .data 不会有害。" in ada
    assert "data change harmless" not in ada and "data-change-harmless" not in ada


def test_a_file_that_says_no_language_is_said_in_the_language_asked(
    term: dict[str, Any],
) -> None:
    assert "not a notebook: invalid JSON at line 1, column 1" in page(term, "fay")
    assert NOT_JSON_ZH in page(term, "fay", term["root"] / "all-zh")


def test_the_chinese_class_report_lists_the_reasons_in_chinese(term: dict[str, Any]) -> None:
    report = text_of(term["out"] / "report.html")
    for reason in (WRONG_ASSIGNMENT_ZH, NOT_JSON_ZH, LATE_ZH):
        assert reason in report, reason
    assert "not a notebook" not in report


def test_graders_ci_speaks_the_notebook_s_language(term: dict[str, Any], tmp_path: Path) -> None:
    reports = {
        "--gradescope": tmp_path / "results.json",
        "--summary": tmp_path / "summary.md",
        "--junit": tmp_path / "junit.xml",
    }
    options = [str(a) for pair in reports.items() for a in pair]
    done = invoke("ci", str(term["ada"]), *ADA, *term["course"], *options)
    assert done.exit_code == 0, done.output
    log = done.output
    assert CANNOT_READ_ZH in log and MISCONCEPTION_ZH in log and "隔离级别" in log
    assert "Could not read this answer" not in log and "misconception" not in log
    assert "data-change-harmless" not in log and "data change harmless" not in log
    assert re.search(r"^graders: [\d.]+/[\d.]+ points$", log.splitlines()[-1])  # for scripts
    gradescope = json.loads(reports["--gradescope"].read_text(encoding="utf-8"))
    assert gradescope["output"].startswith("**得分：")
    outputs = "\n".join(test["output"] for test in gradescope["tests"])
    assert CANNOT_READ_ZH in outputs and MISCONCEPTION_ZH in outputs
    assert any(test["name"].endswith(": 正确答案") for test in gradescope["tests"])
    # Questions named as the Chinese notebook names them, the id on the line below.
    assert all(test["name"].startswith(("问题 ", "练习 ")) for test in gradescope["tests"])
    assert re.search(r"^  [✓✗?–!] 问题 1\.1 — .+  [\d.]+/[\d.]+$", log, re.M)
    assert f"      ({UNREADABLE})" in log.splitlines()
    summary = reports["--summary"].read_text(encoding="utf-8")
    assert "| | 题目 | 分数 |" in summary and CANNOT_READ_ZH in summary
    assert CANNOT_READ_ZH in reports["--junit"].read_text(encoding="utf-8")

    english = invoke("ci", str(term["ada"]), *ADA, "--lang", "en", *term["course"])
    assert "Could not read this answer: it has an unclosed bracket" in english.output
    assert "This answer matches a common misconception: changing .data is harmless." in (
        english.output
    )
    assert CANNOT_READ_ZH not in english.output


def test_graders_ci_says_why_a_chinese_notebook_cannot_be_graded(term: dict[str, Any]) -> None:
    eve = term["root"] / "submissions" / "eve" / "ps2.ipynb"
    done = invoke("ci", str(eve), "--assignment", "ps2", *EVE, *term["course"])
    assert done.exit_code == 2, done.output
    assert "无法评分：" in done.output and WRONG_ASSIGNMENT_ZH in done.output


def test_a_language_the_course_lacks_stops_ci_before_grading(term: dict[str, Any]) -> None:
    done = invoke("ci", str(term["ada"]), *ADA, "--lang", "fr", *term["course"])
    assert done.exit_code == 2
    assert "--lang fr: the course has no language 'fr'" in done.output


def test_autograde_s_gradescope_files_speak_each_learner_s_language(
    term: dict[str, Any],
) -> None:
    ada = json.loads((term["out"] / "gradescope" / "ada.json").read_text(encoding="utf-8"))
    assert ada["output"].startswith("**得分：")
    assert CANNOT_READ_ZH in "\n".join(test["output"] for test in ada["tests"])
    assert all(test["name"].startswith(("问题 ", "练习 ")) for test in ada["tests"])
    fay = json.loads((term["out"] / "gradescope" / "fay.json").read_text(encoding="utf-8"))
    assert fay["output"].startswith("**Score:")  # her file said no language


def test_the_pytest_plugin_fails_in_the_notebook_s_language(term: dict[str, Any]) -> None:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    command += ["-p", "graders.integrations.pytest_plugin"] if not _plugin_installed() else []
    command += [f"--graders-notebook={term['ada']}", f"--graders-course={term['root']}"]
    command += ["--graders-student=ada"]
    done = subprocess.run(command, cwd=term["root"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    assert CANNOT_READ_ZH in done.stdout and MISCONCEPTION_ZH in done.stdout
    forced = subprocess.run(
        [*command, "--graders-lang=en"], cwd=term["root"], capture_output=True, text=True
    )
    assert "Could not read this answer" in forced.stdout and CANNOT_READ_ZH not in forced.stdout


def _plugin_installed() -> bool:
    from importlib.metadata import entry_points

    return any(ep.name == "graders" for ep in entry_points(group="pytest11"))


def test_a_chinese_learner_s_repository_workflow_speaks_chinese(
    term: dict[str, Any], tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(term["ada"].parent, repo)
    done = invoke("init-ci", "github", "--repo", str(repo), *term["course"])
    assert done.exit_code == 0, done.output
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "autograde.yml").read_text())
    (check,) = (s for s in workflow["jobs"]["check"]["steps"] if s.get("name") == "Check")
    summary = tmp_path / "summary.md"
    env = venv_env(GITHUB_STEP_SUMMARY=str(summary))
    script = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", check["run"]]
    ran = subprocess.run(script, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 1, ran.stdout + ran.stderr  # one answer cannot be read
    said = summary.read_text(encoding="utf-8")
    assert "### ps2.ipynb：评分程序能读取它吗？" in said
    assert "成绩和反馈由课程的评分程序发布在这个仓库的 `graders-feedback` 分支上。" in said
    assert "评分程序读不懂你的 1 个答案" in said  # graders check, in the notebook's language

    forced = invoke(
        "init-ci", "github", "--repo", str(repo), "--lang", "en", "--force", *term["course"]
    )
    assert forced.exit_code == 0, forced.output
    text = (repo / ".github" / "workflows" / "autograde.yml").read_text()
    assert "ps2.ipynb: can the grader read it?" in text and "评分程序" not in text


def test_graders_check_says_why_in_the_notebook_s_language(term: dict[str, Any]) -> None:
    eve = term["root"] / "submissions" / "eve" / "ps2.ipynb"
    done = invoke("check", str(eve), "--assignment", "ps2")
    assert done.exit_code != 0 and WRONG_ASSIGNMENT_ZH in done.output, done.output
    fay = term["root"] / "submissions" / "fay" / "ps2.ipynb"
    assert NOT_JSON_ZH in invoke("check", str(fay), "--lang", "zh").output
