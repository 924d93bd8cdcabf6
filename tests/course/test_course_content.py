"""The bundled course: enough questions, every section covered, misconceptions that are
really wrong, the article drifts the audit must report, and the course-v2 findings
(issue 17) each held by a test: what torch contradicts is no longer claimed, no title or
prompt gives its answer away, answers are asked for in a form a learner can write.

Truths come from ``graders.kinds.predict.child.task.compute``, the very function the sandbox child
runs, called in this process: the course's own setup code is trusted, and a child
per exercise would only slow the suite down.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from graders.answers.compare import compare
from graders.answers.parse import parse_answer, render_answer
from graders.answers.values import ExceptionValue, GradFnValue, NoError, Value
from graders.course.load import load_course
from graders.course.loaded import LoadedCourse
from graders.course.model import BEYOND, SECTIONS, in_article
from graders.course.text import text_paths
from graders.kinds.predict.audit import audit_course
from graders.kinds.predict.child.task import compute
from graders.kinds.predict.truth import Truths
from graders.validate import untranslated

COURSE_FILE = Path(__file__).resolve().parent.parent.parent / "course.yml"
MIN_QUESTIONS = 140
MIN_FILES = 30
QUESTIONS_PER_FILE = range(3, 7)
# Which sections each problem set teaches (code exercises may join them later).
ASSIGNMENT_SECTIONS = {
    "ps1": {"§1a", "§1b", "§2", "§3"},
    "ps2": {"§4"},
    "ps3": {"§5", BEYOND},
    "ps4": {"§3", BEYOND},
    "ps5": {BEYOND},
    "ps6": {BEYOND},
    "ps7": {BEYOND},
}
# Course v2's, v3's and ps7's new problem sets, and at least how many predict questions each adds.
NEW_ASSIGNMENTS = {"ps4": 25, "ps5": 25, "ps6": 30, "ps7": 30}
# The only questions whose output the article printed (§1a, §1b, §2): drift detection.
ARTICLE_PRINTED = {
    "clone-requires-grad/same-object",
    "clone-requires-grad/same-memory",
    "clone-requires-grad/flags",
    "clone-backward/grad-after-first-backward",
    "clone-backward/clone-grad-after-backward",
    "clone-backward/a-grad-after-both",
    "clone-no-grad/flags",
    "clone-no-grad/clone-grad",
    "clone-no-grad/original-grad",
    "detach-result/same-object",
    "detach-result/same-memory",
    "detach-result/flags",
    "detach-result/original-element-grad-fn",
    "detach-inplace-ops/resize",
}
# Phrases that gave answers away in course v1 (issue 17), in titles and prompts.
GIVEAWAYS = (
    "silently wrong gradient",
    "caught at backward()",
    "BatchNorm statistics ignore freezing",
    "eval() does not stop gradients",
    "torch complains",
    "An addition saves nothing",
    "saves nothing",
    "is not a frozen parameter",
    "stale gradients",
    # ... and in course v2's prompts (issue 36): each stated the answer, its own or an
    # earlier question's (a notebook shows every prompt at once).
    "saves its input",
    "not its output",
    "returns gradients instead",
    "swaps a tensor's storage",
    "fills the gradients with zeros",
    "a tensor of zeros",
    "works today",
    "the write that worked",
    "usual fix",
    "a fresh optimizer would give",
    "already requires grad",
    "with the warning aside",
    "hold the gradients of those",
    "gradients for b only",
    "a hook may return",
    "that refused",
    "copies instead",
    "does the same",
    "enough on its own",
    "still build",
    "still share",
    "points `b` at other storage",
)
# Words of an exercise's or a question's id that state an outcome: ids are shown to learners
# (notebook cells, answers files), and "detach-shares-memory", "frozen-a-still-moves",
# "zero-grad-sets-none" answered the questions they named (issue 36).
ID_OUTCOMES = frozenset(
    """
    still move moves moved unchanged changed changes share shares shared copies copied
    caught silent silently wrong leaves stop stops stopped kept keep keeps sets accumulate
    accumulates warn warns needs reads recorded records nothing fail fails failed survive
    survives undo undoes trap reset resets skipped trained trains computed saves fix fixes
    not is flow flows continues replaces returns swaps refused raises error errors works
    succeeds breaks harmless again anyway tracked retained leftover
    """.split()
)


@pytest.fixture(scope="module")
def loaded() -> LoadedCourse:
    return load_course(COURSE_FILE)


@pytest.fixture(scope="module")
def predict(loaded: LoadedCourse) -> dict[str, Any]:
    """The predict exercises, by id."""
    return {i: e.exercise for i, e in loaded.exercises.items() if e.kind.name == "predict"}


@pytest.fixture(scope="module")
def truths(loaded: LoadedCourse, predict: dict[str, Any]) -> dict[str, Truths]:
    """Each predict exercise's truths, from what the child task returns."""
    return {
        ex_id: Truths.from_json(compute(_payload(ex, loaded.course.seed)))
        for ex_id, ex in predict.items()
    }


