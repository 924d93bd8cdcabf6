"""The rules of reading an answer (issue 48's TA review), each over many forms: right,
loosely right, wrong and unreadable, in every course language. Graded as a learner's
answer is (``grade_question``), so `invalid` and `wrong` are told apart where the grade
is decided."""

from __future__ import annotations

import math

import pytest

from graders.answers.judging import same_name
from graders.answers.parse import AnswerSyntaxError, read_answer
from graders.answers.values import (
    DtypeValue,
    ExceptionValue,
    GradFnValue,
    NoError,
    Scalar,
    Sequence,
    SizeValue,
    TensorValue,
    Value,
)
from graders.answers.words import word
from graders.i18n import en, zh
from graders.kinds.base import ExerciseAnswers
from graders.kinds.predict.judge import grade_question
from graders.kinds.predict.model import Question
from graders.kinds.predict.truth import Truth, Truths
from graders.results import QuestionResult
from graders.said import render

RUNTIME = ExceptionValue("RuntimeError", "a leaf Variable that requires grad ...")
FLAGS = Sequence("tuple", (Scalar(True), Scalar(False)))


def _result(text: str, truth: Value, run: bool, strict: list[str]) -> QuestionResult:
    code = {"run": "x.backward()"} if run else {"expr": "x"}
    q = Question(id="q", prompt="What is it?", explain="Because.", strict=strict, **code)
    truths = Truths(raw={}, questions={"q": Truth(truth, "key")})
    return grade_question("ex", q, truths, ExerciseAnswers(answers={"ex/q": text}))


def graded(text: str, truth: Value, *, run: bool = False, strict: list[str] | None = None) -> str:
    """The status of ``text`` as the answer to a question whose key is ``truth`` (a
    question about what happens when a statement runs, if ``run``; keeping ``strict``)."""
    result = _result(text, truth, run, strict or [])
    if result.status.value == "invalid":
        said = render(result.feedback, "en")
        assert "Could not read this answer" in said, said  # with a sentence saying why
    return result.status.value


def feedback(text: str, truth: Value, lang: str) -> str:
    """The feedback on ``text`` for the key ``truth``, as a page in ``lang`` shows it."""
    return render(_result(text, truth, False, []).feedback, lang)


# -- 1. A word reads the same as the whole answer and inside a tuple or a list -------------

VOCABULARY = [
    *en.BOOLEANS,
    *en.NUMBERS,
    *(w.upper() for w in ("yes", "two", "twice")),
    *zh.BOOLEANS,
    *("thirty-five", "Forty-Five", "ninety-nine", "twenty-one"),
    *("零", "〇", "一", "两", "十", "十二", "二十", "三十五", "九十九"),
]


@pytest.mark.parametrize("written", VOCABULARY)
def test_a_word_reads_the_same_alone_and_inside_a_tuple_or_a_list(written: str) -> None:
    value = word(written)
    assert value is not None
    assert read_answer(written).value == Scalar(value)
    for text, kind in (
        (f"({written}, {written})", "tuple"),
        (f"[{written}, 1]", "list"),
        (f"（{written}，{written}）", "tuple"),  # as a Chinese keyboard types it
        (f"{written}， {written}", "tuple"),
    ):
        read = read_answer(text)
        assert isinstance(read.value, Sequence) and read.value.kind == kind, text
        assert read.value.items[0] == Scalar(value), text
        assert any(f"`{written}`" in render(n, "en") for n in read.notes), text


def test_every_chinese_numeral_to_ninety_nine_is_a_word() -> None:
    numerals = {zh.number(t) for t in _every_chinese_numeral()}
    assert numerals == set(range(100))


def _every_chinese_numeral() -> list[str]:
    digits = "零一二三四五六七八九"
    small = [digits[n] for n in range(10)] + [
        "十" + ("" if n == 0 else digits[n]) for n in range(10)
    ]
    return small + [
        digits[t] + "十" + ("" if n == 0 else digits[n]) for t in range(2, 10) for n in range(10)
    ]


