"""The pytest plugin, run as learners and CI jobs run it: pytest in a subprocess, in a
folder holding a notebook, reporting one test per question with its points in JUnit XML."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from ci_support import (
    KEY,
    MAX_CI1,
    plugin_args,
    venv_env,
    write_course,
    write_notebook,
    wrong_answers,
)

import graders.reports
from graders.integrations.pytest_plugin import leave_graders_unrewritten

# Every test here runs pytest with graders' plugin in a process of its own.
pytestmark = pytest.mark.command

XSD = Path(__file__).resolve().parent.parent / "data" / "schemas" / "junit-10.xsd"


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CI course, its assignments closed: the plugin applies no late policy, and its
    failures show what a closed assignment shows (the expected answers)."""
    course = write_course(tmp_path_factory.mktemp("course"))
    yml = course / "course.yml"
    yml.write_text(yml.read_text().replace("2036-10", "2020-10"))
    return course


def run_pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", *plugin_args(), "-p", "no:cacheprovider", *args]
    return subprocess.run(
        command, cwd=cwd, env=venv_env(), capture_output=True, text=True, timeout=600
    )


def junit_cases(path: Path) -> dict[str, ET.Element]:
    return {case.get("name"): case for case in ET.parse(path).getroot().iter("testcase")}


def properties(case: ET.Element) -> dict[str, str]:
    return {p.get("name"): p.get("value") for p in case.iter("property")}


def points_of(report: Path, item: str) -> dict[str, str]:
    """A question's points as pytest's default JUnit family (xunit2) holds them: suite
    properties, the report being valid against that family's schema."""
    xmlschema.XMLSchema(str(XSD)).validate(str(report))
    suite = ET.parse(report).getroot().find("testsuite")
    props = properties(suite)
    return {key: props[f"{key}:{item}"] for key in ("points", "max_points", "status")}


def test_a_correct_notebook_in_a_student_repository(course: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".graders").mkdir()
    (repo / ".graders" / "course").symlink_to(course)  # where init-ci puts the course
    write_notebook(repo / "work" / "ci1.ipynb", KEY)
    # Run from outside the repository: the course is found next to the notebook.
    run = run_pytest(tmp_path, "--graders-notebook=repo/work/ci1.ipynb", "--junitxml=report.xml")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == f"graders: {MAX_CI1}/{MAX_CI1} points"
    cases = junit_cases(tmp_path / "report.xml")
    assert list(cases) == list(KEY)  # one test per question, named <exercise>/<question>
    points = {name: points_of(tmp_path / "report.xml", name) for name in cases}
    assert points["clone-basics/grad"] == {
        "points": "2.0",
        "max_points": "2.0",
        "status": "correct",
    }
    assert sum(float(p["points"]) for p in points.values()) == MAX_CI1


