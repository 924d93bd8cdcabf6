"""The answer parser: what a learner may write, what it means, and what is refused.

Answers are parsed, never run: hostile text must come back as AnswerSyntaxError with a
learner-facing reason, and must not do anything.
"""

from __future__ import annotations

import math
import random

import pytest

from graders.answers.compare import compare, same_value
from graders.answers.literal_reader import MAX_ELEMENTS
from graders.answers.parse import (
    ACCEPTED_FORMS,
    MAX_CHARS,
    AnswerSyntaxError,
    is_writable,
    parse_answer,
    read_answer,
    render_answer,
)
from graders.answers.render import DTYPES
from graders.answers.values import (
    DtypeValue,
    ExceptionValue,
    GradFnValue,
    Name,
    NoError,
    Opaque,
    Scalar,
    Sequence,
    SizeValue,
    TensorValue,
    Value,
)
from graders.i18n.registry import languages
from graders.said import render, told


def T(values, shape=(), dtype=None, requires_grad=None, grad_fn=None) -> TensorValue:  # noqa: N802
    """An answer-side tensor: flags the learner did not write stay None."""
    return TensorValue(values, shape, dtype, requires_grad, None, grad_fn)


def seq(kind: str, *items: object) -> Sequence:
    return Sequence(kind, tuple(Scalar(i) for i in items))