WORDS_GRADED = [
    # right, the whole answer and inside a tuple, in both languages
    ("(是, 否)", FLAGS, "correct"),
    ("（是，否）", FLAGS, "correct"),
    ("是，否", FLAGS, "correct"),
    ("[对, 错]", FLAGS, "correct"),
    ("(yes, no)", FLAGS, "correct"),
    ("(是的, 不是)", FLAGS, "correct"),
    ("(一, 一)", Sequence("tuple", (Scalar(1), Scalar(1))), "correct"),
    ("（两，三）", Sequence("tuple", (Scalar(2), Scalar(3))), "correct"),
    ("(one, one)", Sequence("tuple", (Scalar(1), Scalar(1))), "correct"),
    (
        "（否，torch.Size（［5］），是）",
        Sequence("tuple", (Scalar(False), SizeValue((5,)), Scalar(True))),
        "correct",
    ),
    ("twice", Scalar(2), "correct"),
    ("(once, twice)", Sequence("tuple", (Scalar(1), Scalar(2))), "correct"),
    ("两次", Scalar(2), "correct"),
    ("2 times", Scalar(2), "correct"),
    # "no error" in each course language's words, as an element too
    ("(True, no error)", Sequence("tuple", (Scalar(True), NoError())), "correct"),
    ("[No Exception, 1]", Sequence("list", (NoError(), Scalar(1))), "correct"),
    ("（1，没有报错）", Sequence("tuple", (Scalar(1), NoError())), "correct"),
    ("(1, 不报错)", Sequence("tuple", (Scalar(1), NoError())), "correct"),
    (
        "(True, True, no error)",
        Sequence("tuple", (Scalar(True), Scalar(True), Scalar(None))),
        "wrong",
    ),
    ("(True, 没有报错)", Sequence("tuple", (Scalar(True), Scalar(None))), "wrong"),
    ("('no error', 1)", Sequence("tuple", (NoError(), Scalar(1))), "wrong"),  # a string
    # wrong: read, and not what torch gave
    ("(是, 是)", FLAGS, "wrong"),
    ("(否, 否, 否, 是)", Sequence("tuple", (Scalar(True),) * 4), "wrong"),
    ("(yes, yes)", FLAGS, "wrong"),
    ("thrice", Scalar(2), "wrong"),
    ("(0, 0)", FLAGS, "wrong"),  # kept: an int is not a bool
    # unreadable: a word no language reads
    ("(是, 也许)", FLAGS, "invalid"),
    ("(True, maybe)", FLAGS, "invalid"),
    ("(a, b)", FLAGS, "invalid"),
    ("[是, x]", FLAGS, "invalid"),
]


@pytest.mark.parametrize(
    ("text", "truth", "status"), WORDS_GRADED, ids=[t for t, *_ in WORDS_GRADED]
)
def test_words_in_a_value_are_graded_as_their_values(text: str, truth: Value, status: str) -> None:
    assert graded(text, truth) == status


def test_an_unread_word_inside_a_tuple_is_named_as_a_word_not_a_keyboard_mistake() -> None:
    reason = render(_reason("(是, 也许)"), "en")
    assert "`也许`" in reason and "ASCII" not in reason


def _reason(text: str) -> object:
    with pytest.raises(AnswerSyntaxError) as info:
        read_answer(text)
    return info.value.reason


# -- 2. A bare word that is no value is invalid, never wrong --------------------------------

BARE_WORDS = [
    # right and loosely right
    ("False", Scalar(False), "correct"),
    ("否", Scalar(False), "correct"),
    ("no", Scalar(False), "correct"),
    ("RuntimeError", RUNTIME, "correct"),
    ("runtime error", RUNTIME, "correct"),
    ("抛出 RuntimeError。", RUNTIME, "correct"),
    (
        "float32",
        DtypeValue("float32"),
        "correct",
    ),
    ("cpu", Scalar("cpu"), "correct"),  # a string's text, without its quotes
    # wrong: a value, an exception or a class name that is not the key
    ("True", Scalar(False), "wrong"),
    ("ValueError", RUNTIME, "wrong"),
    ("RuntimeError", Scalar(False), "wrong"),  # predicts it raises: an answer
    ("SelectBackward1", GradFnValue("SelectBackward0"), "wrong"),
    ("Exception", RUNTIME, "wrong"),
    ("cuda", Scalar("cpu"), "wrong"),
    # unreadable: no value of any kind
    ("maybe", Scalar(False), "invalid"),
    ("idk", Scalar(False), "invalid"),
    ("same", Scalar(True), "invalid"),
    ("unknown", Scalar(2), "invalid"),
    ("x", TensorValue(2.0, ()), "invalid"),
    ("crash", RUNTIME, "invalid"),
    ("RuntimeErorr", RUNTIME, "invalid"),  # a typo of a class, not another class
    ("RuntimeErorr", NoError(), "invalid"),
    ("Runtimeerorr", Scalar(False), "invalid"),
    ("也许", Scalar(False), "invalid"),
    ("不知道", RUNTIME, "invalid"),
]


