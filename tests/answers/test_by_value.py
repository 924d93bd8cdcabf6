"""Values graded by value unless the question's lesson is the type, end to end.

An exercise asks the same values twice: once where the lesson is the value (no
``strict:``), once where it is the dtype or the container (``strict: [dtype]``,
``strict: [type]``). A right value written as another type earns the points on the
first, with a note on how torch prints it (in the learner's language), and is refused on
the second, told that the question is about the type.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from small_course import small_course

from graders.grading.pipeline import (
    PreparedAssignment,
    Submission,
    answer_key,
    grade_submission,
    prepare_assignment,
)
from graders.results import QuestionResult
from graders.said import render
from graders.sandbox import InProcessRunner
from graders.workspace import open_workspace

TYPED = """\
id: clone-basics
title: values and their types
section: "§1a"
kind: predict
setup: |
  import torch
  a = torch.tensor([2.0, 3.0], requires_grad=True)
  (a * a).sum().backward()
  mask = torch.tensor([0.0, 1.0, 1.0, 0.0])
questions:
  - {id: grad, prompt: "a.grad?", expr: a.grad, explain: "Twice a."}
  - {id: grad-type, prompt: "a.grad?", expr: a.grad, explain: "A tensor.", strict: [type]}
  - {id: total, prompt: "a.grad.sum()?", expr: a.grad.sum(), explain: "Ten."}
  - {id: mask, prompt: "mask?", expr: mask, explain: "Floats."}
  - {id: mask-dtype, prompt: "mask?", expr: mask, explain: "Float32.", strict: [dtype]}
  - {id: item, prompt: "a.grad.sum().item()?", expr: a.grad.sum().item(), explain: "A float."}
  - {id: one, prompt: "float(1)?", expr: float(1), explain: "One."}
  - {id: one-dtype, prompt: "float(1)?", expr: float(1), explain: "A float.", strict: [dtype]}
  - {id: count, prompt: "len(a)?", expr: len(a), explain: "Two."}
"""


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PreparedAssignment]:
    root = small_course(tmp_path_factory.mktemp("typed"), {"exercises/clone-basics.yml": TYPED})
    with open_workspace(root / "course.yml", runner=InProcessRunner()) as ws:
        yield prepare_assignment(ws.loaded, "ps1", ws.ctx)


def graded(prepared: PreparedAssignment, question: str, answer: str) -> QuestionResult:
    item = f"clone-basics/{question}"
    result = grade_submission(prepared, Submission("s", "ps1", answers={item: answer}))
    return next(q for q in result.questions if q.id == item)


def test_the_key_is_torch_s_and_earns_full_marks(prepared: PreparedAssignment) -> None:
    key = answer_key(prepared)
    assert key["clone-basics/grad"] == "tensor([4., 6.])"
    assert (key["clone-basics/total"], key["clone-basics/item"]) == ("tensor(10.)", "10.0")
    assert (key["clone-basics/mask"], key["clone-basics/one"]) == (
        "tensor([0., 1., 1., 0.])",
        "1.0",
    )
    result = grade_submission(prepared, Submission("key", "ps1", answers=key))
    assert {q.status.value for q in result.questions} == {"correct"}
    assert all("Right by value" not in (str(q.feedback) or "") for q in result.questions)


# (question, answer, how torch prints it): each right by value, on questions not about type.
BY_VALUE = [
    ("grad", "[4., 6.]", "tensor([4., 6.]) (a float tensor)"),
    ("grad", "[4, 6]", "tensor([4., 6.]) (a float tensor)"),
    ("grad", "(4., 6.)", "tensor([4., 6.]) (a float tensor)"),
    ("grad", "tensor([4, 6])", "tensor([4., 6.]) (a float tensor)"),
    ("total", "10", "tensor(10.) (a float tensor)"),
    ("total", "10.", "tensor(10.) (a float tensor)"),
    ("total", "tensor(10)", "tensor(10.) (a float tensor)"),
    ("mask", "tensor([0, 1, 1, 0])", "tensor([0., 1., 1., 0.]) (a float tensor)"),
    ("mask", "[0, 1, 1, 0]", "tensor([0., 1., 1., 0.]) (a float tensor)"),
    ("item", "10", "10.0 (a float)"),
    ("item", "tensor(10.)", "10.0 (a float)"),
    ("one", "1", "1.0 (a float)"),
    ("count", "2.", "2 (an int)"),
    ("count", "tensor(2)", "2 (an int)"),
]


@pytest.mark.parametrize(("question", "answer", "printed"), BY_VALUE)
def test_a_right_value_of_another_type_earns_the_points_with_a_note(
    prepared: PreparedAssignment, question: str, answer: str, printed: str
) -> None:
    q = graded(prepared, question, answer)
    note = f"Right by value; torch gives it as {printed}."
    assert (q.status.value, q.points) == ("correct", q.max_points)
    # Before the due date too: the note is the learner's own values in torch's type.
    assert note in str(q.feedback) and q.explain is not None and note in str(q.explain)


def test_the_note_is_said_in_the_learner_s_language(prepared: PreparedAssignment) -> None:
    q = graded(prepared, "mask", "tensor([0, 1, 1, 0])")
    zh = render(q.feedback, "zh").split("\n")
    assert "按数值判为正确；torch 给出的是 tensor([0., 1., 1., 0.])（一个浮点张量）。" in zh


# (question, answer, what the feedback says): refused where the type is the lesson.
KEPT = [
    ("grad-type", "[4., 6.]", "this question is about the type"),
    ("grad-type", "(4, 6)", "this question is about the type"),
    ("mask-dtype", "tensor([0, 1, 1, 0])", "this question is about the dtype"),
    ("one-dtype", "1", "this question is about the dtype"),
]


@pytest.mark.parametrize(("question", "answer", "said"), KEPT)
def test_a_question_about_the_type_keeps_refusing_another_type(
    prepared: PreparedAssignment, question: str, answer: str, said: str
) -> None:
    q = graded(prepared, question, answer)
    assert (q.status.value, q.points) == ("wrong", 0.0)
    assert said in str(q.feedback)
    assert q.explain is not None and said not in str(
        q.explain
    )  # "the value is right" is the truth's


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("grad-type", "tensor([4., 6.])"),
        ("grad-type", "tensor([4, 6])"),  # the container is the lesson, not the dtype
        ("mask-dtype", "tensor([0., 1., 1., 0.])"),
        ("mask-dtype", "[0., 1., 1., 0.]"),  # the dtype is the lesson, not the container
        ("one-dtype", "1.0"),
    ],
)
def test_a_question_about_the_type_takes_its_type(
    prepared: PreparedAssignment, question: str, answer: str
) -> None:
    assert graded(prepared, question, answer).status.value == "correct"


@pytest.mark.parametrize(
    ("question", "answer"),
    [("grad", "[4., 7.]"), ("total", "11"), ("mask", "tensor([1, 1, 1, 0])"), ("one", "2")],
)
def test_a_wrong_value_of_another_type_is_wrong(
    prepared: PreparedAssignment, question: str, answer: str
) -> None:
    q = graded(prepared, question, answer)
    assert q.status.value == "wrong" and "about the" not in str(q.feedback)
