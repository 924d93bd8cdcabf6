"""The checker example of docs/how-to/checker.md, run as written: an exercise added in the
course folder only validates (reference and samples) and grades, with no change to the
package."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from graders.cli import main

GUIDE = Path(__file__).resolve().parent.parent.parent / "docs" / "how-to" / "checker.md"
COURSE = """\
id: doubling
title: A course of one code exercise
assignments:
  - id: ps1
    title: Doubling
    due: "2030-01-01T00:00:00+00:00"
    exercises: [double]
"""


def block(first_line: str) -> str:
    """The guide's code block that starts with ``first_line``."""
    text = GUIDE.read_text(encoding="utf-8")
    found = re.search(r"```\w+\n(" + re.escape(first_line) + r"\n.*?)```", text, re.S)
    assert found, first_line
    return found.group(1)


def write_course(root: Path) -> Path:
    files = {
        "course.yml": COURSE,
        "exercises/double.yml": block("# exercises/double.yml"),
        "checkers/double.py": block("# checkers/double.py"),
        "solutions/double.py": "def double(t):\n    return t * 2\n",
        "samples/double/detached.py": "def double(t):\n    return (t * 2).detach()\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root / "course.yml"


@pytest.mark.sandbox
def test_the_guides_checker_validates_and_grades(tmp_path: Path) -> None:
    course = write_course(tmp_path / "course")
    validated = CliRunner().invoke(main, ["validate", "--course", str(course)])
    assert validated.exit_code == 0, validated.output

    answers = {
        "ada": "def double(t):\n    return 2 * t\n",
        "bob": "def double(t):\n    return t.detach() * 2\n",
    }
    for student, code in answers.items():
        (tmp_path / f"{student}.yml").write_text(
            json.dumps({"student": student, "code": {"double": code}})
        )
    args = [
        "grade",
        "ps1",
        str(tmp_path / "ada.yml"),
        str(tmp_path / "bob.yml"),
        "--json",
        "--course",
        str(course),
    ]
    doc = json.loads(CliRunner().invoke(main, args).stdout)
    statuses = {
        s["student"]: {q["id"]: q["status"] for q in s["questions"]} for s in doc["students"]
    }
    assert statuses == {
        "ada": {"double/values": "correct", "double/in-graph": "correct"},
        "bob": {"double/values": "correct", "double/in-graph": "wrong"},
    }