def _payload(exercise: Any, seed: int) -> dict[str, Any]:
    questions = [
        {"id": q.id, "expr": q.expr} if q.expr is not None else {"id": q.id, "run": q.run}
        for q in exercise.questions
    ]
    return {"seed": seed, "setup": exercise.setup, "questions": questions}


def _questions(predict: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(ex_id, q) for ex_id, ex in predict.items() for q in ex.questions]


def _truth(truths: dict[str, Truths], ex_id: str, q_id: str) -> Value:
    return truths[ex_id].questions[q_id].value


def test_enough_questions_and_files(predict: dict[str, Any]) -> None:
    questions = _questions(predict)
    assert len(predict) >= MIN_FILES
    assert len(questions) >= MIN_QUESTIONS
    assert [f"{ex_id}/{q.id}" for ex_id, q in questions if not q.misconceptions] == []


def test_the_new_problem_sets_have_their_questions(
    loaded: LoadedCourse, predict: dict[str, Any]
) -> None:
    last_before = max(a.due for a in loaded.course.assignments if a.id not in NEW_ASSIGNMENTS)
    for assignment_id, at_least in NEW_ASSIGNMENTS.items():
        found = loaded.course.assignment(assignment_id)
        assert found is not None and found.due > last_before, assignment_id
        count = sum(
            len(predict[item.id].questions) for item in found.exercises if item.id in predict
        )
        assert count >= at_least, (assignment_id, count)


def test_every_article_section_is_covered(loaded: LoadedCourse) -> None:
    cited = {
        item.section or ex.exercise.section
        for ex in loaded.exercises.values()
        for item in ex.kind.items(ex.exercise)
    }
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


def test_setups_run_and_truths_are_writable(
    loaded: LoadedCourse, truths: dict[str, Truths]
) -> None:
    problems = {}
    for ex_id, prepared in truths.items():
        entry = loaded.exercises[ex_id]
        found = entry.kind.problems(entry.exercise, prepared, entry.marks)
        if found:
            problems[ex_id] = [p.message for p in found]
    assert problems == {}


def test_expected_answers_grade_as_correct(
    predict: dict[str, Any], truths: dict[str, Truths]
) -> None:
    # The key a learner would read must itself be an accepted, correct answer.
    failing = []
    for ex_id, q in _questions(predict):
        truth = _truth(truths, ex_id, q.id)
        if not compare(parse_answer(render_answer(truth)), truth).correct:
            failing.append(f"{ex_id}/{q.id}: {render_answer(truth)}")
    assert failing == []


def test_misconceptions_are_graded_wrong(
    predict: dict[str, Any], truths: dict[str, Truths]
) -> None:
    graded_right = []
    for ex_id, q in _questions(predict):
        truth = _truth(truths, ex_id, q.id)
        for m in q.misconceptions:
            if compare(parse_answer(m.answer), truth).correct:
                graded_right.append(f"{ex_id}/{q.id} [{m.name}]: {m.answer!r} is the truth")
    assert graded_right == []


