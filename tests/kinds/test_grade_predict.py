"""Prediction grading end to end: truth from torch, answers parsed, results document."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner
from small_course import write_course

from graders.cli import main
from graders.errors import SpecError
from graders.grading.pipeline import Submission, answer_key, grade_submission, prepare_assignment
from graders.results import ResultsDocument
from graders.sandbox import InProcessRunner
from graders.validate import validate_course
from graders.workspace import open_workspace


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory):
    course = write_course(tmp_path_factory.mktemp("course"))
    # Predictions only: the in-process fake computes the same truths without a sandbox.
    with open_workspace(course, runner=InProcessRunner()) as ws:
        yield prepare_assignment(ws.loaded, "ps1", ws.ctx)


def test_the_key_agrees_with_torch(prepared) -> None:
    key = answer_key(prepared)
    a = torch.tensor(1.0, requires_grad=True)
    b = a.clone()
    assert key["clone-basics/shares"] == repr(a.data_ptr() == b.data_ptr())
    assert key["clone-basics/grad-fn"] == f"<{type(b.grad_fn).__name__}>"
    assert key["clone-basics/backward"] == "no error"
    assert key["clone-basics/grad"] == "tensor(3.)"
    assert key["clone-basics/nonleaf-grad"] == "None"
    assert key["detach-basics/size"] == "torch.Size([2, 3])"
    assert key["detach-basics/seen"].startswith("tensor(5., grad_fn=<SelectBackward0>")
    assert key["detach-basics/backward-nonscalar"] == "RuntimeError"


def test_the_key_earns_full_marks_and_points_overrides_scale(prepared) -> None:
    result = grade_submission(prepared, Submission("key", "ps1", answers=answer_key(prepared)))
    assert [q.status.value for q in result.questions] == ["correct"] * 9
    assert result.max_score == pytest.approx(5 + 4)  # detach-basics: 4 questions scaled to 4
    assert result.score == pytest.approx(9)


def test_the_truth_keeps_warnings(prepared) -> None:
    clone = next(e for e in prepared.exercises if e.loaded.exercise.id == "clone-basics")
    warnings = clone.prepared.questions["nonleaf-grad"].warnings
    assert [w.category for w in warnings] == ["UserWarning"]
    assert "not a leaf Tensor" in warnings[0].message


@pytest.mark.parametrize(
    "item, answer, status, misconception",
    [
        pytest.param(
            "clone-basics/shares",
            "True",
            "wrong",
            "clone-shares-memory",
            id="declared-misconception",
        ),
        pytest.param("clone-basics/shares", "False", "correct", None, id="right"),
        pytest.param(
            "clone-basics/grad-fn",
            "CloneBackward",
            "correct",
            None,
            id="grad-fn-version-digit-optional",
        ),
        pytest.param("clone-basics/grad", "tensor(2.)", "wrong", None, id="wrong-value"),
        pytest.param("clone-basics/grad", "3.", "correct", None, id="number-for-0-dim-tensor"),
        # graded by value: the question is about the gradient, not its dtype
        pytest.param(
            "clone-basics/grad", "tensor(3)", "correct", None, id="int-tensor-for-float-tensor"
        ),
        pytest.param("clone-basics/grad", "3", "correct", None, id="int-for-0-dim-float-tensor"),
        pytest.param("clone-basics/grad", "tensor(4)", "wrong", None, id="int-tensor-wrong-value"),
        pytest.param("clone-basics/backward", "None", "correct", None, id="none-for-no-error"),
        pytest.param(
            "clone-basics/backward", "没有报错", "correct", None, id="no-error-in-chinese"
        ),
        pytest.param("clone-basics/grad", "tensor(3", "invalid", None, id="unparseable"),
        pytest.param("clone-basics/grad", "...", "unanswered", None, id="template-left"),
        pytest.param(
            "detach-basics/backward-nonscalar", "no error", "wrong", None, id="no-error-but-raises"
        ),
        pytest.param(
            "detach-basics/seen",
            "tensor(5., grad_fn=<SelectBackward>)",
            "correct",
            None,
            id="article-spelling",
        ),
        pytest.param(
            "detach-basics/backward-nonscalar",
            "RuntimeError: grad can be implicitly created only for scalar outputs",
            "correct",
            None,
            id="traceback-last-line",
        ),
        pytest.param(
            "detach-basics/backward-nonscalar", "runtime error", "correct", None, id="spaced-lower"
        ),
        pytest.param(
            "detach-basics/backward-nonscalar", "Exception", "correct", None, id="accepted-base"
        ),
        pytest.param(
            "detach-basics/backward-nonscalar", "ValueError", "wrong", None, id="other-class"
        ),
        pytest.param("clone-basics/shares", "false", "correct", None, id="lower-case-false"),
    ],
)
def test_one_answer(
    prepared, item: str, answer: str, status: str, misconception: str | None
) -> None:
    result = grade_submission(prepared, Submission("s", "ps1", answers={item: answer}))
    q = next(q for q in result.questions if q.id == item)
    assert (q.status.value, q.misconception) == (status, misconception)
    assert str(q.feedback)  # every outcome explains itself


@pytest.mark.parametrize(
    ("item", "answer", "note"),
    [
        ("clone-basics/shares", "false", "Read `false` as `False`, the way Python writes it."),
        (
            "detach-basics/backward-nonscalar",
            "RuntimeError: whatever it said",
            "Read as `RuntimeError`: the exception class is graded, not the message after it.",
        ),
        (
            "detach-basics/backward-nonscalar",
            "Exception",
            "Accepted: the question takes `Exception` as well as `RuntimeError`.",
        ),
        ("clone-basics/grad", "tensor(3", "clone() passes its gradient (3) back to a."),
    ],
)
def test_feedback_says_how_an_answer_was_read(prepared, item: str, answer: str, note: str) -> None:
    result = grade_submission(prepared, Submission("s", "ps1", answers={item: answer}))
    assert note in str(next(q for q in result.questions if q.id == item).feedback)


@pytest.mark.parametrize(
    ("item", "answer", "said", "unsaid"),
    [
        pytest.param(
            "detach-basics/backward-nonscalar",
            "Exception",
            "Accepted: `Exception` is one of the answers the question takes.",
            "RuntimeError",
            id="accepted",
        ),
        pytest.param(
            "detach-basics/backward-nonscalar",
            "ValueError: whatever it said",
            "Read as `ValueError`: the exception class is graded, not the message after it.",
            "RuntimeError",
            id="spelling-of-a-wrong-answer",
        ),
    ],
)
def test_explain_keeps_the_notes_on_the_answer_but_never_the_truth(
    prepared, item: str, answer: str, said: str, unsaid: str
) -> None:
    result = grade_submission(prepared, Submission("s", "ps1", answers={item: answer}))
    q = next(q for q in result.questions if q.id == item)
    assert q.explain is not None and said in str(q.explain) and unsaid not in str(q.explain)
    assert unsaid in str(q.feedback)  # the instructor's feedback (and a closed assignment's) has it


def test_a_hostile_answer_is_invalid_and_nothing_runs(
    prepared, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    hostile = "__import__('os').system('touch x')"
    result = grade_submission(
        prepared, Submission("s", "ps1", answers={"clone-basics/shares": hostile})
    )
    assert result.questions[0].status.value == "invalid"
    assert not (tmp_path / "x").exists()


def test_unanswered_questions_score_zero_with_the_explanation(prepared) -> None:
    result = grade_submission(prepared, Submission("s", "ps1"))
    assert {q.status.value for q in result.questions} == {"unanswered"}
    assert result.score == 0


CRASHING = """\
id: crashes
title: crashes the interpreter
section: "§2"
kind: predict
setup: |
  import os
  os._exit(1)