@pytest.mark.parametrize(
    ("text", "truth", "status"), BARE_WORDS, ids=[f"{t}-{s}" for t, _, s in BARE_WORDS]
)
def test_a_bare_word_that_is_no_value_is_invalid(text: str, truth: Value, status: str) -> None:
    assert graded(text, truth) == status


def test_a_typo_of_an_exception_class_says_which_class_it_may_mean() -> None:
    q = Question(id="q", prompt="p", explain="e", run="x")
    truths = Truths(raw={}, questions={"q": Truth(RUNTIME, "RuntimeError")})
    result = grade_question("ex", q, truths, ExerciseAnswers(answers={"ex/q": "RuntimeErorr"}))
    assert "if you meant `RuntimeError`" in render(result.feedback, "en")


# -- 3. A grad_fn's version digit may be left out of the key's name, never added -----------

GRAD_FNS = [
    ("<SelectBackward0>", "SelectBackward0", "correct"),
    ("SelectBackward", "SelectBackward0", "correct"),
    ("<SelectBackward0 object at 0x7f3a2c1d0e80>", "SelectBackward0", "correct"),
    ("《SelectBackward0》", "SelectBackward0", "correct"),
    ("<CopySlices>", "CopySlices", "correct"),
    ("MyExpBackward", "MyExpBackward", "correct"),
    ("CopyBackwards0", "CopyBackwards", "wrong"),
    ("CopySlices0", "CopySlices", "wrong"),
    ("<MyExpBackward0>", "MyExpBackward", "wrong"),
    ("SelectBackward1", "SelectBackward0", "wrong"),
    ("MulBackward0", "SelectBackward0", "wrong"),
    ("selectbackward", "SelectBackward0", "correct"),  # a class name in another case
    ("mulbackward0", "SelectBackward0", "wrong"),  # another node, in any case
]


@pytest.mark.parametrize(
    ("text", "key", "status"), GRAD_FNS, ids=[f"{t}-{k}" for t, k, _ in GRAD_FNS]
)
def test_a_version_digit_is_dropped_from_the_key_never_added(
    text: str, key: str, status: str
) -> None:
    assert graded(text, GradFnValue(key)) == status


@pytest.mark.parametrize("base", ["CopySlices", "AccumulateGrad", "MyFnBackward", "CppFunction"])
def test_no_digit_is_added_to_any_name_without_one(base: str) -> None:
    assert same_name(base, base) and not same_name(base + "0", base)
    assert same_name(base, base + "7") and not same_name(base + "1", base + "7")


# -- 4. A note in parentheses after any value that is read -----------------------------------

NOTES = [
    ("False (different id())", Scalar(False), "correct"),
    ("5 (2 + 3)", Scalar(5), "correct"),
    ("1 (bumped once)", Scalar(1), "correct"),
    ("35 (the hook multiplies by 10)", Scalar(35), "correct"),
    ("5（因为 2 + 3）", Scalar(5), "correct"),
    ("否（不是同一个对象）", Scalar(False), "correct"),
    ("tensor([2., 4.]) (doubled)", TensorValue([2.0, 4.0], (2,)), "correct"),
    ("(True, False) (the flags)", FLAGS, "correct"),
    ("<SelectBackward0> (indexing)", GradFnValue("SelectBackward0"), "correct"),
    ("RuntimeError (multiple views)", RUNTIME, "correct"),
    ("two (a and b)", Scalar(2), "correct"),
    ("True (same object)", Scalar(False), "wrong"),
    ("6 (2 * 3)", Scalar(5), "wrong"),
    ("maybe (not sure)", Scalar(False), "invalid"),
    ("(1 + 2) (note)", Scalar(3), "invalid"),  # what comes before the note is not read
    ("tensor([1.], device='cpu')", TensorValue([1.0], (1,)), "invalid"),  # a call, no note
    ("f(x)", Scalar(1), "invalid"),
]