def test_article_outputs_parse(predict: dict[str, Any]) -> None:
    claims = [q.article_says for _, q in _questions(predict) if q.article_says is not None]
    assert len(claims) >= 14
    for text in claims:
        parse_answer(text)


def test_article_says_only_what_the_article_printed(predict: dict[str, Any]) -> None:
    # resize_as_, transpose_ and set_ are listed in §2, but the article ran only resize_.
    claimed = {f"{ex_id}/{q.id}" for ex_id, q in _questions(predict) if q.article_says is not None}
    assert claimed == ARTICLE_PRINTED


@pytest.mark.parametrize(
    ("question", "verdict", "mentions"),
    [
        ("detach-result/original-element-grad-fn", "renamed", "SelectBackward0"),
        (
            "clone-backward/clone-grad-after-backward",
            "new warning",
            "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor",
        ),
        ("detach-inplace-ops/resize", "changed", "no longer raises RuntimeError"),
        ("clone-backward/a-grad-after-both", "same", ""),
        ("clone-requires-grad/flags", "same", ""),
    ],
)
def test_audit_reports_the_drifts(
    loaded: LoadedCourse,
    truths: dict[str, Truths],
    question: str,
    verdict: str,
    mentions: str,
) -> None:
    drifts = {d.question: d for d in audit_course(loaded, truths)}
    assert drifts[question].verdict == verdict
    assert mentions in drifts[question].note


@pytest.mark.parametrize(
    ("question", "cls", "fragment"),
    [
        (
            "clone-requires-grad/unset-requires-grad-on-clone",
            "RuntimeError",
            "only change requires_grad flags of leaf variables",
        ),
        ("leaf-inplace-ops/resize", "RuntimeError", "cannot resize variables that require grad"),
        (
            "leaf-inplace-ops/set",
            "RuntimeError",
            "leaf Variable that requires grad is being used in an in-place operation",
        ),
        (
            "leaf-inplace-ops/element-write",
            "RuntimeError",
            "leaf Variable that requires grad is being used in an in-place operation",
        ),
        ("clone-detach-order/backward-through-copy", "RuntimeError", "does not require grad"),
        (
            "sigmoid-through-detach/backward-after-zero",
            "RuntimeError",
            "modified by an inplace operation",
        ),
        (
            "detach-between-modules/article-backward",
            "RuntimeError",
            "grad can be implicitly created only for scalar outputs",
        ),
        (
            "freeze-inference-mode/inference-into-b",
            "RuntimeError",
            "Inference tensors cannot be saved for backward",
        ),
        (
            "deepcopy-module/deepcopy-non-leaf",
            "RuntimeError",
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol",
        ),
        (
            "optimizer-param-groups/add-twice",
            "ValueError",
            "some parameters appear in more than one parameter group",
        ),
        (
            "inplace-without-detach/backward-after-mul-add",
            "RuntimeError",
            "which is output 0 of Sigmoid, is at version 2; expected version 0 instead",
        ),
        (
            "inplace-without-detach/relu-inplace-after-sigmoid",
            "RuntimeError",
            "is at version 1; expected version 0 instead",
        ),
        (
            "retain-grad-and-hooks/hook-on-plain-tensor",
            "RuntimeError",
            "cannot register a hook on a tensor that doesn't require gradient",
        ),
        (
            "backward-inputs-and-grad/second-backward",
            "RuntimeError",
            "Trying to backward through the graph a second time",
        ),
        (
            "backward-inputs-and-grad/grad-of-unused",
            "RuntimeError",
            "The differentiated Tensor at index 0 appears to not have been used in the graph",
        ),
        (
            "detach-inplace-and-copy/detach-in-place-on-view",
            "RuntimeError",
            "Can't detach views in-place. Use detach() instead.",
        ),
        # Course v3's ps6: each error for the reason its explanation gives.
        (
            "non-leaf-views/view-made-under-no-grad",
            "RuntimeError",
            "A view was created in no_grad mode and is being modified inplace",
        ),
        (
            "non-leaf-views/saved-output-through-view",
            "RuntimeError",
            "which is output 0 of Sigmoid",
        ),
        (
            "grad-mode-nesting/inference-tensor-write",
            "RuntimeError",
            "Inplace update to inference tensor outside InferenceMode is not allowed",
        ),
        (
            "grad-mode-nesting/inference-tensor-requires-grad",
            "RuntimeError",
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed",
        ),
        (
            "step-before-backward/backward-after-step",
            "RuntimeError",
            "is at version 1; expected version 0 instead",
        ),
        (
            "dtypes-and-gradients/integer-leaf",
            "RuntimeError",
            "Only Tensors of floating point and complex dtype can require gradients",
        ),
        (
            "anomaly-detection/anomaly-mode-backward",
            "RuntimeError",
            "The variable in question was changed in there or anywhere later",
        ),
        (
            "anomaly-detection/nan-in-anomaly-mode",
            "RuntimeError",
            "Function 'SqrtBackward0' returned nan values in its 0th output",
        ),
        # ps7: a custom Function's saved tensors, its gradients, and autograd.grad's graph.
        (
            "custom-function/saved-output-write",
            "RuntimeError",
            "which is output 0 of MyExp, is at version 1; expected version 0 instead",
        ),
        (
            "custom-function/extra-gradient",
            "RuntimeError",
            "returned an incorrect number of gradients (expected 1, got 2)",
        ),
        (
            "double-backward/backward-after-autograd-grad",
            "RuntimeError",
            "Saved intermediate values of the graph are freed when you call .backward() or autograd.grad()",
        ),
    ],
)
def test_errors_are_raised_for_the_reason_taught(
    truths: dict[str, Truths],
    question: str,
    cls: str,
    fragment: str,
) -> None:
    # Graded by class alone; the message proves the question teaches the right cause.
    ex_id, q_id = question.split("/")
    truth = _truth(truths, ex_id, q_id)
    assert (getattr(truth, "cls", None), fragment in getattr(truth, "message", "")) == (cls, True)


