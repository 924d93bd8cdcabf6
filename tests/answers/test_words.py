"""Answers a careful teaching assistant accepts: read as what they mean, each with a note on
how Python writes it, in every course language; what is still not read is `invalid` with a
reason, never `wrong`."""

from __future__ import annotations

import pytest

from graders.answers.compare import compare
from graders.answers.judging import BY_VALUE
from graders.answers.parse import AnswerSyntaxError, read_answer
from graders.answers.values import ExceptionValue, Name, NoError, Scalar, Sequence, Value
from graders.i18n.zh import number as chinese_number

RUNTIME = ExceptionValue("RuntimeError", "a view of a leaf Variable ...")

READ = [
    # booleans in words
    ("yes", Scalar(True)),
    ("No", Scalar(False)),
    ("YES.", Scalar(True)),
    ("是", Scalar(True)),
    ("否。", Scalar(False)),
    ("对", Scalar(True)),
    ("错", Scalar(False)),
    ("不是", Scalar(False)),
    # numbers in words, up to twenty, and Chinese numerals
    ("zero", Scalar(0)),
    ("two", Scalar(2)),
    ("Twenty", Scalar(20)),
    ("两", Scalar(2)),
    ("十二", Scalar(12)),
    ("二十", Scalar(20)),
    ("零", Scalar(0)),
    # a number with the word it counts
    ("1 tensor", Scalar(1)),
    ("2 entries", Scalar(2)),
    ("two calls", Scalar(2)),
    ("3 个", Scalar(3)),
    ("两个元素", Scalar(2)),
    ("1 个 tensor", Scalar(1)),
    # an exception class in a sentence, or with a note
    ("raises RuntimeError", Name("RuntimeError")),
    ("it raises a RuntimeError", Name("RuntimeError")),
    ("RuntimeError is raised", Name("RuntimeError")),
    ("a RuntimeError is raised.", Name("RuntimeError")),
    ("抛出 RuntimeError", Name("RuntimeError")),
    ("会抛出RuntimeError异常", Name("RuntimeError")),
    ("RuntimeError (multiple views)", Name("RuntimeError")),
    ("RuntimeError（在 no_grad 下）", Name("RuntimeError")),
    # words inside a tuple or a list
    ("(4, yes)", Sequence("tuple", (Scalar(4), Scalar(True)))),
    ("[two, three]", Sequence("list", (Scalar(2), Scalar(3)))),
]


@pytest.mark.parametrize(("text", "value"), READ, ids=[t for t, _ in READ])
def test_words_are_read_as_the_value_they_mean_with_a_note(text: str, value: Value) -> None:
    read = read_answer(text)
    assert read.value == value
    assert read.notes, "the learner is told how Python writes it"


@pytest.mark.parametrize(
    "text", ["None.", "True.", "tensor([1., 2.]).", "no error.", "RuntimeError.", "(1, 2)."]
)
def test_a_full_stop_ending_the_answer_is_read_as_a_sentence_s_end(text: str) -> None:
    assert read_answer(text).value == read_answer(text[:-1]).value
    assert read_answer(text).notes == read_answer(text[:-1]).notes


def test_a_decimal_point_is_not_a_full_stop() -> None:
    assert read_answer("2.").value == Scalar(2.0)


@pytest.mark.parametrize(
    ("text", "truth"),
    [
        ("raises RuntimeError", RUNTIME),  # was read as a class `RaisesRuntimeError`: wrong
        ("RuntimeError (multiple views)", RUNTIME),
        ("None.", NoError()),
        ("yes", Scalar(True)),
        ("two", Scalar(2)),
        ("1 tensor", Scalar(1)),
        ("是", Scalar(True)),
        ("SigmoidBackward0", Scalar("SigmoidBackward0")),
        ("<SigmoidBackward0 object at 0x7f3a2c1d0e80>", Scalar("SigmoidBackward0")),
        ("<SigmoidBackward0>", Scalar("SigmoidBackward0")),
        ("'SigmoidBackward0'", Scalar("SigmoidBackward0")),
    ],
)
def test_what_a_ta_accepts_earns_the_points(text: str, truth: Value) -> None:
    assert compare(read_answer(text).value, truth, BY_VALUE).correct


def test_a_grad_fn_name_for_a_string_key_says_how_torch_gives_it() -> None:
    verdict = compare(read_answer("SigmoidBackward0").value, Scalar("SigmoidBackward0"))
    assert verdict.by_value and "'SigmoidBackward0'" in str(verdict.feedback)
    other = compare(read_answer("MulBackward0").value, Scalar("SigmoidBackward0"))
    assert not other.correct and "a string" not in str(other.feedback)


@pytest.mark.parametrize(
    "text",
    [
        "the answer is two",
        "raises something",
        "2 True",
        "twenty-zero",
        "yes RuntimeError",
        "True 对",
        "it raises an error: RuntimeError",
    ],
)
def test_what_is_still_not_read_is_invalid_not_wrong(text: str) -> None:
    with pytest.raises(AnswerSyntaxError):
        read_answer(text)


def test_chinese_numerals() -> None:
    assert [chinese_number(t) for t in ("〇", "五", "十", "十九", "二十", "九十九")] == [
        0,
        5,
        10,
        19,
        20,
        99,
    ]
    assert [chinese_number(t) for t in ("十零", "零十", "一百", "十十", "abc")] == [None] * 5