ACCEPTED = [
    # Python literals
    ("int", "2", Scalar(2)),
    ("negative int", "-3", Scalar(-3)),
    ("float", "2.5", Scalar(2.5)),
    ("float with trailing dot", "2.", Scalar(2.0)),
    ("scientific", "1.0000e-08", Scalar(1e-08)),
    ("typographic minus", "\u22122", Scalar(-2)),
    ("True", "True", Scalar(True)),
    ("None", "None", Scalar(None)),
    ("string", "'hello'", Scalar("hello")),
    ("unicode string", "'grad \u00fcber alles'", Scalar("grad \u00fcber alles")),
    ("string with angle brackets kept", "'<MulBackward0>'", Scalar("<MulBackward0>")),
    ("nan", "nan", Scalar(math.nan)),
    ("minus inf", "-inf", Scalar(-math.inf)),
    ("tuple", "(True, False)", seq("tuple", True, False)),
    ("one-tuple", "(1,)", seq("tuple", 1)),
    ("list", "[1, 2]", seq("list", 1, 2)),
    ("empty tuple", "()", Sequence("tuple", ())),
    ("surrounding whitespace", "  \n 7 \t", Scalar(7)),
    # tensors as torch prints them
    ("0-dim float tensor", "tensor(5.)", T(5.0)),
    ("0-dim int tensor", "tensor(2)", T(2)),
    ("torch.tensor spelling", "torch.tensor(2.)", T(2.0)),
    ("matrix", "tensor([[1., 2.], [3., 4.]])", T([[1.0, 2.0], [3.0, 4.0]], (2, 2))),
    ("tuple rows", "tensor(((1, 2), (3, 4)))", T([[1, 2], [3, 4]], (2, 2))),
    ("requires_grad", "tensor(1., requires_grad=True)", T(1.0, requires_grad=True)),
    ("requires_grad False", "tensor(1., requires_grad=False)", T(1.0, requires_grad=False)),
    (
        "grad_fn in angle brackets",
        "tensor(2., grad_fn=<MulBackward0>)",
        T(2.0, grad_fn="MulBackward0"),
    ),
    ("grad_fn bare", "tensor(2., grad_fn=MulBackward0)", T(2.0, grad_fn="MulBackward0")),
    (
        "grad_fn without version",
        "tensor(1., grad_fn=<SelectBackward>)",
        T(1.0, grad_fn="SelectBackward"),
    ),
    (
        "dtype converts values",
        "tensor([1, 2], dtype=torch.float64)",
        T([1.0, 2.0], (2,), "float64"),
    ),
    ("dtype alias", "tensor([1, 2], dtype=torch.long)", T([1, 2], (2,), "int64")),
    ("bool dtype", "tensor([1, 0], dtype=torch.bool)", T([True, False], (2,), "bool")),
    ("int dtype truncates like torch", "tensor(1.7, dtype=torch.int32)", T(1, (), "int32")),
    ("mixed literal becomes float", "tensor([1, 2.5, True])", T([1.0, 2.5, 1.0], (3,))),
    ("bool tensor", "tensor([True, False])", T([True, False], (2,))),
    ("nan and inf", "tensor([nan, inf, -inf])", T([math.nan, math.inf, -math.inf], (3,))),
    ("torch's scientific print", "tensor([1.0000e-08, 1.0000e+00])", T([1e-08, 1.0], (2,))),
    ("empty", "tensor([])", T([], (0,))),
    ("empty with size", "tensor([], size=(0, 3))", T([], (0, 3))),
    ("empty rows with size", "tensor([], size=(3, 0))", T([[], [], []], (3, 0))),
    ("fullwidth letters normalise like Python", "\uff54\uff45\uff4e\uff53\uff4f\uff52(1)", T(1)),
    # torch objects
    ("Size", "torch.Size([3, 4])", SizeValue((3, 4))),
    ("empty Size", "torch.Size([])", SizeValue(())),
    ("dtype", "torch.float32", DtypeValue("float32")),
    ("dtype alias double", "torch.double", DtypeValue("float64")),
    # names: compare decides what they mean
    ("exception name", "RuntimeError", Name("RuntimeError")),
    ("grad_fn in brackets", "<CloneBackward0>", Name("CloneBackward0")),
    ("grad_fn object repr", "<CloneBackward0 object at 0x7f3a2c1b9e50>", Name("CloneBackward0")),
    (
        "custom Function repr",
        "<torch.autograd.function.MyFnBackward object at 0x7f>",
        Name("MyFnBackward"),
    ),
    # what a person writes that Python spells otherwise
    ("lower-case true", "true", Scalar(True)),
    ("upper-case FALSE", "FALSE", Scalar(False)),
    ("lower-case none", "none", Scalar(None)),
    ("true in a tuple", "(true, false)", seq("tuple", True, False)),
    ("true in a tensor", "tensor([true, False])", T([True, False], (2,))),
    ("requires_grad=true", "tensor(1., requires_grad=true)", T(1.0, requires_grad=True)),
    (
        "traceback's last line",
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
        Name("RuntimeError"),
    ),
    ("a warning's line", "UserWarning: The .grad attribute of a Tensor", Name("UserWarning")),
    (
        "dotted class in a traceback",
        "torch.OutOfMemoryError: CUDA out of memory",
        Name("OutOfMemoryError"),
    ),
    (
        "a whole pasted traceback",
        'Traceback (most recent call last):\n  File "<stdin>", line 1\nRuntimeError: boom',
        Name("RuntimeError"),
    ),
    ("class name with a space", "Runtime Error", Name("RuntimeError")),
    ("class name in lower case", "runtimeerror", Name("RuntimeError")),
    ("class name in words", "out of memory error", Name("OutOfMemoryError")),
    # no error
    ("no error", "no error", NoError()),
    ("No Error.", "No Error.", NoError()),
    ("no exception", "  no   exception ", NoError()),
]


@pytest.mark.parametrize(("text", "expected"), [pytest.param(t, v, id=i) for i, t, v in ACCEPTED])
def test_accepted_forms(text: str, expected: Value) -> None:
    got = parse_answer(text)
    assert repr(got) == repr(expected)  # repr: nan == nan, and 2 vs 2.0 vs True differ