def _texts(exercise: Any, language: str) -> dict[str, str]:
    """Every learner-facing text of an exercise in ``language``, by its place."""
    shown = exercise.in_language(language)
    out = {}
    for path in text_paths(shown):
        value: Any = shown
        for key in path:
            value = value[key] if isinstance(key, int) else getattr(value, key)
        out[".".join(map(str, path))] = value
    return out


def _all_texts(predict: dict[str, Any]) -> dict[str, str]:
    return {
        f"{ex_id}:{lang}:{where}": text
        for ex_id, ex in predict.items()
        for lang in ("en", "zh")
        for where, text in _texts(ex, lang).items()
    }


def test_every_text_is_given_in_both_languages(loaded: LoadedCourse) -> None:
    assert loaded.course.languages == ["en", "zh"]
    assert [str(p) for p in untranslated(loaded)] == []


def test_chinese_texts_use_the_articles_terms(predict: dict[str, Any]) -> None:
    zh = " ".join(t for k, t in _all_texts(predict).items() if ":zh:" in k)
    for term in ("中间节点", "叶子节点", "共享内存", "计算图", "反向传播", "原tensor"):
        assert term in zh, term
    assert "张量" not in zh  # the article keeps "tensor" untranslated


def test_questions_beyond_the_article_are_tagged(loaded: LoadedCourse) -> None:
    beyond = [
        item.id
        for ex in loaded.exercises.values()
        for item in ex.kind.items(ex.exercise)
        if item.section == BEYOND
    ]
    assert len(beyond) >= 30
    assert (
        "leaf-inplace-ops/write-under-no-grad" in beyond and "leaf-inplace-ops/resize" not in beyond
    )


