"""`graders validate`: every broken-file case names path:line:column and exits 2."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from graders.cli import main
from graders.errors import SpecError
from graders.load import load_course

COURSE = """\
id: tiny
title: Tiny course
seed: 0
limits: {timeout_s: 10, memory_mib: 2048}
assignments:
  - id: ps1
    title: First
    due: "2026-10-05T23:59:00+02:00"
    late: {penalty_per_day: 0.1, cutoff_days: 3}
    exercises:
      - clone-basics
"""

EXERCISE = """\
id: clone-basics
title: clone basics
section: "§1a"
kind: predict
setup: |
  import torch
  a = torch.tensor(1.0, requires_grad=True)
  b = a.clone()
questions:
  - id: shares
    prompt: "a.data_ptr() == b.data_ptr()?"
    expr: a.data_ptr() == b.data_ptr()
    points: 1
    explain: clone copies.
  - id: flag
    prompt: "b.requires_grad?"
    expr: b.requires_grad
    points: 1
    explain: clone keeps requires_grad.
"""


def make_course(root: Path, course: str = COURSE, exercise: str = EXERCISE, extra: dict[str, str] | None = None) -> Path:
    (root / "exercises").mkdir(parents=True, exist_ok=True)
    (root / "course.yml").write_text(course)
    (root / "exercises" / "clone-basics.yml").write_text(exercise)
    for name, text in (extra or {}).items():
        (root / "exercises" / name).write_text(textwrap.dedent(text))
    return root / "course.yml"


def problems_of(course_file: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_course(course_file)
    return [str(p) for p in info.value.problems]


def test_a_valid_course_loads(tmp_path: Path) -> None:
    loaded = load_course(make_course(tmp_path))
    assert list(loaded.exercises) == ["clone-basics"]
    assert loaded.course.assignments[0].exercises[0].id == "clone-basics"


BROKEN_EXERCISES = [
    pytest.param("    points: 1\n", "    points: two\n", "exercises/clone-basics.yml:13:5: questions[0].points", id="points-not-a-number"),
    pytest.param("    explain: clone copies.\n", "    explain: clone copies.\n    hint: nope\n", "exercises/clone-basics.yml:15:5: questions[0].hint: unknown key", id="unknown-key"),
    pytest.param("    prompt: \"b.requires_grad?\"\n", "", "exercises/clone-basics.yml:15:5: questions[1].prompt: missing required field", id="missing-prompt"),
    pytest.param("kind: predict", "kind: predikt", "exercises/clone-basics.yml:4:1: kind: unknown kind 'predikt' (did you mean 'predict'?)", id="unknown-kind"),
    pytest.param("  - id: flag", "  - id: shares", "exercises/clone-basics.yml:15:5: questions[1].id: duplicate question id 'shares'", id="duplicate-question"),
    pytest.param("  b = a.clone()\n", "  b = a.clone(\n", "exercises/clone-basics.yml:5:1: setup: not valid Python statements", id="setup-syntax"),
    pytest.param("    expr: b.requires_grad\n", "    expr: b.requires_grad\n    run: b.sum()\n", "exercises/clone-basics.yml:15:5: questions[1]: give exactly one of 'expr'", id="expr-and-run"),
    pytest.param('section: "§1a"', 'section: "§9"', "exercises/clone-basics.yml:3:1: section: '§9' is not an article section", id="bad-section"),
    pytest.param("id: clone-basics", "id: other-name", "exercises/clone-basics.yml:1:1: id: 'other-name' must equal the file name", id="id-not-stem"),
    pytest.param("  - id: shares", "  - id: shares\n    id: again", "exercises/clone-basics.yml:11:5: duplicate key 'id'", id="duplicate-key"),
    pytest.param("questions:", "questions: [", "exercises/clone-basics.yml:", id="yaml-syntax"),
]


@pytest.mark.parametrize("old, new, expected", BROKEN_EXERCISES)
def test_broken_exercise_is_reported_with_its_location(tmp_path: Path, old: str, new: str, expected: str) -> None:
    assert old in EXERCISE
    problems = problems_of(make_course(tmp_path, exercise=EXERCISE.replace(old, new, 1)))
    assert any(p.startswith(expected) for p in problems), problems


BROKEN_COURSES = [
    pytest.param("      - clone-basics\n", "      - clone-basic\n", "course.yml:11:9: assignment 'ps1' names a missing exercise 'clone-basic' (did you mean 'clone-basics'?)", id="missing-exercise"),
    pytest.param('    due: "2026-10-05T23:59:00+02:00"', '    due: "2026-10-05T23:59:00"', "course.yml:8:5: assignments[0].due: Input should have timezone info", id="due-without-timezone"),
    pytest.param("seed: 0", "seed: 0\nsede: 1", "course.yml:4:1: sede: unknown key (did you mean 'seed'?)", id="unknown-course-key"),
    pytest.param("  - id: ps1\n", "  - id: ps1\n    points: 3\n", "course.yml:7:5: assignments[0].points: unknown key", id="unknown-assignment-key"),
]


@pytest.mark.parametrize("old, new, expected", BROKEN_COURSES)
def test_broken_course_file_is_reported_with_its_location(tmp_path: Path, old: str, new: str, expected: str) -> None:
    assert old in COURSE
    problems = problems_of(make_course(tmp_path, course=COURSE.replace(old, new, 1)))
    assert any(p.startswith(expected) for p in problems), problems


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    broken = EXERCISE.replace("    points: 1\n", "    points: two\n", 1).replace("kind: predict", "kind: predict\ncolour: red")
    course = COURSE.replace("      - clone-basics\n", "      - clone-basics\n      - nowhere\n")
    problems = problems_of(make_course(tmp_path, course=course, exercise=broken))
    assert len(problems) == 3, problems


def test_validate_command_exits_2_and_prints_locations(tmp_path: Path) -> None:
    course = make_course(tmp_path, exercise=EXERCISE.replace("    points: 1\n", "    points: two\n", 1))
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course)])
    assert result.exit_code == 2
    assert "exercises/clone-basics.yml:13:5: questions[0].points" in result.output


def test_validate_without_truth_passes_on_a_good_course(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(make_course(tmp_path))])
    assert result.exit_code == 0, result.output
    assert "course OK: 2 questions" in result.output


def test_schema_describes_exercise_files() -> None:
    import json

    result = CliRunner().invoke(main, ["schema"])
    schema = json.loads(result.output)
    assert result.exit_code == 0
    assert "questions" in json.dumps(schema)
