"""The bundled course's example term: the README's instructor workflow grades on time today.

Its due dates must stay ahead of today, or every correct notebook handed in now, with an
nbgrader ``timestamp.txt``, would be graded late; this test fails first, saying so.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from graders.cli import main
from graders.course.load import load_course
from graders.submissions.times import TIMESTAMP_FILE


def test_every_bundled_due_date_is_ahead_of_today(course_file: Path) -> None:
    now = datetime.now(UTC)
    past = [
        f"{a.id} (due {a.due.isoformat()})"
        for a in load_course(course_file).course.assignments
        if a.due <= now
    ]
    assert past == [], "move the example term of course.yml ahead: " + ", ".join(past)


@pytest.mark.sandbox
def test_the_readme_workflow_gives_real_grades_with_and_without_timestamps(
    course_file: Path, tmp_path: Path
) -> None:
    course = str(course_file.parent)

    def graders(*args: str) -> str:
        result = CliRunner().invoke(main, [*args, "--course", course])
        assert result.exit_code == 0, result.output
        return result.output

    graders("release", "ps1", "--out", str(tmp_path / "release"))
    answered = tmp_path / "release" / "instructor" / "ps1" / "ps1.ipynb"  # every answer right
    plain = tmp_path / "submissions" / "ada" / "ps1.ipynb"
    nbgrader = tmp_path / "nbgrader" / "submitted" / "bob" / "ps1" / "ps1.ipynb"
    for path in (plain, nbgrader):
        path.parent.mkdir(parents=True)
        shutil.copy(answered, path)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")  # as nbgrader writes it
    (nbgrader.parent / TIMESTAMP_FILE).write_text(stamp, encoding="utf-8")

    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    out = tmp_path / "autograded"
    said = graders("autograde", "ps1", str(plain.parents[1]), "--db", db, "--out", str(out))
    assert "no submission times for 1 of 1: late policy not applied; see --times" in said
    graders("autograde", "ps1", str(tmp_path / "nbgrader"), "--db", db, "--out", str(out))
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    got = {s["student"]: (s["status"], s["late_factor"], s["score"]) for s in doc["students"]}
    max_score = doc["students"][0]["max_score"]
    assert max_score > 0
    assert got == {"ada": ("graded", 1.0, max_score), "bob": ("graded", 1.0, max_score)}
