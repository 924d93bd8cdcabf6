"""`graders ci` applies the late policy from the time grading runs, or from Gradescope's
record of the submission (none with --no-late-policy); a bug in graders exits 3 with the
reports still written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ci_support import KEY, MAX_CI1, write_course, write_notebook
from click.testing import CliRunner, Result
from stored_text import english

from graders.cli import main

# Every test here grades a notebook with code in it: the sandbox starts.
pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # ci1 is due 2036-10-05T23:59:00+02:00; with no late policy, late work scores 0.
    return write_course(tmp_path_factory.mktemp("course"))


def run_ci(course: Path, notebook: Path, out: Path) -> Result:
    args = ["ci", str(notebook), "--assignment", "ci1", "--json", str(out)]
    return CliRunner().invoke(main, [*args, "--course", str(course), "--isolation", "unsafe"])


def test_a_push_before_the_due_date_is_on_time(course: Path, tmp_path: Path) -> None:
    nb = write_notebook(tmp_path / "repo" / "ci1.ipynb", KEY)
    result = run_ci(course, nb, tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    student = json.loads((tmp_path / "r.json").read_text())["students"][0]
    assert (student["status"], student["score"]) == ("graded", MAX_CI1)
    assert student["submitted_at"]  # the time grading ran


def test_on_gradescope_the_recorded_submission_time_decides(
    course: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "autograder"
    monkeypatch.setenv("GRADERS_AUTOGRADER_ROOT", str(root))
    nb = write_notebook(root / "submission" / "ci1.ipynb", KEY)
    metadata = {"id": 1, "created_at": "2036-10-06T09:00:00.000000+02:00"}
    (root / "submission_metadata.json").write_text(json.dumps(metadata))
    result = run_ci(course, nb, tmp_path / "r.json")
    student = json.loads((tmp_path / "r.json").read_text())["students"][0]
    assert (student["status"], student["score"]) == ("late-cutoff", 0), result.output
    assert "after the late cutoff" in english(student["error"])


def test_no_late_policy_grades_a_closed_assignment_in_full(tmp_path: Path) -> None:
    # A scheduled grader (the course repository's workflow) runs long after the push.
    course = write_course(tmp_path / "course")
    yml = course / "course.yml"
    yml.write_text(yml.read_text().replace("2036-10", "2020-10"))
    nb = write_notebook(tmp_path / "repo" / "ci1.ipynb", KEY)
    late = run_ci(course, nb, tmp_path / "late.json")
    assert json.loads((tmp_path / "late.json").read_text())["students"][0]["score"] == 0, (
        late.output
    )
    args = ["ci", str(nb), "--assignment", "ci1", "--json", str(tmp_path / "r.json")]
    args += ["--course", str(course), "--isolation", "unsafe", "--no-late-policy"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    student = json.loads((tmp_path / "r.json").read_text())["students"][0]
    assert (student["status"], student["score"], student["late_factor"]) == (
        "graded",
        MAX_CI1,
        1.0,
    )
    assert student["submitted_at"] is None  # no time: no late policy


def test_a_bug_while_grading_exits_3_and_still_writes_the_reports(
    course: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import graders.grading.pipeline as grading

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(grading, "apply_late_policy", broken)
    nb = write_notebook(tmp_path / "repo" / "ci1.ipynb", KEY)
    result = run_ci(course, nb, tmp_path / "r.json")
    assert result.exit_code == 3 and "please report it" in result.stderr
    student = json.loads((tmp_path / "r.json").read_text())["students"][0]
    assert student["status"] == "internal"  # typed: the exit code is chosen from it
