"""The bundled course: enough questions, every section covered, misconceptions that are
really wrong, and the article drifts the audit must report.

Truths come from ``graders.truth_child.compute``, the very function the sandbox child
runs, called in this process: the course's own setup code is trusted, and a child
per exercise would only slow the suite down.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from graders.answers import parse_answer, render_answer
from graders.audit import audit_course
from graders.compare import compare
from graders.load import LoadedCourse, load_course
from graders.spec import SECTIONS, in_article
from graders.truth_child import compute
from graders.values import Value, from_json

COURSE_FILE = Path(__file__).resolve().parent.parent / "course.yml"
MIN_QUESTIONS = 35
MIN_FILES = 10
MIN_WITH_MISCONCEPTIONS = 25
QUESTIONS_PER_FILE = range(3, 7)
# Which sections each problem set teaches (code exercises may join them later).
ASSIGNMENT_SECTIONS = {
    "ps1": {"§1a", "§1b", "§2", "§3"},
    "ps2": {"§4"},
    "ps3": {"§5", "supplement"},
}


@pytest.fixture(scope="module")
def loaded() -> LoadedCourse:
    return load_course(COURSE_FILE)


@pytest.fixture(scope="module")
def predict(loaded: LoadedCourse) -> dict[str, Any]:
    """The predict exercises, by id."""
    return {i: e.exercise for i, e in loaded.exercises.items() if e.kind.name == "predict"}


@pytest.fixture(scope="module")
def truths(loaded: LoadedCourse, predict: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each predict exercise's truths, as the child task returns them."""
    return {ex_id: compute(_payload(ex, loaded.course.seed)) for ex_id, ex in predict.items()}


def _payload(exercise: Any, seed: int) -> dict[str, Any]:
    questions = [
        {"id": q.id, "expr": q.expr} if q.expr is not None else {"id": q.id, "run": q.run}
        for q in exercise.questions
    ]
    return {"seed": seed, "setup": exercise.setup, "questions": questions}


def _questions(predict: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(ex_id, q) for ex_id, ex in predict.items() for q in ex.questions]


def _truth(truths: dict[str, dict[str, Any]], ex_id: str, q_id: str) -> Value:
    return from_json(truths[ex_id]["questions"][q_id]["value"])


def test_enough_questions_and_files(predict: dict[str, Any]) -> None:
    questions = _questions(predict)
    with_misconceptions = [q for _, q in questions if q.misconceptions]
    assert len(predict) >= MIN_FILES
    assert len(questions) >= MIN_QUESTIONS
    assert len(with_misconceptions) >= MIN_WITH_MISCONCEPTIONS


def test_every_article_section_is_covered(loaded: LoadedCourse) -> None:
    cited = {item.section or ex.exercise.section for ex in loaded.exercises.values() for item in ex.kind.items(ex.exercise)}
    assert {s for s in SECTIONS if in_article(s)} <= cited


def test_each_file_stays_focused(predict: dict[str, Any]) -> None:
    sizes = {ex_id: len(ex.questions) for ex_id, ex in predict.items()}
    assert {i: n for i, n in sizes.items() if n not in QUESTIONS_PER_FILE} == {}


def test_ids_are_unique(predict: dict[str, Any]) -> None:
    item_ids = Counter(f"{ex_id}/{q.id}" for ex_id, q in _questions(predict))
    assert [i for i, n in item_ids.items() if n > 1] == []


def test_assignments_follow_the_article(loaded: LoadedCourse, predict: dict[str, Any]) -> None:
    placed = Counter(item.id for a in loaded.course.assignments for item in a.exercises)
    assert {ex_id: placed[ex_id] for ex_id in predict if placed[ex_id] != 1} == {}
    for assignment in loaded.course.assignments:
        sections = {predict[i.id].section for i in assignment.exercises if i.id in predict}
        assert sections <= ASSIGNMENT_SECTIONS[assignment.id], assignment.id


def test_setups_run_and_truths_are_writable(loaded: LoadedCourse, truths: dict[str, dict[str, Any]]) -> None:
    problems = {}
    for ex_id, prepared in truths.items():
        entry = loaded.exercises[ex_id]
        found = entry.kind.problems(entry.exercise, prepared, entry.marks)
        if found:
            problems[ex_id] = [p.message for p in found]
    assert problems == {}


