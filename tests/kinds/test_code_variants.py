"""Code exercises with parameters: each learner writes their own variant's code, checked by
the checker with that variant's values, through `graders autograde`; the reference and the
samples run in every variant at validate time; a learner's code exercises still run as one
sandbox job list."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from small_course import hand_in, notebook
from variant_course import CODE_EXERCISES, code_variant_course, two_learners

from graders.batch.autograde import autograde
from graders.course.load import load_course
from graders.course.templating import names_in, templated
from graders.course.variants import learner_variant
from graders.errors import SpecError
from graders.grading.pipeline import answer_key, for_learner, prepare_assignment
from graders.kinds.base import Context
from graders.sandbox import InProcessRunner, Job, Outcome
from graders.validate import validate_course
from graders.workspace import Workspace

MAX_PS3 = 6 + 3  # safe-sgd-step's checks, then straight-through's


class CountingRunner(InProcessRunner):
    """The in-process runner, counting the jobs of each ``run_all``."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []

    def run_all(self, jobs: Sequence[Job]) -> list[Outcome]:
        self.batches.append(len(jobs))
        return super().run_all(jobs)


def open_course(root: Path, runner: InProcessRunner) -> Workspace:
    loaded = load_course(code_variant_course(root) / "course.yml")
    return Workspace(loaded, Context(loaded.course, loaded.root, runner, root / ".graders-cache"))


def keys_of(ws: Workspace, students: Sequence[str]) -> dict[str, dict[str, str]]:
    """Each learner's answer key of ps3: their variant's reference solution per exercise."""
    prep = prepare_assignment(ws.loaded, "ps3", ws.ctx)
    return {s: answer_key(for_learner(prep, s)) for s in students}


def graded(ws: Workspace, folder: Path, code: dict[str, dict[str, str]]) -> dict[str, Any]:
    for student, sources in code.items():
        hand_in(folder, student, notebook({}, sources), name="ps3.ipynb")
    summary = autograde(ws, "ps3", folder, db_url=f"sqlite:///{folder}.db", force=True)
    doc = json.loads((summary.out_dir / "results.json").read_text())
    return {s["student"]: s for s in doc["students"]}


def statuses(result: dict[str, Any]) -> dict[str, str]:
    return {q["id"]: q["status"] for q in result["questions"]}


def test_each_learner_passes_with_their_own_code_and_fails_with_the_others(
    tmp_path: Path,
) -> None:
    runner = CountingRunner()
    try:
        ws = open_course(tmp_path / "course", runner)
        ada, bob = two_learners(ws.loaded, *CODE_EXERCISES)
        keys = keys_of(ws, (ada, bob))
        assert all(keys[ada][e] != keys[bob][e] for e in CODE_EXERCISES)
        runner.batches.clear()
        own = graded(ws, tmp_path / "own", {s: keys[s] for s in (ada, bob)})
        # One learner's two code exercises: one job list, run together.
        assert runner.batches == [2, 2]
        swapped = graded(ws, tmp_path / "swapped", {ada: keys[bob], bob: keys[ada]})
    finally:
        runner.close()
    for student in (ada, bob):
        assert own[student]["score"] == own[student]["max_score"] == MAX_PS3
        mine = {
            e: learner_variant(ws.loaded.exercises[e], ws.loaded.course, student)
            for e in CODE_EXERCISES
        }
        assert {q["id"]: q["variant"] for q in own[student]["questions"]} == {
            q["id"]: str(mine[q["id"].split("/")[0]].number)  # type: ignore[union-attr]
            for q in own[student]["questions"]
        }
        # Another learner's code: the weight decay and the rounding are theirs, not mine.
        found = statuses(swapped[student])
        assert found["safe-sgd-step/values"] == found["straight-through/forward"] == "wrong"
        assert (
            found["safe-sgd-step/autograd-safe"] == found["straight-through/gradient"] == "correct"
        )
        assert swapped[student]["score"] < MAX_PS3