@pytest.mark.parametrize(("text", "truth", "status"), NOTES, ids=[t for t, *_ in NOTES])
def test_a_note_in_parentheses_after_a_value_is_not_graded(
    text: str, truth: Value, status: str
) -> None:
    assert graded(text, truth) == status


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("(1, 2)", Sequence("tuple", (Scalar(1), Scalar(2)))),
        ("(5)", Scalar(5)),
        ("tensor (2.)", TensorValue(2.0, ())),
    ],
)
def test_parentheses_with_no_value_before_them_are_python_s(text: str, value: Value) -> None:
    read = read_answer(text)
    assert read.value == value and not read.notes


def test_the_note_is_said_to_be_left_out() -> None:
    notes = [render(n, "en") for n in read_answer("5 (2 + 3)").notes]
    assert notes == ["Read as `5`: the note in parentheses after it is not graded."]


# -- 5. grad_fn=<X>, as torch prints it inside a tensor --------------------------------------

LABELLED = [
    ("grad_fn=<SelectBackward0>", GradFnValue("SelectBackward0"), "correct"),
    ("grad_fn = <SelectBackward>", GradFnValue("SelectBackward0"), "correct"),
    ("y.grad_fn: <MulBackward0 object at 0x7f3a2c1d0e80>", GradFnValue("MulBackward0"), "correct"),
    ("grad_fn＝《SelectBackward0》", GradFnValue("SelectBackward0"), "correct"),
    ("grad_fn=None", Scalar(None), "correct"),
    ("grad_fn=<MulBackward0>", GradFnValue("SelectBackward0"), "wrong"),
    ("grad_fn=<CopySlices0>", GradFnValue("CopySlices"), "wrong"),
    ("grad_fn=", GradFnValue("SelectBackward0"), "invalid"),
    ("grad_fn=<maybe>", GradFnValue("SelectBackward0"), "invalid"),
]


@pytest.mark.parametrize(("text", "truth", "status"), LABELLED, ids=[t for t, *_ in LABELLED])
def test_a_grad_fn_after_its_label_is_read(text: str, truth: Value, status: str) -> None:
    assert graded(text, truth) == status


# -- 6. Number words to ninety-nine ------------------------------------------------------------

NUMBERS = [
    ("thirty-five", 35, "correct"),
    ("Forty-Five", 45, "correct"),
    ("forty five", 45, "correct"),
    ("ninety-nine", 99, "correct"),
    ("thirty", 30, "correct"),
    ("thirty-five calls", 35, "correct"),
    ("三十五", 35, "correct"),
    ("三十五次", 35, "correct"),
    ("九十九", 99, "correct"),
    ("(thirty-five, 2)", None, "correct"),
    ("thirty-four", 35, "wrong"),
    ("三十四", 35, "wrong"),
    ("thirty-zero", 30, "invalid"),
    ("(thirty - five, 2)", None, "invalid"),  # with spaces: a subtraction, not worked out
    ("one hundred", 100, "invalid"),
    ("一百", 100, "invalid"),
]


@pytest.mark.parametrize(("text", "number", "status"), NUMBERS, ids=[t for t, *_ in NUMBERS])
def test_number_words_to_ninety_nine(text: str, number: int | None, status: str) -> None:
    truth = Sequence("tuple", (Scalar(35), Scalar(2))) if number is None else Scalar(number)
    assert graded(text, truth) == status


def test_a_number_word_is_not_called_arithmetic() -> None:
    assert "arithmetic" not in render(_reason("thirty-zero"), "en")


# -- 7. A yes/no where the answer is what happens ----------------------------------------------

OUTCOMES = [
    ("no error", NoError(), "correct"),
    ("没有报错", NoError(), "correct"),
    ("None", NoError(), "correct"),
    ("RuntimeError", RUNTIME, "correct"),
    ("raises RuntimeError", RUNTIME, "correct"),
    ("抛出 RuntimeError。", RUNTIME, "correct"),
    ("RuntimeError", NoError(), "wrong"),
    ("no error", RUNTIME, "wrong"),
    ("不报错", RUNTIME, "wrong"),
    ("no", NoError(), "invalid"),
    ("yes", RUNTIME, "invalid"),
    ("False", NoError(), "invalid"),
    ("True", RUNTIME, "invalid"),
    ("否", NoError(), "invalid"),
    ("是", RUNTIME, "invalid"),
    ("对", NoError(), "invalid"),
    ("maybe", NoError(), "invalid"),
]