def test_no_text_cites_the_empty_supplement(loaded: LoadedCourse, predict: dict[str, Any]) -> None:
    # The article's "supplement" is a bare heading: nothing can be cited from it, by a
    # prediction or a code exercise (freeze-module cited it until course v3).
    assert [k for k, t in _all_texts(predict).items() if "supplement" in t] == []
    assert "supplement" not in SECTIONS
    cited = {
        item.section or ex.exercise.section
        for ex in loaded.exercises.values()
        for item in ex.kind.items(ex.exercise)
    }
    assert cited <= set(SECTIONS)


def test_no_id_states_what_its_question_asks(predict: dict[str, Any]) -> None:
    ids = [ex_id for ex_id in predict] + [f"{ex_id}/{q.id}" for ex_id, q in _questions(predict)]
    stated = [
        (item, word)
        for item in ids
        for word in item.split("/")[-1].split("-")
        if word in ID_OUTCOMES
    ]
    assert stated == []
    # The ids course v2 gave its predictions are kept as former ids, so nothing graded or
    # handed in under them is lost (tests/course/test_renames.py reads them back).
    formerly = {old for ex in predict.values() for q in ex.questions for old in q.formerly}
    assert {
        "grads-accumulate-on-original",
        "zero-grad-sets-none",
        "frozen-a-still-moves",
    } <= formerly


def test_no_title_or_prompt_gives_its_answer_away(predict: dict[str, Any]) -> None:
    shown = {
        k: t
        for k, t in _all_texts(predict).items()
        if k.endswith(":title") or k.endswith(".prompt")
    }
    assert [(k, p) for k, t in shown.items() for p in GIVEAWAYS if p.lower() in t.lower()] == []


# What a predict exercise's questions ask about: a title that states one of these states an
# answer ("a new tensor on the same memory, outside the graph" answered three questions).
OUTCOMES = {
    "en": (
        "same memory",
        "share",
        "new tensor",
        "same object",
        "in the graph",
        "inside the graph",
        "outside the graph",
        "raise",
        "refuse",
        "error",
        "warn",
        "silent",
        "caught",
        "ignore",
        "fail",
        "succeed",
        "cost",
        "copies",
        "not a",
        "stays",
        "still",
        "undo",
        "stops",
        "trap",
        "complain",
        "nothing",
    ),
    "zh": (
        "同一块内存",
        "共享",
        "新 tensor",
        "计算图中",
        "计算图之外",
        "报错",
        "警告",
        "拒绝",
        "悄悄",
        "忽略",
        "失败",
        "代价",
        "不训练",
        "仍然",
        "陷阱",
        "无效",
    ),
}


def test_no_predict_title_states_what_its_questions_ask(predict: dict[str, Any]) -> None:
    stated = [
        (f"{ex_id}:{lang}", phrase)
        for ex_id, ex in predict.items()
        for lang, phrases in OUTCOMES.items()
        for phrase in phrases
        if phrase in ex.in_language(lang).title.lower()
    ]
    assert stated == []


def test_no_run_of_three_identical_answers(
    predict: dict[str, Any], truths: dict[str, dict[str, Any]]
) -> None:
    runs = []
    for ex_id, ex in predict.items():
        keys = [render_answer(_truth(truths, ex_id, q.id)) for q in ex.questions]
        runs += [
            f"{ex_id}: {keys[i]} x3 from question {i + 1}"
            for i in range(len(keys) - 2)
            if len(set(keys[i : i + 3])) == 1
        ]
    assert runs == []


def test_a_non_leaf_accepts_requires_grad_true_and_the_course_says_so(
    predict: dict[str, Any], truths: dict[str, dict[str, Any]]
) -> None:
    # Course v1 claimed non-leaf tensors refuse requires_grad_(); only switching off (or assigning) is refused.
    assert isinstance(_truth(truths, "clone-requires-grad", "switch-on-requires-grad"), NoError)
    assert (
        _truth(truths, "clone-requires-grad", "unset-requires-grad-on-clone").cls == "RuntimeError"
    )
    claims = [
        k
        for k, t in _all_texts(predict).items()
        if "refuse `requires_grad_()`" in t or "requires_grad` can only be switched on a leaf" in t
    ]
    assert claims == []


