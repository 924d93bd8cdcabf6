"""`graders validate` finds the expected answer in a text a learner who missed the question
reads before the due date: a misconception's explanation, or the question's own where its
author marked it `explain_before_due: true`; in every language, each variant's answer in
that variant's text. The explanation of a missed question is otherwise held back, with a
sentence saying it comes with the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from lone_course import BILINGUAL_COURSE, lone_course

from graders.errors import SpecError
from graders.kinds.predict.held_back import states
from graders.validate import validate_course

EXERCISE = """\
id: clone-basics
title: {en: clone basics, zh: clone() 基础}
section: "§1a"
kind: predict
params: {k: [2, 3]}
setup: |
  import torch
  a = torch.tensor(1.0, requires_grad=True)
  b = a.clone() * {{ k }}
questions:
  - id: grad
    prompt: {en: "a.grad after b.backward()?", zh: "b.backward() 之后 a.grad 是什么？"}
    expr: (b.backward(), a.grad)[1]
    explain:
      en: "b = {{ k }}·a, so a.grad is `tensor({{ k }}.)` (§4)."
      zh: "梯度是 {{ k }}。"
    MARK
    misconceptions:
      - answer: "None"
        name: clone-cuts
        explain:
          en: "clone stays in the graph (§1a)."
          zh: "clone 仍在计算图中：tensor({{ k }}.)"
  - id: flag
    prompt: {en: "b.requires_grad?", zh: "b.requires_grad 是什么？"}
    expr: b.requires_grad
    explain: {en: It is True., zh: 是 True。}
    explain_before_due: true
    misconceptions:
      - {answer: "False", name: clone-drops, explain: {en: "It is True.", zh: 是 True。}}
"""


def problems(tmp_path: Path, mark: str) -> list[str]:
    course = BILINGUAL_COURSE.replace("seed: 0\n", "seed: 0\nvariants: {count: 2}\n")
    course_file = lone_course(tmp_path, course, EXERCISE.replace("    MARK\n", mark))
    with pytest.raises(SpecError) as info:
        validate_course(course_file.parent)
    return [str(p) for p in info.value.problems]


@pytest.mark.sandbox
def test_a_text_shown_before_the_due_date_that_states_the_key_is_reported(tmp_path: Path) -> None:
    found = problems(tmp_path, "    explain_before_due: true\n")
    assert any(
        p.startswith("exercises/clone-basics.yml:")
        and "questions[0].explain_before_due: every learner reads it before the due date, and "
        "it states the expected answer `tensor(2.)` (en): remove `explain_before_due`, or "
        "rewrite it without it"
        in p
        for p in found
    ), found
    # The misconception's explanation states it in Chinese only, in both variants.
    assert any(
        "questions[0].misconceptions[0].explain: a learner who answers 'None' reads it before "
        "the due date, and it states the expected answer `tensor(2.)` (zh)" in p
        for p in found
    ), found
    assert any("`tensor(3.)` (zh)" in p and "k=3" in p for p in found), found
    # A yes/no question's status already says its answer: "True" is not looked for.
    assert not any("questions[1]" in p for p in found), found


@pytest.mark.command
@pytest.mark.sandbox
def test_an_explanation_held_back_until_the_key_is_not_reported(tmp_path: Path) -> None:
    found = problems(tmp_path, "")
    assert not any("questions[0].explain" in p for p in found), found


@pytest.mark.parametrize(
    ("text", "form", "found"),
    [
        ("so `a.grad` is tensor(2.).", "tensor(2.)", True),
        ("see §4 of the article", "4", False),
        ("the factor 0.4 and x4", "4", False),
        ("version 4, then 5", "4", True),
        ("不会报错，因为", "不会报错", True),
        ("the None check", "None", True),
        ("NoneType", "None", False),
    ],
)
def test_what_counts_as_stating_an_answer(text: str, form: str, found: bool) -> None:
    assert states(text, form) is found
