"""`graders demo` grades the bundled example answers of the first assignment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from what_starts import starts

from graders.cli import main
from graders.cli.tables import MARKS

REPO = Path(__file__).resolve().parent.parent.parent
STUDENTS = ("ada", "bob", "cy")


@pytest.fixture(scope="module")
@starts("sandbox")
def table() -> dict[str, dict[str, str]]:
    """The demo's table as {row label: {student: cell}}."""
    result = CliRunner().invoke(main, ["demo", "--course", str(REPO)])
    assert result.exit_code == 0, result.output
    rows = [
        [cell.strip() for cell in line.strip("│┃").split("│" if "│" in line else "┃")]
        for line in result.output.splitlines()
        if line.startswith(("│", "┃"))
    ]
    header, body = rows[0], rows[1:]
    return {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in body}


@pytest.fixture(scope="module")
@starts("sandbox")
def doc() -> dict[str, Any]:
    examples = REPO / "examples" / "ps1"
    files = sorted(examples.glob("*.yml"))
    times = ["--times", str(examples / "times.csv")]  # as the demo grades them
    args = ["grade", "ps1", *map(str, files), *times, "--json", "--course", str(REPO)]
    result = CliRunner().invoke(main, args)
    return json.loads(result.stdout)


def test_the_table_shows_what_the_results_document_says(table: dict, doc: dict) -> None:
    assert [s["student"] for s in doc["students"]] == list(STUDENTS)
    for s in doc["students"]:
        score = f"{s['score']:g}/{s['max_score']:g}"
        if s["late_factor"] < 1:  # the table says the total carries a late factor
            raw = sum(q["points"] for q in s["questions"])
            score += f" (late: {raw:g} × {s['late_factor']:g})"
        assert table["score"][s["student"]] == score
        for q in s["questions"]:
            mark = MARKS[q["status"]].split("]")[1].split("[")[0]  # the symbol inside rich markup
            expected = f"{mark} {q['points']:g}/{q['max_points']:g}"
            assert table[q["id"]][s["student"]] == expected, q["id"]


def test_the_examples_cover_right_misconceived_and_invalid_answers(doc: dict) -> None:
    ada, bob, cy = (next(s for s in doc["students"] if s["student"] == n) for n in STUDENTS)
    assert ada["score"] == ada["max_score"]
    assert any(q["misconception"] for q in bob["questions"])
    assert {"invalid", "unanswered"} <= {q["status"] for q in cy["questions"]}
    assert 0 < cy["late_factor"] < 1