@pytest.mark.parametrize("answer", ["tensor(1.)", "1.", "tensor(1., requires_grad=True)", "None"])
def test_the_select_question_grades_the_grad_fn(
    truths: dict[str, dict[str, Any]], answer: str
) -> None:
    truth = _truth(truths, "detach-result", "original-element-grad-fn")
    assert truth == GradFnValue("SelectBackward0")
    assert not compare(parse_answer(answer), truth).correct
    assert compare(
        parse_answer("<SelectBackward>"), truth
    ).correct  # the article's name, without the digit


def test_the_leaf_resize_explanation_names_the_right_check(
    predict: dict[str, Any], truths: dict[str, dict[str, Any]]
) -> None:
    # The article's error was a check on detached tensors, removed in torch 1.13; the leaf refuses by another rule.
    truth = _truth(truths, "leaf-inplace-ops", "resize")
    explain = " ".join(
        next(q.explain for q in predict["leaf-inplace-ops"].questions if q.id == "resize").split()
    )
    assert (
        "cannot resize variables that require grad" in truth.message
        and "set_sizes_contiguous" not in truth.message
    )
    assert "1.13" in explain and "cannot resize variables that require grad" in explain


def test_answers_are_asked_for_in_a_form_a_learner_writes(
    predict: dict[str, Any], truths: dict[str, dict[str, Any]]
) -> None:
    # 1 for 1.0, tensor(1.) for tensor(1), Warning for UserWarning: each question asks for what it teaches.
    assert render_answer(_truth(truths, "zero-grad-step", "none-grad-step")) == "True"
    assert render_answer(_truth(truths, "freeze-batchnorm", "batch-count")) == "1"
    assert render_answer(_truth(truths, "clone-backward", "non-leaf-grad-read")) == "True"
    prompts = {
        (ex_id, q.id): (q.prompt, ex.in_language("zh").questions[i].prompt)
        for ex_id, ex in predict.items()
        for i, q in enumerate(ex.questions)
    }
    for (ex_id, q_id), (en, zh) in prompts.items():
        rendered = render_answer(_truth(truths, ex_id, q_id))
        if "." in rendered and rendered.replace(".", "").isdigit():  # a float
            assert "float" in en and "浮点数" in zh, (ex_id, q_id)
    # Course v3: "zeros, not None" is asked as a yes or no, not as a typed matrix of zeros.
    assert render_answer(_truth(truths, "freeze-mid-training", "grad-after-zero-grad")).isdigit()
    assert "tensor([[" not in prompts[("freeze-mid-training", "grad-after-zero-grad")][0]


def test_detach_keeps_a_fixed_only_while_a_has_no_gradient(
    predict: dict[str, Any], truths: dict[str, dict[str, Any]]
) -> None:
    # Course v1 said detach() alone keeps A fixed; with gradients left on A, the step moves it.
    assert (
        render_answer(_truth(truths, "detach-vs-full-backward", "a-after-detach-step")) == "False"
    )
    explain = " ".join(
        next(
            q.explain for q in predict["detach-between-modules"].questions if q.id == "a-after-step"
        ).split()
    )
    assert "alone is enough" not in explain and "only stops new gradients" in explain


def test_quoted_error_messages_are_what_torch_says(
    predict: dict[str, Any], truths: dict[str, dict[str, Any]]
) -> None:
    # An explanation that quotes the error quotes today's torch, word for word.
    misquoted = []
    for ex_id, q in _questions(predict):
        truth = _truth(truths, ex_id, q.id)
        if not isinstance(truth, ExceptionValue):
            continue
        message = " ".join(truth.message.split())
        quoted = [" ".join(m.split()) for m in re.findall(r'"([^"]{15,})"', q.explain)]
        if quoted and not any(m.rstrip(".") in message for m in quoted):
            misquoted.append(f"{ex_id}/{q.id}: {quoted}")
    assert misquoted == []