@pytest.mark.parametrize(
    ("text", "truth", "status"), OUTCOMES, ids=[f"{t}-{s}" for t, _, s in OUTCOMES]
)
def test_a_yes_or_no_is_no_outcome(text: str, truth: Value, status: str) -> None:
    assert graded(text, truth, run=True) == status


def test_the_question_s_kind_decides_not_its_key() -> None:
    # A value question whose expression raises takes False as a value: wrong, not invalid.
    assert graded("False", RUNTIME) == "wrong"
    assert graded("no", RUNTIME) == "wrong"


# -- 8. Strings written without quotes, as elements of a tuple or a list --------------------


def _strings(*texts: str) -> Sequence:
    return Sequence("list", tuple(Scalar(t) for t in texts))


HOOKS = _strings("pre B", "pre A", "hook B", "hook A")
EVENTS = _strings("tensor", "post-accumulate")
NODES = _strings("SigmoidBackward0", "MulBackward0")
MIXED = Sequence("tuple", (Scalar("cpu"), Scalar(2), RUNTIME))
UNQUOTED = [
    # right: each element what a TA reads between the commas
    ("[first, second]", _strings("first", "second"), "correct"),
    ("[pre B, pre A, hook B, hook A]", HOOKS, "correct"),
    ("pre B, pre A, hook B, hook A", HOOKS, "correct"),
    ("['pre B', pre A, hook B, 'hook A']", HOOKS, "correct"),
    ("【pre B，pre A，hook B，hook A】", HOOKS, "correct"),
    ("[tensor, post-accumulate]", EVENTS, "correct"),
    ("(tensor, post-accumulate)", EVENTS, "correct"),
    ("[SigmoidBackward0, <MulBackward0>]", NODES, "correct"),
    ("(cpu, two, raises RuntimeError)", MIXED, "correct"),
    ("（cpu，2，抛出 RuntimeError）", MIXED, "correct"),
    ("(True, raises RuntimeError)", Sequence("tuple", (Scalar(True), RUNTIME)), "correct"),
    ("(2 entries, True)", Sequence("tuple", (Scalar(2), Scalar(True))), "correct"),
    # wrong: another order, another text (a free string's case is its own)
    ("[pre A, pre B, hook A, hook B]", HOOKS, "wrong"),
    ("[pre b, pre a, hook b, hook a]", HOOKS, "wrong"),
    ("[post-accumulate, tensor]", EVENTS, "wrong"),
    ("[First, second]", _strings("first", "second"), "wrong"),
    ("(cuda, 2, RuntimeError)", MIXED, "wrong"),
    # unreadable: words where the key is no string, no comma to say where elements end
    ("(True, yes RuntimeError)", Sequence("tuple", (Scalar(True), RUNTIME)), "invalid"),
    ("(pre B, 2)", Sequence("tuple", (Scalar(1), Scalar(2))), "invalid"),
    ("(x-1, 2)", Sequence("tuple", (Scalar(1), Scalar(2))), "invalid"),
    ("(one hundred, 2)", Sequence("tuple", (Scalar(100), Scalar(2))), "invalid"),
    ("[first second]", _strings("first", "second"), "invalid"),
    ("pre B", Scalar("pre B"), "invalid"),  # a phrase is read as an element only
]


@pytest.mark.parametrize(
    ("text", "truth", "status"), UNQUOTED, ids=[f"{t}-{s}" for t, _, s in UNQUOTED]
)
def test_an_element_written_without_quotes_is_read_as_its_text(
    text: str, truth: Value, status: str
) -> None:
    assert graded(text, truth) == status


def test_what_was_read_without_quotes_is_said_in_every_language() -> None:
    said = {lang: feedback("[pre B, pre A, hook B, hook A]", HOOKS, lang) for lang in ("en", "zh")}
    assert "['pre B', 'pre A', 'hook B', 'hook A'] (a list)" in said["en"]
    assert "['pre B', 'pre A', 'hook B', 'hook A']（一个列表）" in said["zh"]


def test_a_phrase_that_is_not_read_keeps_python_s_reason() -> None:
    assert "arithmetic" in render(_reason("(x - y, 2)"), "en")
    assert "not valid Python syntax" in render(_reason("[first second]"), "en")


# -- 9. A class's name in another case; a free string's case is its own ----------------------