REJECTED = [
    ("empty", "   ", "it is empty"),
    ("arithmetic", "1 + 2", "arithmetic is not worked out"),
    ("comparison", "a == b", "comparisons are not worked out"),
    ("indexing", "tensor([1, 2])[0]", "indexing is not worked out"),
    ("lambda", "lambda: 1", "functions are not answers"),
    ("dict", "{'a': 1}", "dicts are not answer forms"),
    ("set", "{1, 2}", "sets are not answer forms"),
    ("bytes", "b'x'", "only numbers, strings"),
    ("complex", "1j", "only numbers, strings"),
    ("ellipsis", "...", "only numbers, strings"),
    ("f-string", "f'{x}'", "not an answer form"),
    ("other torch call", "torch.ones(3)", "only calls allowed are tensor(...) and torch.Size"),
    ("method call", "a.clone()", "only calls allowed"),
    ("attribute chain", "torch.nn.Linear", "only torch names allowed are dtypes"),
    ("other attribute", "os.system", "only torch names allowed are dtypes"),
    ("unknown dtype", "torch.float33", "only torch names allowed are dtypes"),
    ("ragged tensor", "tensor([[1, 2], [3]])", "different lengths"),
    ("string in tensor", "tensor(['a'])", "is not a number"),
    ("None in tensor", "tensor([1, None])", "is not a number"),
    ("signed bool", "tensor(-True)", "a sign goes before a number"),
    ("two values", "tensor(1, 2)", "takes exactly one value"),
    ("no value", "tensor()", "takes exactly one value"),
    ("starred", "tensor(*[1])", "takes exactly one value"),
    ("unknown keyword", "tensor(1., device='cpu')", "does not take device="),
    ("double-star keywords", "tensor(1., **{'a': 1})", "does not take **="),
    ("grad_fn None", "tensor(1., grad_fn=None)", "grad_fn= takes a name"),
    ("requires_grad not bool", "tensor(1., requires_grad=1)", "requires_grad= takes True or False"),
    ("size of a non-empty tensor", "tensor([1.], size=(1,))", "size=... is only for empty tensors"),
    ("huge empty size", "tensor([], size=(1000000000, 0))", "size=... is only for empty tensors"),
    ("size not matching", "tensor([[]], size=(2, 0))", "do not match size"),
    ("negative Size", "torch.Size([-1])", "not a list of sizes"),
    ("Size of floats", "torch.Size([1.5])", "not a list of sizes"),
    ("Size with keyword", "torch.Size([1], x=1)", "torch.Size takes one list"),
    ("nan in an int tensor", "tensor(nan, dtype=torch.int64)", "does not fit dtype int64"),
    (
        "huge int in a float tensor",
        "tensor([0.5, 1" + "0" * 400 + "])",
        "does not fit dtype float32",
    ),
    ("overflowing float", "1e999", "too large for a float"),
    ("overflow in tensor", "tensor([1e999])", "too large for a float"),
    ("unclosed bracket", "tensor([1, 2", "it has an unclosed bracket: a `[` is never closed"),
    ("unclosed quote", '"tensor(2.)', "it has an unclosed quote"),
    ("closing bracket without an opening one", "tensor(2.))", "a `)` that closes no bracket"),
    ("syntax error", "tensor(2.) +", "not valid Python syntax"),
    ("words that name no exception", "same as a", "not valid Python syntax"),
    ("null byte", "1\x00", "not valid Python syntax"),
    ("statement", "import os", "not valid Python syntax"),
    ("walrus", "(x := 1)", "not an answer form"),
]


@pytest.mark.parametrize(("text", "fragment"), [pytest.param(t, f, id=i) for i, t, f in REJECTED])
def test_rejected_forms_say_why(text: str, fragment: str) -> None:
    with pytest.raises(AnswerSyntaxError) as info:
        parse_answer(text)
    assert fragment in str(info.value.reason)
    assert ACCEPTED_FORMS in str(info.value)  # the learner sees what to write instead


SPELLING_NOTES = [
    ("true", ["Read `true` as `True`, the way Python writes it."]),
    (
        "(true, TRUE)",
        [
            "Read `true` as `True`, the way Python writes it.",
            "Read `TRUE` as `True`, the way Python writes it.",
        ],
    ),
    ("Runtime Error", ["Read as `RuntimeError`, the way Python writes the class name."]),
    (
        "RuntimeError: boom",
        ["Read as `RuntimeError`: the exception class is graded, not the message after it."],
    ),
    ("RuntimeError", []),
    ("True", []),
    ("tensor(2.)", []),
]