def test_chinese_paragraphs_are_not_broken_mid_sentence(predict: dict[str, Any]) -> None:
    # Markdown and the feedback page would show a soft line break between two Chinese characters.
    broken = [
        k
        for k, t in _all_texts(predict).items()
        if ":zh:" in k
        for outside in re.split(r"```.*?```", t, flags=re.S)
        if re.search(r"[\u4e00-\u9fff，。：；、（）]\n[\u4e00-\u9fff，。：；、（）]", outside)
    ]
    assert broken == []


def _explain(predict: dict[str, Any], question: str, language: str) -> str:
    ex_id, q_id = question.split("/")
    shown = predict[ex_id].in_language(language)
    return " ".join(next(q.explain for q in shown.questions if q.id == q_id).split())


# Course v3 (issue 36): what the review found false or misleading, each said right now.
V3_FINDINGS = [  # (question, language, what its explanation says, what it no longer says)
    (
        "clone-requires-grad/clone-leaf-status",
        "en",
        "a tensor with no `grad_fn`",
        "did not compute",
    ),
    (
        "clone-requires-grad/clone-leaf-status",
        "zh",
        "叶子节点是没有 `grad_fn` 的 tensor",
        "没有从其他",
    ),
    (
        "copy-construct/recommended-order",
        "en",
        "for years this very warning recommended `sourceTensor.clone().detach()`",
        "That is why",
    ),
    (
        "copy-construct/recommended-order",
        "zh",
        "多年来，这条警告推荐的都是 `sourceTensor.clone().detach()`",
        "这就是 torch 推荐",
    ),
    (
        "copy-construct/detach-first-grad-fn",
        "en",
        "without building a node",
        "That is why torch recommends",
    ),
    (
        "copy-construct/detach-first-grad-fn",
        "zh",
        "不会先构建一个节点再把它丢掉",
        "这就是 torch 推荐",
    ),
    ("checkpoint-state-dict/load-memory", "en", "With `load_state_dict(saved, assign=True)`", "\0"),
    ("checkpoint-state-dict/load-memory", "zh", "`load_state_dict(saved, assign=True)`", "\0"),
    ("optimizer-param-groups/add-twice", "en", "A `ValueError`", "\0"),
    ("optimizer-param-groups/add-twice", "zh", "抛出的是 `ValueError`", "\0"),
]


@pytest.mark.parametrize(("question", "language", "says", "no_longer"), V3_FINDINGS)
def test_what_the_v3_review_found_is_said_right(
    predict: dict[str, Any], question: str, language: str, says: str, no_longer: str
) -> None:
    explain = _explain(predict, question, language)
    assert (says in explain, no_longer in explain) == (True, False), explain


def test_the_leaf_definition_holds_for_the_course_s_own_clones(
    truths: dict[str, Truths], predict: dict[str, Any]
) -> None:
    # b = a.clone() of a tensor that requires no grad is computed from a, and is a leaf.
    assert _truth(truths, "clone-no-grad", "clone-leaf-status") == parse_answer("True")
    assert _truth(truths, "clone-requires-grad", "clone-leaf-status") == parse_answer("False")
    # requires_grad_() is refused on an inference tensor: the misconception no longer says
    # it succeeds "on any floating-point tensor".
    for language in ("en", "zh"):
        shown = predict["clone-requires-grad"].in_language(language)
        question = next(q for q in shown.questions if q.id == "switch-on-requires-grad")
        explain = question.misconceptions[0].explain
        assert "inference tensor" in explain and "any floating-point" not in explain