def test_expected_answers_grade_as_correct(predict: dict[str, Any], truths: dict[str, dict[str, Any]]) -> None:
    # The key a learner would read must itself be an accepted, correct answer.
    failing = []
    for ex_id, q in _questions(predict):
        truth = _truth(truths, ex_id, q.id)
        if not compare(parse_answer(render_answer(truth)), truth).correct:
            failing.append(f"{ex_id}/{q.id}: {render_answer(truth)}")
    assert failing == []


def test_misconceptions_are_graded_wrong(predict: dict[str, Any], truths: dict[str, dict[str, Any]]) -> None:
    graded_right = []
    for ex_id, q in _questions(predict):
        truth = _truth(truths, ex_id, q.id)
        for m in q.misconceptions:
            if compare(parse_answer(m.answer), truth).correct:
                graded_right.append(f"{ex_id}/{q.id} [{m.name}]: {m.answer!r} is the truth")
    assert graded_right == []


def test_article_outputs_parse(predict: dict[str, Any]) -> None:
    claims = [q.article_says for _, q in _questions(predict) if q.article_says is not None]
    assert len(claims) >= 15
    for text in claims:
        parse_answer(text)


@pytest.mark.parametrize(
    ("question", "verdict", "mentions"),
    [
        ("detach-shares-memory/original-element-printed", "renamed", "SelectBackward0"),
        ("clone-grad-accumulates/clone-grad-after-backward", "new warning", "UserWarning"),
        ("detach-inplace-ops/resize", "changed", ""),
        ("detach-inplace-ops/resize-as", "changed", ""),
        ("detach-inplace-ops/set", "changed", ""),
        ("detach-inplace-ops/transpose", "changed", ""),
        ("clone-grad-accumulates/grads-accumulate-on-original", "same", ""),
        ("clone-requires-grad/requires-grad-copied", "same", ""),
    ],
)
def test_audit_reports_the_drifts(
    loaded: LoadedCourse, truths: dict[str, dict[str, Any]], question: str, verdict: str, mentions: str,
) -> None:
    drifts = {d.question: d for d in audit_course(loaded, truths)}
    assert drifts[question].verdict == verdict
    assert mentions in drifts[question].note


@pytest.mark.parametrize(
    ("question", "cls", "fragment"),
    [
        ("clone-requires-grad/unset-requires-grad-on-clone", "RuntimeError", "only change requires_grad flags of leaf variables"),
        ("clone-grad-accumulates/non-leaf-grad-warns", "UserWarning", "not a leaf Tensor"),
        ("leaf-inplace-ops/resize", "RuntimeError", "cannot resize variables that require grad"),
        ("leaf-inplace-ops/resize-as", "RuntimeError", "cannot resize variables that require grad"),
        ("leaf-inplace-ops/transpose", "RuntimeError", "leaf Variable that requires grad is being used in an in-place operation"),
        ("leaf-inplace-ops/set", "RuntimeError", "leaf Variable that requires grad is being used in an in-place operation"),
        ("leaf-inplace-ops/element-write", "RuntimeError", "leaf Variable that requires grad is being used in an in-place operation"),
        ("clone-detach-order/backward-through-copy", "RuntimeError", "does not require grad"),
        ("detach-inplace-caught/backward-after-zero", "RuntimeError", "modified by an inplace operation"),
        ("detach-between-modules/article-backward", "RuntimeError", "grad can be implicitly created only for scalar outputs"),
        ("freeze-inference-mode/inference-into-b", "RuntimeError", "Inference tensors cannot be saved for backward"),
    ],
)
def test_errors_are_raised_for_the_reason_taught(
    truths: dict[str, dict[str, Any]], question: str, cls: str, fragment: str,
) -> None:
    # Graded by class alone; the message proves the question teaches the right cause.
    ex_id, q_id = question.split("/")
    truth = _truth(truths, ex_id, q_id)
    assert (getattr(truth, "cls", None), fragment in getattr(truth, "message", "")) == (cls, True)