@pytest.mark.parametrize(("text", "notes"), SPELLING_NOTES, ids=[t for t, _ in SPELLING_NOTES])
def test_a_spelling_python_writes_otherwise_comes_with_a_note(text: str, notes: list[str]) -> None:
    assert [str(n) for n in read_answer(text).notes] == notes


# What a Chinese input method types for ASCII punctuation, and what it is read as.
KEYBOARD = [
    ("full-width tuple", "（True，True）", seq("tuple", True, True), "(True, True)"),
    (
        "full-width comma and space",
        "(False，　False)",
        seq("tuple", False, False),
        "(False, False)",
    ),
    ("ideographic comma", "(True、False)", seq("tuple", True, False), "(True, False)"),
    ("Size", "torch.Size([3，4])", SizeValue((3, 4)), "torch.Size([3, 4])"),
    ("all of Size typed in Chinese", "torch。Size（【3，4】）", SizeValue((3, 4)), None),
    (
        "one comma in a tensor",
        "tensor([1., 2.，3.], requires_grad=True)",
        T([1.0, 2.0, 3.0], (3,), requires_grad=True),
        "tensor([1., 2., 3.], requires_grad=True)",
    ),
    (
        "a tensor typed in Chinese",
        "tensor（[1。，2。，3。]，requires——grad＝True）",
        T([1.0, 2.0, 3.0], (3,), requires_grad=True),
        "tensor([1., 2., 3.], requires_grad=True)",
    ),
    ("decimal point as a full stop", "tensor(2。)", T(2.0), "tensor(2.)"),
    ("trailing full stop", "False。", Scalar(False), "False"),
    ("trailing full stop after a float", "0.5。", Scalar(0.5), "0.5"),
    ("corner brackets", "《SelectBackward0》", Name("SelectBackward0"), "<SelectBackward0>"),
    ("full-width letters", "ＴＲＵＥ", Scalar(True), "TRUE"),
    ("ideographic space", "\u3000True\u3000", Scalar(True), None),
    ("no-break space", "(1,\u00a02)", seq("tuple", 1, 2), "(1, 2)"),
    ("zero-width space", "tensor(2.)\u200b", T(2.0), "tensor(2.)"),
    ("curly double quotes", "“abc”", Scalar("abc"), '"abc"'),
    ("curly single quotes", "‘abc’", Scalar("abc"), "'abc'"),
    ("corner quotes", "「abc」", Scalar("abc"), '"abc"'),
    ("quotes in a tuple", "(“a”，‘b’)", seq("tuple", "a", "b"), "(\"a\", 'b')"),
    ("full-width colon in a traceback line", "RuntimeError：a leaf…", Name("RuntimeError"), None),
    ("a comment in Chinese", "True  # 因为，共享内存", Scalar(True), None),
    ("full-width comment sign", "True ＃ 因为", Scalar(True), "True # 因为"),
    ("no error in Chinese", "没有报错", NoError(), None),
    ("no error in Chinese with a full stop", "没有报错。", NoError(), None),
    ("another Chinese no error", "不报错", NoError(), None),
    ("no exception in Chinese", "没有异常", NoError(), None),
    ("Chinese no error with spaces", " 无 报错 ", NoError(), None),
    ("full-width letters of no error", "ｎｏ　ｅｒｒｏｒ", NoError(), None),
]


@pytest.mark.parametrize(
    ("text", "expected", "read_as"), [pytest.param(*row[1:], id=row[0]) for row in KEYBOARD]
)
def test_a_keyboard_s_punctuation_is_read_as_the_ascii_it_stands_for(
    text: str, expected: Value, read_as: str | None
) -> None:
    read = read_answer(text)
    assert repr(read.value) == repr(expected)
    note = f"Read as `{read_as}`, in the ASCII characters Python reads."
    assert (note in [str(n) for n in read.notes]) is (read_as is not None), read.notes


