"""Course v4's review (issue 48), each finding held by a test: right answers in the forms
torch prints are marked right, no explanation claims what torch contradicts, no prompt
states its answer or asks two questions, imprecise texts say what is true, and the
Chinese texts keep the glossary's one word for in-place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from graders.answers.compare import compare
from graders.answers.judging import BY_VALUE
from graders.answers.parse import parse_answer
from graders.answers.values import Value
from graders.course.glossary import glossary_problems
from graders.course.prompts import two_question_problems
from graders.kinds.load import LoadedCourse, load_course
from graders.kinds.predict.child.task import compute
from graders.kinds.predict.truth import Truths

COURSE_FILE = Path(__file__).resolve().parent.parent.parent / "course.yml"


@pytest.fixture(scope="module")
def loaded() -> LoadedCourse:
    return load_course(COURSE_FILE)


def _exercise(loaded: LoadedCourse, ex_id: str, language: str = "en") -> Any:
    return loaded.exercises[ex_id].exercise.in_language(language)


def _question(loaded: LoadedCourse, ex_id: str, q_id: str, language: str = "en") -> Any:
    return next(q for q in _exercise(loaded, ex_id, language).questions if q.id == q_id)


def _texts(loaded: LoadedCourse, ex_id: str, q_id: str | None, field: str) -> dict[str, str]:
    """A text of an exercise (``q_id`` None) or of one of its questions, by language."""
    out = {}
    for language in ("en", "zh"):
        owner = (
            _exercise(loaded, ex_id, language)
            if q_id is None
            else _question(loaded, ex_id, q_id, language)
        )
        out[language] = getattr(owner, field)
    return out


def _truth(loaded: LoadedCourse, ex_id: str, q_id: str) -> Value:
    ex = _exercise(loaded, ex_id)
    questions = [
        {"id": q.id, "expr": q.expr} if q.expr is not None else {"id": q.id, "run": q.run}
        for q in ex.questions
    ]
    payload = {"seed": loaded.course.seed, "setup": ex.setup, "questions": questions}
    return Truths.from_json(compute(payload)).questions[q_id].value


@pytest.mark.parametrize(
    ("q_id", "node"), [("named-culprit", "SigmoidBackward0"), ("nan-culprit", "SqrtBackward0")]
)
def test_a_culprit_is_right_in_every_form_torch_prints_it(
    loaded: LoadedCourse, q_id: str, node: str
) -> None:
    truth = _truth(loaded, "anomaly-detection", q_id)
    for form in (node, f"<{node}>", f"<{node} object at 0x7f3a2c1d0e80>", f"'{node}'"):
        assert compare(parse_answer(form), truth, BY_VALUE).correct, form
    for misconception in _question(loaded, "anomaly-detection", q_id).misconceptions:
        assert not compare(parse_answer(misconception.answer), truth, BY_VALUE).correct


def test_the_nan_fix_the_course_gives_is_the_one_that_works(loaded: LoadedCourse) -> None:
    # torch: a where on the output alone still sends 0 * inf back; guarding the input works.
    z = torch.zeros(1, requires_grad=True)
    torch.where(z > 0, z.sqrt(), 0).sum().backward()
    assert torch.isnan(z.grad).all()
    z = torch.zeros(1, requires_grad=True)
    torch.where(z > 0, torch.where(z > 0, z, 1).sqrt(), 0).sum().backward()
    assert torch.equal(z.grad, torch.zeros(1))
    for text in _texts(loaded, "anomaly-detection", "nan-culprit", "explain").values():
        assert "torch.where(z > 0, z, 1).sqrt()" in text and "usual fixes" not in text


def test_no_prompt_or_title_states_the_fact_its_question_tests(loaded: LoadedCourse) -> None:
    prompt = _texts(loaded, "step-before-backward", "unsaved-parameter", "prompt")
    assert "needs nothing" not in prompt["en"] and "不需要" not in prompt["zh"]
    title = _texts(loaded, "non-leaf-views", None, "title")
    assert "write" not in title["en"].lower() and "写入" not in title["zh"]


def test_every_prompt_asks_one_question(loaded: LoadedCourse) -> None:
    assert [problem.message for problem in two_question_problems(loaded)] == []


def test_imprecise_texts_say_what_is_true(loaded: LoadedCourse) -> None:
    explain = _texts(loaded, "grad-mode-nesting", "inference-tensor-requires-grad", "explain")
    assert "cannot track a tensor made in inference mode" not in explain["en"]
    assert "无法追踪在推理模式下创建的" not in explain["zh"]
    with torch.inference_mode():  # what the explanation now says: inside the mode it can
        assert torch.ones(1).requires_grad_().requires_grad
    prompt = _texts(loaded, "module-and-tensor-hooks", "backward-hook-grad-input", "prompt")
    assert "tuple" in prompt["en"] and "tuple" in prompt["zh"]


def test_chinese_texts_keep_one_word_for_in_place(loaded: LoadedCourse) -> None:
    in_place = next(t for t in loaded.course.glossary if t.term == "in-place")
    assert set(in_place.forbidden.get("zh", [])) >= {"就地", "原地"}
    assert [problem.message for problem in glossary_problems(loaded)] == []