def test_write_through_data_says_each_variant_s_own_factor(loaded: LoadedCourse) -> None:
    ex = loaded.exercises["data-vs-detach"]
    said = set()
    for variant in ex.variants:
        factor = variant.values["factor"]
        for language, words in (
            ("en", f"multiplied by {factor} too"),
            ("zh", f"原来的 {factor} 倍"),
        ):
            shown = variant.exercise.in_language(language)
            explain = next(q.explain for q in shown.questions if q.id == "write-through-data")
            assert words in " ".join(explain.split()) and "doubles" not in explain
            said.add(factor)
    assert len(said) > 1  # the variants do differ in their factor


def test_add_twice_grades_the_class_torch_raises(
    truths: dict[str, Truths], predict: dict[str, Any]
) -> None:
    truth = _truth(truths, "optimizer-param-groups", "add-twice")
    question = next(q for q in predict["optimizer-param-groups"].questions if q.id == "add-twice")
    assert truth.cls == "ValueError"  # type: ignore[union-attr]
    assert "RuntimeError" in [m.answer for m in question.misconceptions]
    assert not compare(parse_answer("RuntimeError"), truth).correct


def test_the_glossary_holds_the_review_s_terms_and_every_chinese_text_follows_it(
    loaded: LoadedCourse,
) -> None:
    from graders.course.glossary import glossary_problems, terms

    glossary = {t.source: t.translated for t in terms(loaded, "zh")}
    assert {
        "leaf": "叶子节点",
        "non-leaf": "中间节点",
        "weight decay": "权重衰减",
        "momentum": "动量",
        "buffer": "缓冲区",
        "computation graph": "计算图",
        "backward pass": "反向传播",
    }.items() <= glossary.items()
    assert [str(p) for p in glossary_problems(loaded)] == []


def test_no_chinese_text_of_any_exercise_keeps_a_line_wrap(loaded: LoadedCourse) -> None:
    # A folded or wrapped line leaves a space or a soft break between two Chinese characters
    # ("新建一个优化器， 或清空"), in code exercises as much as in predictions.
    cjk = r"[\u4e00-\u9fff，。：；、（）]"
    broken = [
        (getattr(model, "id", "course.yml"), path)
        for model in [loaded.course] + [e.template or e.exercise for e in loaded.exercises.values()]
        for path, by_language in model.texts_by_language().items()
        for outside in re.split(r"```.*?```", by_language.get("zh", ""), flags=re.S)
        if re.search(cjk + r"[ \n]" + cjk, outside)
    ]
    assert broken == []


README = COURSE_FILE.parent / "README.md"
CONTENTS_BLOCK = re.compile(
    r"<!-- course contents: graders audit --markdown -->\n(.*?)<!-- end of course contents -->",
    re.S,
)


def test_the_readme_says_what_the_course_holds(loaded: LoadedCourse) -> None:
    # Counted, not typed: course v2's README said "5 code exercises (19 checks)" with 7.
    from click.testing import CliRunner

    from graders.cli import main

    done = CliRunner().invoke(main, ["audit", "--markdown", "--course", str(COURSE_FILE)])
    assert done.exit_code == 0, done.output
    found = CONTENTS_BLOCK.search(README.read_text(encoding="utf-8"))
    assert found is not None and found.group(1) == done.output


def test_the_contents_count_every_exercise_once(loaded: LoadedCourse) -> None:
    from graders.course.contents import course_contents

    contents = course_contents(loaded)
    items = sum(len(ex.kind.items(ex.exercise)) for ex in loaded.exercises.values())
    kinds = Counter(ex.kind.name for ex in loaded.exercises.values())
    assert (contents.exercises(), contents.items()) == (len(loaded.exercises), items)
    assert {k: contents.exercises(k) for k in contents.kinds()} == dict(kinds)
    assert [a.id for a in contents.assignments] == ["ps1", "ps2", "ps3", "ps4", "ps5", "ps6", "ps7"]
    assert contents.renamed == len(set(loaded.renamed.values())) > 0
