"""Course v4's review (issue 48), each finding held by a test: right answers in the forms
torch prints are marked right, no explanation claims what torch contradicts, no prompt
states its answer or asks two questions, imprecise texts say what is true, the Chinese
texts keep the glossary's one word for in-place and for non-leaf, no prose line renders as
code, and the explanations of a linear model's input gradient, mark_dirty on a leaf and
sqrt's backward at 0 say what torch does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from graders.answers.compare import compare
from graders.answers.judging import BY_VALUE
from graders.answers.parse import parse_answer
from graders.answers.values import Value
from graders.course.glossary import glossary_problems, other_renderings, terms
from graders.course.indented import indented_code_problems
from graders.course.load import load_course
from graders.course.loaded import LoadedCourse
from graders.course.prompts import two_question_problems
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
    # torch: a where on the output alone still sends 0 / 0 back; guarding the input works.
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


def test_a_linear_model_s_input_gradient_has_a_graph_only_a_constant_has_none(
    loaded: LoadedCourse,
) -> None:
    # torch: for nn.Linear the gradient with respect to x is computed from the weight, so it
    # has a graph and a penalty on it trains the weight; only a constant factor has none.
    torch.manual_seed(0)
    lin, x = torch.nn.Linear(3, 1), torch.randn(4, 3, requires_grad=True)
    (g,) = torch.autograd.grad(lin(x).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == "MmBackward0"
    (g**2).sum().backward()
    assert lin.weight.grad is not None and lin.weight.grad.abs().sum() > 0
    c = torch.tensor(3.0, requires_grad=True)
    assert torch.autograd.grad(3 * c, c, create_graph=True)[0].grad_fn is None
    explain = _texts(loaded, "double-backward", "linear-create-graph", "explain")
    assert (
        "having no graph for it" not in explain["en"] and "根本没有它的计算图" not in explain["zh"]
    )
    assert all("MmBackward0" in text and "nn.Linear" in text for text in explain.values())


def test_mark_dirty_on_a_leaf_raises_after_forward_wrote_it(loaded: LoadedCourse) -> None:
    class AddOne(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, t: torch.Tensor) -> torch.Tensor:
            t.add_(1)
            ctx.mark_dirty(t)
            return t

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
            return grad

    x = torch.tensor([0.0, 1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        AddOne.apply(x)
    assert torch.equal(x.detach(), torch.tensor([1.0, 2.0]))  # written, though refused
    explain = _texts(loaded, "custom-function", "dirty-input-history", "explain")
    assert (
        "as any in-place" not in explain["en"] and "和任何 in-place 操作一样" not in explain["zh"]
    )
    assert all("`[0., 1.]`" in text and "`[1., 2.]`" in text for text in explain.values())


def test_no_prose_line_renders_as_code(loaded: LoadedCourse) -> None:
    assert [problem.message for problem in indented_code_problems(loaded)] == []


def test_chinese_texts_keep_one_word_for_non_leaf(loaded: LoadedCourse) -> None:
    non_leaf = next(t for t in loaded.course.glossary if t.term == "non-leaf")
    assert "非叶子节点" in non_leaf.forbidden.get("zh", [])
    reported = other_renderings("读取非叶子节点的 `.grad`", terms(loaded, "zh"))
    assert [(term.source, word) for term, word in reported] == [("non-leaf", "非叶子节点")]
    assert [problem.message for problem in glossary_problems(loaded)] == []


def test_sqrt_s_backward_at_zero_is_zero_over_zero(loaded: LoadedCourse) -> None:
    # torch's SqrtBackward0 computes grad / (2 * result): 0 / 0 = NaN for an incoming 0,
    # 1 / 0 = inf for an incoming 1. There is no "0 * inf" in it.
    for incoming, expected in ((0.0, "nan"), (1.0, "inf")):
        z = torch.zeros(1, requires_grad=True)
        z.sqrt().backward(torch.tensor([incoming]))
        assert str(z.grad.item()) == expected
    q_ids = ("nan-without-anomaly-mode", "nan-culprit")
    texts = [t for q in q_ids for t in _texts(loaded, "anomaly-detection", q, "explain").values()]
    texts += [
        m.explain
        for language in ("en", "zh")
        for m in _question(loaded, "anomaly-detection", q_ids[0], language).misconceptions
    ]
    assert texts and all("0 · inf" not in t and "0 / 0" in t for t in texts)