CASES = [
    ("sigmoidbackward0", Scalar("SigmoidBackward0"), "correct"),
    ("SIGMOIDBACKWARD0", Scalar("SigmoidBackward0"), "correct"),
    ("'sigmoidbackward0'", Scalar("SigmoidBackward0"), "correct"),
    ("'SigmoidBackward'", Scalar("SigmoidBackward0"), "correct"),
    ("' SigmoidBackward0 '", Scalar("SigmoidBackward0"), "correct"),
    ("'first '", Scalar("first"), "wrong"),  # a free string as typed
    ("<sqrtbackward0>", Scalar("SqrtBackward0"), "correct"),
    ("selectbackward0", GradFnValue("SelectBackward0"), "correct"),
    ("copyslices", GradFnValue("CopySlices"), "correct"),
    ("runtimeerror", Scalar("RuntimeError"), "correct"),
    ("'runtimeerror'", RUNTIME, "correct"),  # a class named in quotes is the class
    ("'RuntimeError'", RUNTIME, "correct"),
    ("long", DtypeValue("int64"), "correct"),
    ("Int64", DtypeValue("int64"), "correct"),
    ("FLOAT32", DtypeValue("float32"), "correct"),
    ("[sigmoidbackward0, mulbackward0]", NODES, "correct"),
    # wrong: another class in any case, a free string in another case
    ("mulbackward0", Scalar("SigmoidBackward0"), "wrong"),
    ("'mulbackward0'", Scalar("SigmoidBackward0"), "wrong"),
    ("sqrtbackward0", GradFnValue("SigmoidBackward0"), "wrong"),
    ("'ValueError'", RUNTIME, "wrong"),
    ("int32", DtypeValue("int64"), "wrong"),
    ("CPU", Scalar("cpu"), "wrong"),
    ("'First'", Scalar("first"), "wrong"),
    ("'hello'", Scalar("Hello"), "wrong"),
    ("Sigmoidbackward1", Scalar("SigmoidBackward0"), "wrong"),
]


@pytest.mark.parametrize(("text", "truth", "status"), CASES, ids=[f"{t}-{s}" for t, _, s in CASES])
def test_a_class_name_is_read_in_any_case_a_free_string_is_not(
    text: str, truth: Value, status: str
) -> None:
    assert graded(text, truth) == status


@pytest.mark.parametrize(
    ("text", "truth", "en", "zh"),
    [
        (
            "sigmoidbackward0",
            Scalar("SigmoidBackward0"),
            "torch gives it as 'SigmoidBackward0' (a string)",
            "torch 给出的是 'SigmoidBackward0'（一个字符串）",
        ),
        (
            "selectbackward0",
            GradFnValue("SelectBackward0"),
            "written in full: <SelectBackward0>",
            "完整的写法是：<SelectBackward0>",
        ),
        ("long", DtypeValue("int64"), "written in full: torch.int64", "完整的写法是：torch.int64"),
    ],
)
def test_a_name_read_in_another_case_says_how_torch_writes_it(
    text: str, truth: Value, en: str, zh: str
) -> None:
    assert en in feedback(text, truth, "en") and zh in feedback(text, truth, "zh")


# -- 10. The one item of a one-item list or tuple, without its brackets -----------------------

PACKED = Sequence("list", (TensorValue([1.0, 2.0], (2,)),))
GRAD_INPUT = Sequence("tuple", (TensorValue([[1.0, 2.0]], (1, 2)),))
ALONE = [
    ("tensor([1., 2.])", PACKED, "correct"),
    ("[tensor([1., 2.])]", PACKED, "correct"),
    ("tensor([[1., 2.]])", GRAD_INPUT, "correct"),
    ("7.", Sequence("list", (Scalar(7.0),)), "correct"),
    ("first", _strings("first"), "correct"),
    ("RuntimeError", Sequence("tuple", (RUNTIME,)), "correct"),
    ("tensor([1., 3.])", PACKED, "wrong"),
    ("tensor([1., 2.])", Sequence("list", (TensorValue([1.0, 2.0], (2,)),) * 2), "wrong"),
    ("[1., 2.]", PACKED, "wrong"),  # two floats, not one tensor without its brackets
    ("second", _strings("first"), "wrong"),
    ("maybe", _strings("first"), "wrong"),  # a string's text, as it is for 'first'
    # not the other way: a container torch does not give
    ("[tensor([1., 2.])]", TensorValue([1.0, 2.0], (2,)), "wrong"),
    ("(tensor([1., 2.]),)", TensorValue([1.0, 2.0], (2,)), "wrong"),
]