questions:
  - id: q
    prompt: "?"
    expr: "1"
    explain: never reached.
"""


@pytest.mark.sandbox
def test_a_setup_that_kills_the_interpreter_is_that_exercise_s_error(tmp_path: Path) -> None:
    course = write_course(tmp_path, {"crashes.yml": CRASHING})
    with pytest.raises(SpecError) as info:
        validate_course(course)
    problems = [str(p) for p in info.value.problems]
    assert len(problems) == 1, problems
    assert problems[0].startswith("exercises/crashes.yml:5:1: computing the truth failed (error)")


def test_truths_are_identical_across_runs(tmp_path: Path) -> None:
    course = write_course(tmp_path)
    keys = []
    for _ in range(2):
        with open_workspace(course, cache=False, runner=InProcessRunner()) as ws:
            keys.append(answer_key(prepare_assignment(ws.loaded, "ps1", ws.ctx)))
    assert keys[0] == keys[1]


@pytest.mark.sandbox
def test_grade_json_prints_only_the_results_document(tmp_path: Path) -> None:
    course = write_course(tmp_path)
    answers = tmp_path / "ada.yml"
    answers.write_text(
        'student: ada\nassignment: ps1\nanswers:\n  clone-basics/shares: "False"\n  '
        "clone-basics/grad: tensor(3.)\n"
    )
    broken = tmp_path / "bob.yml"
    broken.write_text("student: [unclosed\n")
    result = CliRunner().invoke(
        main, ["grade", "ps1", str(answers), str(broken), "--json", "--course", str(course)]
    )
    doc = json.loads(result.stdout)
    assert result.exit_code == 1  # bob's file cannot be read
    assert set(doc) >= {"course", "assignment", "torch_version", "graded_at", "students"}
    ada, bob = doc["students"]
    assert (ada["student"], ada["score"], ada["status"]) == ("ada", pytest.approx(2.0), "graded")
    # What the document tells bob is a typed message, written in English here.
    error = ResultsDocument.parse(result.stdout).students[1].error
    assert bob["status"] == "ungradable" and "invalid YAML" in str(error)
    assert set(ada["questions"][0]) == {
        "id",
        "status",
        "points",
        "max_points",
        "answer",
        "expected",
        "feedback",
        "misconception",
        "section",
        "explain",  # the feedback without the comparison: what learners see before the due date
    }


@pytest.mark.sandbox
def test_key_json_is_an_answers_mapping(tmp_path: Path) -> None:
    course = write_course(tmp_path)
    result = CliRunner().invoke(main, ["key", "ps1", "--json", "--course", str(course)])
    key = json.loads(result.stdout)
    assert key["clone-basics/grad"] == "tensor(3.)"
    assert os.path.exists(tmp_path / ".graders-cache")


def test_a_question_s_own_section_is_the_one_its_result_cites(tmp_path: Path) -> None:
    # A question marked `section: beyond` in an exercise of §1a: the learner's pages, the API
    # and the report all read the result's section, so it must be the question's own.
    from small_course import small_course, text

    marked = text("exercises/clone-basics.yml").replace(
        '  - id: flag\n    prompt: "What is `b.requires_grad`?"',
        '  - id: flag\n    section: beyond\n    prompt: "What is `b.requires_grad`?"',
    )
    assert marked != text("exercises/clone-basics.yml")
    course = small_course(tmp_path / "course", files={"exercises/clone-basics.yml": marked})
    with open_workspace(course, runner=InProcessRunner()) as ws:
        prep = prepare_assignment(ws.loaded, "ps1", ws.ctx)
        result = grade_submission(prep, Submission("ada", "ps1", answers={}))
    sections = {q.id: q.section for q in result.questions}
    assert sections["clone-basics/flag"] == "beyond"
    assert sections["clone-basics/shares"] == "§1a"
