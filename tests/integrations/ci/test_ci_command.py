"""`graders ci NOTEBOOK`: exit 0 at or above --min-score, 1 below, 2 when the notebook
cannot be graded or the command is wrong; the reports are written in every case."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from ci_support import KEY, MAX_CI1, write_course, write_notebook, wrong_answers
from click.testing import CliRunner, Result
from stored_text import english

from graders.cli import main
from graders.grading.pipeline import answer_key, prepare_assignment
from graders.sandbox import InProcessRunner
from graders.workspace import open_workspace

XSD = Path(__file__).resolve().parent.parent.parent / "data" / "schemas" / "junit-10.xsd"


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_course(tmp_path_factory.mktemp("course"))


def test_the_notebooks_of_these_tests_answer_what_torch_computes(course: Path) -> None:
    with open_workspace(course, runner=InProcessRunner()) as ws:  # ci1: predictions only
        assert answer_key(prepare_assignment(ws.loaded, "ci1", ws.ctx)) == KEY


def run_ci(course: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["ci", *args, "--course", str(course)])


def test_a_correct_notebook_passes_and_every_report_is_written(
    course: Path, tmp_path: Path
) -> None:
    nb = write_notebook(tmp_path / "ci1.ipynb", KEY)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    result = run_ci(
        course,
        str(nb),
        "--min-score",
        "100%",
        "--junit",
        str(tmp_path / "r" / "junit.xml"),
        "--json",
        str(tmp_path / "r" / "results.json"),
        "--gradescope",
        str(tmp_path / "r" / "gs.json"),
        "--summary",
        str(summary),
    )
    assert result.exit_code == 0, result.output
    assert (
        result.stdout.splitlines()[-1]
        == f"graders: {MAX_CI1}/{MAX_CI1} points (minimum {MAX_CI1}: passed)"
    )
    doc = json.loads((tmp_path / "r" / "results.json").read_text())
    assert (doc["assignment"], doc["students"][0]["score"]) == ("ci1", MAX_CI1)
    cases = ET.parse(tmp_path / "r" / "junit.xml").getroot().findall("testsuite/testcase")
    assert [c.get("name") for c in cases] == list(KEY)
    xmlschema.XMLSchema(str(XSD)).validate(str(tmp_path / "r" / "junit.xml"))
    assert json.loads((tmp_path / "r" / "gs.json").read_text())["score"] == MAX_CI1
    text = summary.read_text()
    assert text.startswith(
        f"earlier step\n### ci1: graders: {MAX_CI1}/{MAX_CI1} points"
    )  # appended, as GitHub expects


def test_below_the_minimum_exits_1_with_the_feedback_in_the_log(
    course: Path, tmp_path: Path
) -> None:
    nb = write_notebook(tmp_path / "ci1.ipynb", wrong_answers())
    result = run_ci(course, str(nb), "--min-score", "6", "--summary", "")
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[-1] == f"graders: 5/{MAX_CI1} points (minimum 6: not reached)"
    # Named as the notebook names the question, its id on the line below.
    at = lines.index("  ✗ Question 1.1 — clone() of a tensor that requires grad  0/1")
    assert lines[at + 1] == "      (clone-basics/shares-memory)"
    assert "This answer matches a common misconception: clone shares memory." in result.stdout


@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param(b"\x89PNG\r\n", "not UTF-8", id="not-text"),
        pytest.param(
            b'{"cells": [], "nbformat": 4, "metadata": {}}', "no answer cells", id="no-answer-cells"
        ),
    ],
)
def test_a_notebook_that_cannot_be_graded_exits_2_and_still_writes_reports(
    course: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    nb = tmp_path / "ci1.ipynb"
    nb.write_bytes(content)
    out = tmp_path / "results.json"
    result = run_ci(
        course,
        str(nb),
        "--assignment",
        "ci1",
        "--json",
        str(out),
        "--junit",
        str(tmp_path / "j.xml"),
    )
    assert result.exit_code == 2, result.output
    assert message in result.stdout and result.stdout.splitlines()[-1] == "graders: 0/0 points"
    student = json.loads(out.read_text())["students"][0]
    assert student["status"] == "ungradable" and message in english(student["error"])
    case = ET.parse(tmp_path / "j.xml").getroot().find("testsuite/testcase")
    assert case.get("name") == "submission" and case.find("failure").get("type") == "ungradable"
    assert xmlschema.XMLSchema(str(XSD)).is_valid(str(tmp_path / "j.xml"))


@pytest.mark.parametrize(
    "args, message",
    [
        pytest.param(["--assignment", "nope"], "no assignment 'nope'", id="unknown-assignment"),
        pytest.param(["--min-score", "lots"], "expected points", id="bad-threshold"),
    ],
)
def test_usage_errors_exit_2(course: Path, tmp_path: Path, args: list[str], message: str) -> None:
    nb = write_notebook(tmp_path / "ci1.ipynb", KEY)
    result = run_ci(course, str(nb), *args)
    assert result.exit_code == 2
    assert message in result.stderr