@pytest.mark.parametrize(("text", "truth", "status"), ALONE, ids=[f"{t}-{s}" for t, _, s in ALONE])
def test_the_item_of_a_one_item_list_may_be_written_alone(
    text: str, truth: Value, status: str
) -> None:
    assert graded(text, truth) == status


def test_an_item_alone_is_not_the_container_where_the_type_is_the_lesson() -> None:
    assert graded("tensor([1., 2.])", PACKED, strict=["type"]) == "wrong"
    said = feedback("tensor([1., 2.])", PACKED, "zh")
    assert "torch 给出的是 [tensor([1., 2.])]（一个列表）" in said


# -- 11. A full stop ends a sentence after any answer ------------------------------------------

STOPS = [
    ("torch.int64.", DtypeValue("int64"), "correct"),
    ("SigmoidBackward0.", Scalar("SigmoidBackward0"), "correct"),
    ("<SelectBackward0>.", GradFnValue("SelectBackward0"), "correct"),
    ("2.5.", Scalar(2.5), "correct"),
    ("2.", Scalar(2.0), "correct"),  # a decimal point, not a full stop
    ("torch.float32.", DtypeValue("int64"), "wrong"),
]


@pytest.mark.parametrize(("text", "truth", "status"), STOPS, ids=[f"{t}-{s}" for t, _, s in STOPS])
def test_a_full_stop_after_a_name_ending_in_a_digit(text: str, truth: Value, status: str) -> None:
    assert graded(text, truth) == status


# -- 12. Ways of saying no error, or naming the class after a word for "error" ---------------

SAID_RAISED = [
    ("no error is raised", NoError(), "correct"),
    ("raises nothing", NoError(), "correct"),
    ("It does not raise.", NoError(), "correct"),
    ("runs without errors", NoError(), "correct"),
    ("正常运行", NoError(), "correct"),
    ("不会出错。", NoError(), "correct"),
    ("no error is raised", RUNTIME, "wrong"),
    ("error: RuntimeError", RUNTIME, "correct"),
    ("Error: RuntimeError", RUNTIME, "correct"),
    ("exception: RuntimeError", RUNTIME, "correct"),
    ("a runtime error", RUNTIME, "correct"),
    ("报错：RuntimeError", RUNTIME, "correct"),
    ("报错 RuntimeError", RUNTIME, "correct"),
    ("错误：RuntimeError", RUNTIME, "correct"),
    ("error: ValueError", RUNTIME, "wrong"),
    ("Exception: a leaf Variable ...", RUNTIME, "wrong"),  # Python's own class, raised
    ("Exception", RUNTIME, "wrong"),  # Python's class, as Python writes it
    ("raises an exception", RUNTIME, "invalid"),
    ("exception", RUNTIME, "invalid"),
    ("it raises an error", RUNTIME, "invalid"),  # was read as a class, ItRaisesAnError
    ("an error is raised", NoError(), "invalid"),
    ("raises a runtime error", RUNTIME, "correct"),  # was RaisesARuntimeError, wrong
    ("a runtime error is raised", RUNTIME, "correct"),
    ("报错：runtime error", RUNTIME, "correct"),
    ("throws a value error", RUNTIME, "wrong"),
    # the word for an error names no class: which one?
    ("error", RUNTIME, "invalid"),
    ("Error", RUNTIME, "invalid"),
    ("an error", RUNTIME, "invalid"),
    ("error", NoError(), "invalid"),
    ("Warning", NoError(), "invalid"),
    ("报错", RUNTIME, "invalid"),
]


@pytest.mark.parametrize(
    ("text", "truth", "status"), SAID_RAISED, ids=[f"{t}-{s}" for t, _, s in SAID_RAISED]
)
def test_what_is_raised_said_in_words(text: str, truth: Value, status: str) -> None:
    assert graded(text, truth, run=True) == status


# -- 13. Full-width parentheses after a name hold a note; a single capital is no class ------