# Inside a string the text is compared as typed: only the quotes around it are read.
STRINGS = [
    ("full-width comma in an ASCII string", "'a，b'", "a，b"),
    ("full-width comma in curly quotes", "“a，b”", "a，b"),
    ("Chinese in a string", "'没有报错'", "没有报错"),
    ("ASCII quote inside curly quotes", "“it's”", "it's"),
    ("curly apostrophe inside ASCII quotes", '"it’s"', "it’s"),
    ("full stop inside a string", "'done。'", "done。"),
    ("brackets inside a string", "“【x】”", "【x】"),
]


@pytest.mark.parametrize(("text", "content"), [pytest.param(*r[1:], id=r[0]) for r in STRINGS])
def test_text_inside_a_string_keeps_its_meaning(text: str, content: str) -> None:
    assert parse_answer(text) == Scalar(content)
    assert compare(parse_answer(text), Scalar(content)).correct
    if content != content.replace("，", ","):
        assert not compare(parse_answer(text), Scalar(content.replace("，", ","))).correct


# A character still unread outside strings is named, with what to type instead.
UNREAD = [
    ("em dash", "tensor([1., —2.])", "`—` (U+2014) at character 13", "type `-` instead"),
    ("ellipsis", "tensor([1., …])", "`…` (U+2026) at character 13", "type `...` instead"),
    # A word in another script is named as a word, not as a character to retype.
    ("Chinese words", "没有错误吧", "`没有错误吧` at character 1", "not one of the words read"),
    ("a name in Chinese", "运行时错误", "`运行时错误` at character 1", "write the value itself"),
    ("a word after a value", "True 也许", "`也许` at character 6", "not one of the words read"),
    ("a letter of a name", "True α", "`α` at character 6", "not one of the words read"),
    ("in a longer name", "(x是, 1)", "`是` (U+662F) at character 3", "ASCII characters"),
    ("word joiner", "(True,\u2060False)", "(U+2060) at character 7", "ASCII characters"),
]


@pytest.mark.parametrize(
    ("text", "where", "instead"), [pytest.param(*r[1:], id=r[0]) for r in UNREAD]
)
def test_an_unread_character_is_named_with_what_to_type(
    text: str, where: str, instead: str
) -> None:
    with pytest.raises(AnswerSyntaxError) as info:
        parse_answer(text)
    assert where in str(info.value.reason) and instead in str(info.value.reason), str(
        info.value.reason
    )


def test_the_unread_character_is_named_in_the_learner_s_language() -> None:
    with pytest.raises(AnswerSyntaxError) as info:
        parse_answer("tensor([1., —2.])")
    # The reason is a message: written in the language of whoever reads it.
    assert "其中第 13 个字符 `—`（U+2014）Python 读不了：请改为输入 `-`" in render(
        told(info.value), "zh"
    )


def test_every_course_language_s_no_error_phrases_are_read_as_no_error() -> None:
    assert {lang.code for lang in languages() if lang.words.no_error} >= {"en", "zh"}
    for lang in languages():
        for phrase in lang.words.no_error:
            assert parse_answer(phrase) == NoError(), phrase
            assert parse_answer(phrase.upper() + "。") == NoError(), phrase


def test_an_exception_class_matches_in_any_case() -> None:
    truth = ExceptionValue("RuntimeError", "a leaf Variable ...")
    assert compare(parse_answer("runtime error"), truth).correct
    assert compare(parse_answer("RuntimeError: anything at all"), truth).correct
    assert not compare(parse_answer("ValueError: a leaf Variable ..."), truth).correct
    assert compare(parse_answer("outofmemoryerror"), ExceptionValue("OutOfMemoryError")).correct


def test_error_is_a_value_error() -> None:
    assert issubclass(AnswerSyntaxError, ValueError)


def test_import_call_is_refused_and_runs_nothing(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AnswerSyntaxError):
        parse_answer("__import__('os').system('touch x')")
    with pytest.raises(AnswerSyntaxError):
        parse_answer("tensor(__import__('os').system('touch y'))")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("depth", [33, 1000, 4999], ids=lambda d: f"depth-{d}")