def test_the_checker_builds_each_variants_inputs_from_its_values(tmp_path: Path) -> None:
    with InProcessRunner() as runner:
        ws = open_course(tmp_path / "course", runner)
        prep = prepare_assignment(ws.loaded, "ps3", ws.ctx)
    (rounding,) = (e for e in prep.exercises if e.loaded.exercise.id == "straight-through")
    assert [s.error for s in rounding.variants] == [None] * len(rounding.variants)
    shapes = [state.observations["cases"][1]["out"]["shape"] for state in rounding.variants]
    assert shapes == [v.values["shape"] for v in rounding.loaded.variants]
    assert len({json.dumps(s) for s in shapes}) > 1


@pytest.mark.sandbox
def test_validate_runs_the_samples_in_every_variant(tmp_path: Path) -> None:
    course = code_variant_course(tmp_path / "course")
    # Right for one rounding only: every other variant must report it, naming the variant.
    (course / "samples" / "straight-through" / "ceil.py").write_text(
        "def round_ste(x):\n    return x + (x.ceil() - x).detach()\n"
    )
    yml = course / "exercises" / "straight-through.yml"
    yml.write_text(
        yml.read_text().replace(
            "samples:\n", "samples:\n- {file: samples/straight-through/ceil.py}\n", 1
        )
    )
    with pytest.raises(SpecError) as raised:
        validate_course(course)
    loaded = load_course(course / "course.yml")
    wrong = [v for v in loaded.exercises["straight-through"].variants if v.values["op"] != "ceil"]
    (problem,) = raised.value.problems
    assert "exercises/straight-through.yml:" in str(problem)
    labels = "; ".join(v.label for v in wrong)
    assert problem.message == (
        f"samples[0]: samples/straight-through/ceil.py: forward: got fail, expected pass ({labels})"
    )


BROKEN = {
    "checker-without-params": (
        "checkers/straight-through.py",
        lambda s: s.replace(
            ", params: Mapping[str, Any]) -> dict[str, Any]:", ") -> dict[str, Any]:"
        ),
        "checker: checkers/straight-through.py: `observe` must take the variant's values",
    ),
    "solution-names-no-parameter": (
        "solutions/straight-through.py",
        lambda s: s.replace("x.{{ op }}()", "x.{{ rounding }}()"),
        "solution: cannot render solutions/straight-through.py with op=round, "
        "shape=[2, 3]: 'rounding' is undefined",
    ),
}


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_a_broken_code_variant_is_reported_where_it_is(tmp_path: Path, case: str) -> None:
    name, edit, message = BROKEN[case]
    course = code_variant_course(tmp_path / "course")
    (course / name).write_text(edit((course / name).read_text()))
    with pytest.raises(SpecError) as raised:
        load_course(course / "course.yml")
    found = [str(p) for p in raised.value.problems]
    assert any("exercises/straight-through.yml:" in p and message in p for p in found), found


def test_a_parameter_only_the_checker_reads_is_used(tmp_path: Path) -> None:
    # `shape` is in no text: the checker builds its inputs from it, so it is not unused.
    loaded = load_course(code_variant_course(tmp_path / "course") / "course.yml")
    template = loaded.exercises["straight-through"].template
    read = set().union(*(names_in(text) for _, text in templated(template)))
    assert "shape" in template.params and read == {"op"}


@pytest.mark.parametrize(
    "text",
    ["plain words", "line one\nline two\n", "  spaced  \n\n", "a {single} brace", "crlf\r\nline"],
)
def test_a_text_that_uses_no_parameter_renders_as_jinja_renders_it(text: str) -> None:
    # Texts without Jinja's syntax skip Jinja (most texts of an exercise with parameters):
    # what they render to must not change.
    from graders.course.templating import _compiled, names_in, render

    values = {"scale": 2}
    assert render(text, values) == _compiled(text).render(**values)
    assert names_in(text) == set()
