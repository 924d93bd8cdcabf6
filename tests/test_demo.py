"""`graders demo` grades the bundled example answers of the first assignment."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from graders.cli import main

REPO = Path(__file__).resolve().parent.parent


def test_demo_prints_the_table_of_the_examples() -> None:
    result = CliRunner().invoke(main, ["demo", "--course", str(REPO)])
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if "question" in line)
    assert all(name in header for name in ("ada", "bob", "cy"))
    assert "score" in result.output


def test_the_examples_cover_right_misconceived_and_invalid_answers() -> None:
    files = sorted((REPO / "examples" / "ps1").glob("*.yml"))
    result = CliRunner().invoke(main, ["grade", "ps1", *map(str, files), "--json", "--course", str(REPO)])
    doc = json.loads(result.stdout)
    by_student = {s["student"]: s for s in doc["students"]}
    ada, bob, cy = by_student["ada"], by_student["bob"], by_student["cy"]
    assert ada["score"] == ada["max_score"]
    assert any(q["misconception"] for q in bob["questions"])
    statuses = {q["status"] for q in cy["questions"]}
    assert {"invalid", "unanswered"} <= statuses
    assert 0 < cy["late_factor"] < 1