def test_without_a_course_the_message_names_the_plugin_option(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_notebook(tmp_path / "ci1.ipynb", KEY)
    run = run_pytest(tmp_path, "--graders-notebook=ci1.ipynb")
    assert run.returncode == pytest.ExitCode.USAGE_ERROR
    assert "--graders-course=PATH" in run.stderr and " --course" not in run.stderr
    run = run_pytest(tmp_path, "--graders-notebook=ci1.ipynb", "--graders-course=nowhere")
    assert "--graders-course=nowhere: no course.yml there" in run.stderr


def test_a_wrong_answer_fails_with_its_feedback_and_no_traceback(
    course: Path, tmp_path: Path
) -> None:
    write_notebook(tmp_path / "ci1.ipynb", wrong_answers())
    run = run_pytest(
        tmp_path,
        "--graders-notebook=ci1.ipynb",
        f"--graders-course={course}",
        "--graders-assignment",
        "ci1",
        "--junitxml",
        "report.xml",
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == f"graders: 5/{MAX_CI1} points"
    assert (
        "Traceback" not in run.stdout
        and "GradingFailure" not in run.stdout
        and "def runtest" not in run.stdout
    )
    cases = junit_cases(tmp_path / "report.xml")
    failed = {name for name, case in cases.items() if case.find("failure") is not None}
    assert failed == {"clone-basics/shares-memory", "clone-basics/grad"}
    failure = cases["clone-basics/shares-memory"].find("failure")
    assert failure.text.startswith("wrong: answered True, expected False")
    assert "Sharing memory is what detach() does (§2)." in failure.text
    assert points_of(tmp_path / "report.xml", "clone-basics/grad") == {
        "points": "0.0",
        "max_points": "2.0",
        "status": "wrong",
    }
    assert properties(cases["clone-basics/grad"]) == {}  # none inside a test case in xunit2


def test_the_legacy_junit_family_keeps_properties_in_test_cases(
    course: Path, tmp_path: Path
) -> None:
    write_notebook(tmp_path / "ci1.ipynb", wrong_answers())
    run = run_pytest(
        tmp_path,
        "--graders-notebook=ci1.ipynb",
        f"--graders-course={course}",
        "--junitxml=report.xml",
        "-o",
        "junit_family=legacy",
    )
    assert run.returncode == 1, run.stdout + run.stderr
    cases = junit_cases(tmp_path / "report.xml")
    assert properties(cases["clone-basics/grad"]) == {
        "points": "0.0",
        "max_points": "2.0",
        "status": "wrong",
    }


def test_a_notebook_that_cannot_be_read_fails_every_question(course: Path, tmp_path: Path) -> None:
    (tmp_path / "ci1.ipynb").write_text("not json")
    run = run_pytest(
        tmp_path,
        "--graders-notebook=ci1.ipynb",
        f"--graders-course={course}",
        "--graders-assignment",
        "ci1",
        "--junitxml",
        "report.xml",
    )
    assert run.returncode == 1
    assert run.stdout.splitlines()[-1] == f"graders: 0/{MAX_CI1} points"
    cases = junit_cases(tmp_path / "report.xml")
    assert len(cases) == len(KEY)
    assert all(
        "could not be graded" in case.find("failure").text
        and "invalid JSON" in case.find("failure").text
        for case in cases.values()
    )


def test_collecting_lists_the_questions_without_grading(course: Path, tmp_path: Path) -> None:
    write_notebook(tmp_path / "work" / "ci2.ipynb", {}, assignment="ci2")
    # `--option=value`: pytest reads a separate value that is a path as a test path when it sets its
    # rootdir.
    run = run_pytest(
        tmp_path, "--graders-notebook=work", f"--graders-course={course}", "--collect-only", "-q"
    )
    assert run.returncode == 0, run.stdout + run.stderr
    listed = [line.partition("::") for line in run.stdout.splitlines() if "::" in line]
    assert {path for path, _, _ in listed} == {"work/ci2.ipynb"}
    assert [item for _, _, item in listed] == [
        "detach-basics/flags",
        "detach-basics/write-through",
        "detach-basics/resize-leaf",
        "independent-copy/values",
        "independent-copy/own-memory",
        "independent-copy/detached",
        "independent-copy/independent-writes",
    ]
    assert "graders:" not in run.stdout


def test_a_wrong_assignment_is_a_usage_error(course: Path, tmp_path: Path) -> None:
    write_notebook(tmp_path / "ci1.ipynb", KEY)
    run = run_pytest(
        tmp_path,
        "--graders-notebook=ci1.ipynb",
        f"--graders-course={course}",
        "--graders-assignment",
        "c1",
    )
    assert run.returncode == pytest.ExitCode.USAGE_ERROR
    assert "graders: no assignment 'c1' in the course" in run.stderr


@pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")  # imported already
def test_graders_modules_imported_in_a_session_are_left_as_python_wrote_them(
    pytestconfig: pytest.Config,
) -> None:
    # Installed from a wheel, graders is a distribution with a pytest plugin, whose packages
    # pytest marks for rewriting (an editable install, as here, escapes it): marked again as
    # a wheel install would be, the plugin's configure step must take the mark back, so the
    # rewrite hook (a finder on sys.meta_path) declines graders' modules (a parse each, and
    # a failed import when two threads parse at once in CPython 3.11 before 3.11.8) and
    # still takes test files.
    hooks = [f for f in sys.meta_path if type(f).__name__ == "AssertionRewritingHook"]
    assert hooks, "pytest's rewrite hook is not installed: this test proves nothing"
    hook, where = hooks[0], list(graders.reports.__path__)
    hook.mark_rewrite("graders")
    assert hook.find_spec("graders.reports.items", where) is not None  # as from a wheel
    leave_graders_unrewritten(pytestconfig)
    assert hook.find_spec("graders.reports.items", where) is None
    here = Path(__file__)
    assert hook.find_spec(here.stem, [str(here.parent)]) is not None