def test_deep_nesting_is_refused_not_recursion_error(depth: int) -> None:
    for text in ("[" * depth + "]" * depth, f"tensor({'[' * depth}1{']' * depth})"):
        with pytest.raises(AnswerSyntaxError, match="nested"):
            parse_answer(text[:MAX_CHARS])


def test_long_chain_of_signs_is_refused() -> None:
    with pytest.raises(AnswerSyntaxError, match="nested"):
        parse_answer("-" * (MAX_CHARS - 1) + "1")


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    assert parse_answer(repr("(" * 100)) == Scalar("(" * 100)


@pytest.mark.parametrize("size", [MAX_CHARS + 1, 1 << 20], ids=["just-over", "1MB"])
def test_long_input_is_refused(size: int) -> None:
    with pytest.raises(AnswerSyntaxError, match="longer than"):
        parse_answer("1" * size)


def test_too_many_elements_is_refused() -> None:
    parse_answer("[" + ",".join(["1"] * (MAX_ELEMENTS - 1)) + "]")  # the list itself is one more
    text = "[" + ",".join(["1"] * MAX_ELEMENTS) + "]"
    assert len(text) <= MAX_CHARS
    with pytest.raises(AnswerSyntaxError, match="more than"):
        parse_answer(text)


RENDERED = [
    ("float 0-dim", TensorValue(5.0, (), "float32", False, True, None), "tensor(5.)"),
    ("int 0-dim", TensorValue(2, (), "int64", False, True, None), "tensor(2)"),
    (
        "leaf that requires grad",
        TensorValue([[1.0, 2.0], [3.0, 4.0]], (2, 2), "float32", True, True, None),
        "tensor([[1., 2.], [3., 4.]], requires_grad=True)",
    ),
    (
        "non-leaf shows grad_fn only",
        TensorValue(2.0, (), "float32", True, False, "MulBackward0"),
        "tensor(2., grad_fn=<MulBackward0>)",
    ),
    (
        "float32 gets 7 digits",
        TensorValue(1 / 3, (), "float32", False, True, None),
        "tensor(0.3333333)",
    ),
    (
        "float64 gets 15 digits and dtype",
        TensorValue(1 / 3, (), "float64", False, True, None),
        "tensor(0.333333333333333, dtype=torch.float64)",
    ),
    (
        "small float",
        TensorValue([1e-08, 1.0], (2,), "float32", False, True, None),
        "tensor([1e-08, 1.])",
    ),
    (
        "non-finite",
        TensorValue([math.nan, -math.inf], (2,), "float32", False, True, None),
        "tensor([nan, -inf])",
    ),
    (
        "int32 shows dtype",
        TensorValue([1, 2], (2,), "int32", False, True, None),
        "tensor([1, 2], dtype=torch.int32)",
    ),
    ("bool", TensorValue([True], (1,), "bool", False, True, None), "tensor([True])"),
    ("empty float", TensorValue([], (0,), "float32", False, True, None), "tensor([])"),
    (
        "empty int shows dtype",
        TensorValue([], (0,), "int64", False, True, None),
        "tensor([], dtype=torch.int64)",
    ),
    (
        "empty 2-d shows size",
        TensorValue([[], [], []], (3, 0), "float32", False, True, None),
        "tensor([], size=(3, 0))",
    ),
    ("Size", SizeValue((3, 4)), "torch.Size([3, 4])"),
    ("dtype", DtypeValue("float32"), "torch.float32"),
    ("grad_fn", GradFnValue("CloneBackward0"), "<CloneBackward0>"),
    ("exception", ExceptionValue("RuntimeError", "long message"), "RuntimeError"),
    ("no error", NoError(), "no error"),
    ("True", Scalar(True), "True"),
    ("float", Scalar(5.0), "5.0"),
    ("string", Scalar("it's"), '"it\'s"'),
    ("one-tuple", Sequence("tuple", (Scalar(False),)), "(False,)"),
    ("list", Sequence("list", (Scalar(1), Scalar(None))), "[1, None]"),
    ("opaque shows its repr", Opaque("dict", "{}"), "{}"),
]


