"""The bundled course's variants: every variant of every parameterised exercise runs in
torch, grades its own key as right and its misconceptions as wrong, in both languages;
two learners get their own notebooks (release --roster) and are graded each in their own
variant by `graders autograde`.

Truths come from ``graders.kinds.predict.child.task.compute`` called in this process, as in
``test_course_content.py``: the course's own code is trusted.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from notebook_helpers import fill, load_nb, save_nb

from graders.answers.compare import compare
from graders.answers.parse import parse_answer
from graders.batch.autograde import autograde
from graders.cli import main
from graders.course.load import load_course
from graders.course.loaded import ExerciseVariant, LoadedCourse
from graders.course.variants import learner_variant
from graders.grading.pipeline import answer_key, for_learner, prepare_assignment
from graders.kinds.base import Context
from graders.kinds.predict.child.task import compute
from graders.kinds.predict.truth import Truths, _payload
from graders.sandbox import InProcessRunner
from graders.workspace import Workspace

REPO = Path(__file__).resolve().parent.parent.parent
MIN_PARAMETERISED = 8
ASSIGNMENT = "ps5"  # predictions only, two of them with parameters: no sandbox needed


@pytest.fixture(scope="module")
def loaded() -> LoadedCourse:
    return load_course(REPO / "course.yml")


def _variants(loaded: LoadedCourse) -> list[tuple[str, ExerciseVariant]]:
    """Every variant of every predict exercise (code exercises': ``tests/kinds/test_code_variants.py``)."""
    return [
        (i, v) for i, e in loaded.exercises.items() if e.kind.name == "predict" for v in e.variants
    ]


@pytest.fixture(scope="module")
def truths(loaded: LoadedCourse) -> dict[tuple[str, int], Truths]:
    seed = loaded.course.seed
    return {
        (ex_id, v.number): Truths.from_json(compute(_payload(v.exercise, seed)))
        for ex_id, v in _variants(loaded)
    }


def test_enough_exercises_have_parameters_and_variants(loaded: LoadedCourse) -> None:
    varied = {i: e for i, e in loaded.exercises.items() if e.variants}
    assert len(varied) >= MIN_PARAMETERISED
    assert loaded.course.variants is not None
    assert all(1 < len(e.variants) <= loaded.course.variants.count for e in varied.values())


def test_every_variant_runs_and_its_key_is_right(
    loaded: LoadedCourse, truths: dict[tuple[str, int], Truths]
) -> None:
    problems, wrong = {}, []
    for ex_id, v in _variants(loaded):
        entry = loaded.exercises[ex_id]
        found = entry.kind.problems(v.exercise, truths[ex_id, v.number], entry.marks)
        if found:
            problems[f"{ex_id} {v.label}"] = [p.message for p in found]
        for q in v.exercise.questions:
            truth = truths[ex_id, v.number].questions[q.id]
            if not compare(parse_answer(truth.literal), truth.value).correct:
                wrong.append(f"{ex_id}/{q.id} {v.label}: {truth.literal}")
    assert problems == {} and wrong == []


def test_misconceptions_are_wrong_in_every_variant(
    loaded: LoadedCourse, truths: dict[tuple[str, int], Truths]
) -> None:
    right = []
    for ex_id, v in _variants(loaded):
        for q in v.exercise.questions:
            truth = truths[ex_id, v.number].questions[q.id].value
            for m in q.misconceptions:
                if compare(parse_answer(m.answer), truth).correct:
                    right.append(f"{ex_id}/{q.id} {v.label} [{m.name}]: {m.answer}")
    assert right == []


def test_parameters_change_what_learners_predict(
    loaded: LoadedCourse, truths: dict[tuple[str, int], Truths]
) -> None:
    # Parameters that only changed the wording would not stop a shared answer sheet.
    unchanged = []
    for ex_id, e in loaded.exercises.items():
        if not e.variants or e.kind.name != "predict":
            continue
        answers = {
            q.id: {truths[ex_id, v.number].questions[q.id].literal for v in e.variants}
            for q in e.exercise.questions
        }
        if not any(len(found) > 1 for found in answers.values()):
            unchanged.append(ex_id)
    assert unchanged == []


def test_every_variant_reads_in_both_languages(loaded: LoadedCourse) -> None:
    untranslated = []
    for ex_id, v in _variants(loaded):
        en, zh = v.exercise.in_language("en"), v.exercise.in_language("zh")
        for q_en, q_zh in zip(en.questions, zh.questions, strict=True):
            if q_en.prompt == q_zh.prompt or "{{" in q_zh.prompt + q_zh.explain:
                untranslated.append(f"{ex_id}/{q_en.id} {v.label}")
    assert untranslated == []


def _two_learners(loaded: LoadedCourse, assignment: str) -> tuple[str, str]:
    """Two ids whose variants differ in every parameter of every exercise of ``assignment``."""
    exercises = [
        loaded.exercises[i.id]
        for i in loaded.course.assignment(assignment).exercises  # type: ignore[union-attr]
        if loaded.exercises[i.id].variants
    ]
    names = [f"s{i:03d}" for i in range(300)]

    def values(name: str) -> list[dict[str, Any]]:
        return [dict(learner_variant(e, loaded.course, name).values) for e in exercises]  # type: ignore[union-attr]

    chosen = {n: values(n) for n in names}
    for one in names:
        for two in names:
            pairs = zip(chosen[one], chosen[two], strict=True)
            if all(all(a[k] != b[k] for k in a) for a, b in pairs):
                return one, two
    raise AssertionError("no two learners differ in every parameter")


def test_two_learners_get_their_own_notebooks_and_grades(tmp_path: Path) -> None:
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(REPO / "course.yml", course)
    for folder in ("exercises", "solutions", "checkers", "samples"):
        shutil.copytree(REPO / folder, course / folder)
    loaded = load_course(course / "course.yml")
    ada, bob = _two_learners(loaded, ASSIGNMENT)
    roster = tmp_path / "roster.csv"
    roster.write_text(f"student,name\n{ada},Ada\n{bob},Bob\n", encoding="utf-8")
    # Truths computed here fill the cache that `graders release` then reads.
    ctx = Context(loaded.course, course, InProcessRunner(), course / ".graders-cache")
    session = Workspace(loaded, ctx)
    prep = prepare_assignment(loaded, ASSIGNMENT, ctx)
    keys = {s: answer_key(for_learner(prep, s)) for s in (ada, bob)}
    varying = [
        f"{ex.loaded.exercise.id}/{q.id}"
        for ex in prep.exercises
        for q in ex.loaded.exercise.questions
        if len({t.questions[q.id].literal for t in ex.variants}) > 1
    ]
    assert varying and all(keys[ada][item] != keys[bob][item] for item in varying)

    out = tmp_path / "release"
    result = CliRunner().invoke(
        main,
        [
            "release",
            ASSIGNMENT,
            "--roster",
            str(roster),
            "--out",
            str(out),
            "--course",
            str(course),
            # Each learner's notebook submits to the service, and grades as any other.
            "--service",
            "https://grading.example.edu",
        ],
    )
    assert result.exit_code == 0, result.output
    notebooks = {s: load_nb(out / ASSIGNMENT / s / f"{ASSIGNMENT}.ipynb") for s in (ada, bob)}
    for nb in notebooks.values():
        assert nb["metadata"]["graders"]["service"] == "https://grading.example.edu"
        assert nb["cells"][-1]["source"] == "import graders\ngraders.submit()"
    setups = {
        s: [c["source"] for c in nb["cells"] if c["id"].startswith("setup")]
        for s, nb in notebooks.items()
    }
    assert setups[ada] != setups[bob]
    mine = learner_variant(loaded.exercises["storage-and-strides"], loaded.course, ada)
    assert f"reshape({mine.values['rows']}, {mine.values['cols']})" in "".join(setups[ada])  # type: ignore[union-attr]
    assert notebooks[ada]["metadata"]["graders"]["student"] == ada

    def graded(name: str, answers: dict[str, str]) -> dict[str, Any]:
        folder = tmp_path / name
        for student, key in answers.items():
            save_nb(fill(notebooks[student], keys[key]), folder / student / f"{ASSIGNMENT}.ipynb")
        summary = autograde(session, ASSIGNMENT, folder, db_url=f"sqlite:///{tmp_path}/{name}.db")
        doc = json.loads((summary.out_dir / "results.json").read_text())
        return {s["student"]: s for s in doc["students"]}

    own = graded("own", {ada: ada, bob: bob})
    swapped = graded("swapped", {ada: bob, bob: ada})
    for student in (ada, bob):
        assert own[student]["score"] == own[student]["max_score"] > 0
        missed = {q["id"] for q in swapped[student]["questions"] if q["status"] != "correct"}
        assert missed == set(varying)