LETTERS = [
    ("False（不是同一个对象）", Scalar(False), "correct"),
    ("True（同一块内存）。", Scalar(True), "correct"),
    ("RuntimeError（只能改叶子）", RUNTIME, "correct"),
    ("True（同一块内存）", Scalar(False), "wrong"),
    ("f（x）", Scalar(1), "invalid"),
    ("False(different objects)", Scalar(False), "invalid"),  # an ASCII call stays a call
    ("(T, F, F, T)", Sequence("tuple", (Scalar(True), Scalar(False)) * 2), "invalid"),
    ("T", Scalar(True), "invalid"),
    ("F", Scalar(True), "invalid"),
]


@pytest.mark.parametrize(("text", "truth", "status"), LETTERS, ids=[t for t, *_ in LETTERS])
def test_full_width_notes_and_single_letters(text: str, truth: Value, status: str) -> None:
    assert graded(text, truth) == status


# -- 14. A one-dim size's one number without its brackets ------------------------------------

ASSIGNED = Sequence("tuple", (Scalar(False), SizeValue((5,)), Scalar(True)))
SIZES = [
    ("5", SizeValue((5,)), "correct"),
    ("[5]", SizeValue((5,)), "correct"),
    ("Size([5])", SizeValue((5,)), "correct"),  # as tensor(...) is written without torch.
    ("(False, Size([5]), True)", ASSIGNED, "correct"),
    ("(False, 5, True)", ASSIGNED, "correct"),
    ("(False, 3, True)", ASSIGNED, "wrong"),
    ("5.", SizeValue((5,)), "wrong"),  # a size is whole numbers
    ("5", SizeValue((5, 1)), "wrong"),
    ("15", SizeValue((5, 3)), "wrong"),
]


@pytest.mark.parametrize(("text", "truth", "status"), SIZES, ids=[f"{t}-{s}" for t, _, s in SIZES])
def test_a_one_dim_size_as_its_number(text: str, truth: Value, status: str) -> None:
    assert graded(text, truth) == status


def test_a_size_as_its_number_says_how_torch_gives_it_and_not_where_the_type_is_the_lesson() -> (
    None
):
    assert "torch gives it as (False, torch.Size([5]), True)" in feedback(
        "(False, 5, True)", ASSIGNED, "en"
    )
    assert "torch 给出的是 torch.Size([5])" in feedback("5", SizeValue((5,)), "zh")
    assert graded("5", SizeValue((5,)), strict=["type"]) == "wrong"


def test_a_wrong_item_alone_is_told_what_is_wrong_with_it() -> None:
    said = feedback("tensor([0., 1.])", PACKED, "en")
    assert "Got tensor([0., 1.]), expected tensor([1., 2.])." in said
    assert "expected 1 item: [7.0]" in feedback("[3., 4.]", Sequence("list", (Scalar(7.0),)), "en")
    # an answer of another kind than the item is told the key's kind, the list
    assert "expected a list" in feedback("None", PACKED, "en")


def test_a_grad_fn_inside_a_tensor_in_another_case_says_how_torch_writes_it() -> None:
    truth = TensorValue(2.0, (), requires_grad=True, grad_fn="MulBackward0")
    assert graded("tensor(2., grad_fn=<mulbackward0>)", truth) == "correct"
    assert "tensor(2., grad_fn=<MulBackward0>)" in feedback(
        "tensor(2., grad_fn=<MulBackward>)", truth, "en"
    )
    assert graded("tensor(2., grad_fn=<addbackward0>)", truth) == "wrong"


def test_a_sentence_naming_no_class_asks_for_one() -> None:
    said = render(_reason("it raises an error"), "en")
    assert said == (
        "`it raises an error` says something is raised, but not what: write the exception "
        "class (such as RuntimeError)"
    )


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("NaN", "correct"),
        ("tensor(NaN)", "correct"),
        ("[1., NAN]", "correct"),
        ("Inf", "wrong"),
        ("infinity", "invalid"),
    ],
)
def test_nan_and_inf_in_another_case(text: str, status: str) -> None:
    truth = TensorValue(math.nan, ()) if "[" not in text else TensorValue([1.0, math.nan], (2,))
    assert graded(text, truth) == status
    if status == "correct":
        assert "as `nan`, the way Python writes it" in feedback(text, truth, "en")


@pytest.mark.parametrize(
    ("text", "status"), [("真", "correct"), ("（真，假）", "wrong"), ("不是的", "wrong")]
)
def test_chinese_words_for_the_booleans(text: str, status: str) -> None:
    truth = Scalar(True) if "，" not in text else Sequence("tuple", (Scalar(True),) * 2)
    assert graded(text, truth) == status