@pytest.mark.parametrize(("value", "text"), [pytest.param(v, t, id=i) for i, v, t in RENDERED])
def test_render_answer(value: Value, text: str) -> None:
    assert render_answer(value) == text


def _random_tensor(rng: random.Random) -> TensorValue:
    shape = tuple(rng.choice([0, 1, 2, 3]) for _ in range(rng.randint(0, 3)))
    dtype = rng.choice(
        ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]
    )
    values = _random_values(rng, shape, dtype)
    requires_grad = dtype.startswith(("float", "bfloat")) and rng.random() < 0.5
    grad_fn = rng.choice([None, "MulBackward0", "CloneBackward0"]) if requires_grad else None
    return TensorValue(values, shape, dtype, requires_grad, grad_fn is None, grad_fn)


def _random_values(rng: random.Random, shape: tuple[int, ...], dtype: str):  # type: ignore[no-untyped-def]
    if shape:
        return (
            []
            if shape[0] == 0
            else [_random_values(rng, shape[1:], dtype) for _ in range(shape[0])]
        )
    if dtype == "bool":
        return rng.random() < 0.5
    if dtype.startswith(("int", "uint")):
        return (
            rng.choice([0, 1, -7, 255, 2**31 - 1, -(2**63)])
            if dtype != "uint8"
            else rng.randint(0, 255)
        )
    special = [math.nan, math.inf, -math.inf, -0.0, 1e-30, 3.4028234663852886e38, 0.1, 1 / 3]
    return (
        rng.choice(special)
        if rng.random() < 0.3
        else rng.uniform(-1e3, 1e3) * 10 ** rng.randint(-8, 8)
    )


def _random_value(rng: random.Random, depth: int = 0) -> Value:
    makers = [
        *[lambda: _random_tensor(rng)] * 4,  # tensors have the most ways to go wrong
        lambda: Scalar(
            rng.choice(
                [None, True, False, 0, -5, 2**100, 0.1, -0.0, math.nan, math.inf, 1e-300, 2.5]
            )
        ),
        lambda: Scalar(
            rng.choice(
                [
                    "",
                    "it's",
                    'say "hi"',
                    "back\\slash",
                    "<MulBackward0>",
                    "line\nbreak",
                    "\u00fc\u4e2d",
                ]
            )
        ),
        lambda: SizeValue(tuple(rng.randint(0, 5) for _ in range(rng.randint(0, 4)))),
        lambda: DtypeValue(rng.choice(sorted(DTYPES))),
        lambda: GradFnValue(
            rng.choice(["MulBackward0", "SelectBackward0", "AccumulateGrad", "MyFnBackward"])
        ),
    ]
    if depth == 0:  # outcomes of a `run`: never inside a tuple
        makers += [
            lambda: ExceptionValue(rng.choice(["RuntimeError", "TypeError"]), "message"),
            NoError,
        ]
    if depth < 3 and rng.random() < 0.2:
        items = tuple(_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3)))
        return Sequence(rng.choice(["tuple", "list"]), items)
    return rng.choice(makers)()


GENERATED = [_random_value(random.Random(seed)) for seed in range(400)]


@pytest.mark.parametrize("value", GENERATED, ids=[f"seed-{i}" for i in range(len(GENERATED))])
def test_rendered_truth_reads_back_as_a_correct_answer(value: Value) -> None:
    text = render_answer(value)
    verdict = compare(parse_answer(text), value)
    assert verdict.correct, (text, str(verdict.feedback))
    assert is_writable(value)


def test_opaque_and_oversized_values_are_not_writable() -> None:
    assert not is_writable(Opaque("dict", "{}"))
    big = TensorValue([0.5] * 5000, (5000,), "float32", False, True, None)
    assert not is_writable(big)


def test_compare_never_raises_and_same_value_is_symmetric() -> None:
    values = GENERATED[:80] + [Opaque("dict", "{}"), Name("RuntimeError"), parse_answer("5.")]
    for a in values:
        for b in values:
            verdict = compare(a, b)
            assert str(verdict.feedback).endswith(".")
            assert same_value(a, b) == same_value(b, a)
