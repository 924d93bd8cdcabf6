"""compare(): one table per rule of the module docstring, answers written as learners do.

The first tables hold the strict rules (``STRICT``, compare's default: a question whose
lesson is the type); ``BY_VALUE_CASES`` what a question that does not teach the type
accepts besides, and ``KEPT`` what each lesson of ``strict:`` keeps refusing.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest

from graders.answers.compare import compare, same_value
from graders.answers.judging import BY_VALUE, MAX_SHOWN, STRICT, Comparison, Rules
from graders.answers.parse import parse_answer, render_answer
from graders.answers.values import (
    DtypeValue,
    ExceptionValue,
    GradFnValue,
    NoError,
    Opaque,
    Scalar,
    Sequence,
    SizeValue,
    TensorValue,
    Value,
)


def tensor(values, shape=(), dtype="float32", requires_grad=False, grad_fn=None) -> TensorValue:
    """A truth as describe() gives it: every flag known."""
    return TensorValue(
        values, shape, dtype, requires_grad or grad_fn is not None, grad_fn is None, grad_fn
    )


def scalars(kind: str, *items: object) -> Sequence:
    return Sequence(kind, tuple(Scalar(i) for i in items))


A_GRAD = tensor(2.0, requires_grad=True)  # a leaf: tensor(2., requires_grad=True)
PRODUCT = tensor(6.0, grad_fn="MulBackward0")  # tensor(6., grad_fn=<MulBackward0>)
PICKED = tensor(1.0, grad_fn="SelectBackward0")
MATRIX = tensor([[1.0, 2.0], [3.0, 4.0]], (2, 2))
INTS = tensor([1, 2], (2,), "int64")

TENSOR_LADDER = [
    # is it a tensor
    (
        "None for a tensor",
        "None",
        A_GRAD,
        False,
        "Got None, expected tensor(2., requires_grad=True).",
    ),
    ("list for a tensor", "[1., 2.]", tensor([1.0, 2.0], (2,)), False, "expected tensor([1., 2.])"),
    # shape
    (
        "1-element for 0-dim",
        "tensor([2.])",
        A_GRAD,
        False,
        "shape torch.Size([1]), expected shape torch.Size([]) (a 0-dim",
    ),
    (
        "transposed shape",
        "tensor([[1., 2., 3.]])",
        tensor([[1.0], [2.0], [3.0]], (3, 1)),
        False,
        "torch.Size([1, 3])",
    ),
    ("shape before values", "tensor([9.])", tensor([1.0, 2.0], (2,)), False, "shape"),
    # dtype: only when written, or when the literal's kind differs
    ("int literal for float", "tensor(2)", A_GRAD, False, "an int tensor; expected a float tensor"),
    (
        "float literal for int",
        "tensor([1., 2.])",
        INTS,
        False,
        "a float tensor; expected an int tensor",
    ),
    (
        "int literal for bool",
        "tensor([1, 0])",
        tensor([True, False], (2,), "bool"),
        False,
        "expected a bool tensor",
    ),
    (
        "float64 not written is fine",
        "tensor([1., 2.])",
        tensor([1.0, 2.0], (2,), "float64"),
        True,
        "dtype=torch.float64",
    ),
    (
        "float64 written",
        "tensor([1., 2.], dtype=torch.float64)",
        tensor([1.0, 2.0], (2,), "float64"),
        True,
        "Correct.",
    ),
    (
        "wrong dtype written",
        "tensor([1, 2], dtype=torch.int32)",
        INTS,
        False,
        "Got dtype torch.int32, expected torch.int64.",
    ),
    ("dtype alias", "tensor([1, 2], dtype=torch.long)", INTS, True, "Correct"),
    # requires_grad: only when written
    (
        "requires_grad not written",
        "tensor(2.)",
        A_GRAD,
        True,
        "written in full: tensor(2., requires_grad=True)",
    ),
    ("requires_grad written", "tensor(2., requires_grad=True)", A_GRAD, True, "Correct."),
    (
        "requires_grad wrong",
        "tensor(2., requires_grad=False)",
        A_GRAD,
        False,
        "Got requires_grad=False, expected requires_grad=True.",
    ),
    (
        "requires_grad claimed",
        "tensor([1, 2], requires_grad=True)",
        INTS,
        False,
        "expected requires_grad=False",
    ),
    (
        "non-leaf requires grad",
        "tensor(6., requires_grad=True)",
        PRODUCT,
        True,
        "grad_fn=<MulBackward0>",
    ),
    # grad_fn: only when written, by name, version number optional
    ("grad_fn right", "tensor(6., grad_fn=<MulBackward0>)", PRODUCT, True, "Correct."),
    (
        "grad_fn without version",
        "tensor(1., grad_fn=<SelectBackward>)",
        PICKED,
        True,
        "written in full",
    ),
    (
        "grad_fn other version",
        "tensor(1., grad_fn=<SelectBackward1>)",
        PICKED,
        False,
        "expected grad_fn=<SelectBackward0>",
    ),
    (
        "grad_fn wrong",
        "tensor(6., grad_fn=<AddBackward0>)",
        PRODUCT,
        False,
        "Got grad_fn=<AddBackward0>, expected grad_fn=<MulBackward0>.",
    ),
    (
        "grad_fn on a leaf",
        "tensor(2., grad_fn=<CloneBackward0>)",
        A_GRAD,
        False,
        "expected no grad_fn",
    ),
    ("grad_fn not written", "tensor(6.)", PRODUCT, True, "Correct"),
    # values
    ("values equal", "tensor([[1., 2.], [3., 4.]])", MATRIX, True, "Correct."),
    (
        "values differ",
        "tensor([[1., 2.], [3., 5.]])",
        MATRIX,
        False,
        "Got tensor([[1., 2.], [3., 5.]]), expected tensor([[1., 2.], [3., 4.]]).",
    ),
    ("torch's 4 decimals", "tensor(0.3333)", tensor(1 / 3), True, "Correct"),
    ("rel tolerance edge", "tensor(1000.9)", tensor(1000.0), True, "Correct"),
    ("beyond rel tolerance", "tensor(1001.1)", tensor(1000.0), False, "expected tensor(1000.)"),
    ("abs tolerance near zero", "tensor(0.)", tensor(1e-6), True, "Correct"),
    ("beyond abs tolerance", "tensor(0.)", tensor(1e-4), False, "Got tensor(0.)"),
    ("ints exact", "tensor([1, 3])", INTS, False, "Got tensor([1, 3])"),
    ("nan equals nan", "tensor([nan, 1.])", tensor([math.nan, 1.0], (2,)), True, "Correct."),
    (
        "number is not nan",
        "tensor([0., 1.])",
        tensor([math.nan, 1.0], (2,)),
        False,
        "expected tensor([nan, 1.])",
    ),
    ("nan is not a number", "tensor(nan)", tensor(0.0), False, "Got tensor(nan)"),
    ("inf equals inf", "tensor(-inf)", tensor(-math.inf), True, "Correct."),
    ("inf sign matters", "tensor(inf)", tensor(-math.inf), False, "expected tensor(-inf)"),
    (
        "big tensor names the index",
        "tensor([" + ", ".join(["1."] * 99 + ["7."]) + "])",
        tensor([1.0] * 100, (100,)),
        False,
        "Got 7. at index [99], expected 1. there.",
    ),
    (
        "bool values",
        "tensor([True, True])",
        tensor([True, False], (2,), "bool"),
        False,
        "expected tensor([True, False])",
    ),
    # a bare number for a 0-dim tensor
    ("bare float", "2.", A_GRAD, True, "as a tensor it is written tensor(2., requires_grad=True)"),
    ("bare float within tolerance", "6.0001", PRODUCT, True, "Correct"),
    (
        "bare int for a float tensor",
        "2",
        A_GRAD,
        False,
        "Got 2, expected a float tensor: tensor(2., requires_grad=True).",
    ),
    ("bare int for an int tensor", "3", tensor(3, dtype="int64"), True, "tensor(3)"),
    ("bare bool", "True", tensor(True, dtype="bool"), True, "tensor(True)"),
    ("bare wrong value", "3.", A_GRAD, False, "Got 3.0, expected tensor(2., requires_grad=True)."),
    ("bare number for 1-d", "2.", tensor([2.0], (1,)), False, "expected tensor([2.])"),
]

SCALARS = [
    ("True", "True", Scalar(True), True, "Correct."),
    ("False for True", "False", Scalar(True), False, "Got False, expected True."),
    ("bool is not int", "1", Scalar(True), False, "Got 1 (an int), expected True (a bool)."),
    ("int is not bool", "True", Scalar(1), False, "Got True (a bool), expected 1 (an int)."),
    ("int is not float", "2", Scalar(2.0), False, "Got 2 (an int), expected 2.0 (a float)."),
    ("float is not int", "2.", Scalar(2), False, "expected 2 (an int)"),
    ("ints exact", "3", Scalar(2), False, "Got 3, expected 2."),
    ("big ints exact", str(2**70 + 1), Scalar(2**70), False, "expected 1180591620717411303424"),
    ("float tolerance", "0.1001", Scalar(0.1), True, "written in full: 0.1"),
    ("nan", "nan", Scalar(math.nan), True, "Correct."),
    ("not nan", "1.0", Scalar(math.nan), False, "expected nan"),
    ("None", "None", Scalar(None), True, "Correct."),
    ("None for a tensor", "None", tensor(1.0), False, "expected tensor(1.)"),
    ("tensor for None", "tensor(2.)", Scalar(None), False, "Got tensor(2.), expected None."),
    ("tensor for a float (item)", "tensor(5.)", Scalar(5.0), False, "expected a float: 5.0"),
    ("string", "'abc'", Scalar("abc"), True, "Correct."),
    ("string case matters", "'ABC'", Scalar("abc"), False, "expected 'abc'"),
    ("lowercase true reads as True", "true", Scalar(True), True, "Correct"),
    (
        "lowercase false is still not True",
        "false",
        Scalar(True),
        False,
        "Got False, expected True.",
    ),
]

SEQUENCES = [
    ("tuple", "(True, False)", scalars("tuple", True, False), True, "Correct."),
    (
        "list for a tuple",
        "[True, False]",
        scalars("tuple", True, False),
        True,
        "written in full: (True, False)",
    ),
    ("tuple for a list", "(1, 2)", scalars("list", 1, 2), True, "Correct"),
    (
        "item wrong",
        "(True, True)",
        scalars("tuple", True, False),
        False,
        "Item 2: got True, expected False.",
    ),
    (
        "item kind",
        "(1, 0)",
        scalars("tuple", True, False),
        False,
        "Item 1: got 1 (an int), expected True (a bool).",
    ),
    ("length", "(True,)", scalars("tuple", True, False), False, "expected 2 items: (True, False)"),
    ("not a sequence", "True", scalars("tuple", True), False, "expected a tuple: (True,)"),
    (
        "nested tensors",
        "(tensor(2.), None)",
        Sequence("tuple", (A_GRAD, Scalar(None))),
        True,
        "Correct",
    ),
    (
        "nested tensor wrong",
        "(tensor(2), None)",
        Sequence("tuple", (A_GRAD, Scalar(None))),
        False,
        "Item 1: got tensor(2), an int tensor",
    ),
    ("Size for a tuple of ints", "torch.Size([3, 4])", scalars("tuple", 3, 4), True, "Correct"),
]

TORCH_OBJECTS = [
    ("Size", "torch.Size([3, 4])", SizeValue((3, 4)), True, "Correct."),
    ("tuple for Size", "(3, 4)", SizeValue((3, 4)), True, "written in full: torch.Size([3, 4])"),
    ("list for Size", "[3, 4]", SizeValue((3, 4)), True, "Correct"),
    (
        "wrong Size",
        "torch.Size([4, 3])",
        SizeValue((3, 4)),
        False,
        "Got torch.Size([4, 3]), expected torch.Size([3, 4]).",
    ),
    (
        "bools are not sizes",
        "(True, True)",
        SizeValue((1, 1)),
        False,
        "expected torch.Size([1, 1])",
    ),
    ("empty Size", "()", SizeValue(()), True, "Correct"),
    ("dtype", "torch.float32", DtypeValue("float32"), True, "Correct."),
    ("dtype alias", "torch.float", DtypeValue("float32"), True, "Correct"),
    (
        "wrong dtype",
        "torch.float64",
        DtypeValue("float32"),
        False,
        "Got torch.float64, expected torch.float32.",
    ),
    ("grad_fn", "<CloneBackward0>", GradFnValue("CloneBackward0"), True, "Correct."),
    ("grad_fn bare name", "CloneBackward0", GradFnValue("CloneBackward0"), True, "Correct."),
    (
        "grad_fn without version",
        "SelectBackward",
        GradFnValue("SelectBackward0"),
        True,
        "written in full: <SelectBackward0>",
    ),
    (
        "grad_fn other version",
        "<SelectBackward1>",
        GradFnValue("SelectBackward0"),
        False,
        "Got SelectBackward1, expected <SelectBackward0>.",
    ),
    (
        "grad_fn wrong",
        "<MulBackward0>",
        GradFnValue("CloneBackward0"),
        False,
        "expected <CloneBackward0>",
    ),
    (
        "None for grad_fn",
        "None",
        GradFnValue("CloneBackward0"),
        False,
        "Got None, expected <CloneBackward0>.",
    ),
]

OUTCOMES = [
    (
        "exception by class",
        "RuntimeError",
        ExceptionValue("RuntimeError", "a leaf Variable ..."),
        True,
        "Correct.",
    ),
    (
        "other exception",
        "ValueError",
        ExceptionValue("RuntimeError", "..."),
        False,
        "Got ValueError, expected RuntimeError.",
    ),
    (
        "no error for an exception",
        "no error",
        ExceptionValue("RuntimeError", "..."),
        False,
        "Got no error, expected RuntimeError.",
    ),
    ("no error", "No error", NoError(), True, "Correct."),
    (
        "exception for no error",
        "RuntimeError",
        NoError(),
        False,
        "Got RuntimeError, expected no error.",
    ),
    ("None for no error", "None", NoError(), True, "Correct."),
    ("none for no error", "none", NoError(), True, "Correct."),
    (
        "None for an exception",
        "None",
        ExceptionValue("RuntimeError", "..."),
        False,
        "Got None, expected RuntimeError.",
    ),
    ("Chinese no error", "没有报错", NoError(), True, "Correct."),
    ("Chinese no error for an exception", "不报错", ExceptionValue("RuntimeError", "."), False, ""),
    ("opaque by text", "'{}'", Opaque("dict", "{}"), True, "Correct"),
    ("opaque other text", "'{1: 2}'", Opaque("dict", "{}"), False, "expected {}"),
]


def _cases(table):  # type: ignore[no-untyped-def]
    return [pytest.param(*row[1:], id=row[0]) for row in table]


@pytest.mark.parametrize(
    ("text", "truth", "correct", "feedback"),
    _cases(TENSOR_LADDER + SCALARS + SEQUENCES + TORCH_OBJECTS + OUTCOMES),
)
def test_compare(text: str, truth: Value, correct: bool, feedback: str) -> None:
    verdict = compare(parse_answer(text), truth)
    assert (verdict.correct, feedback in str(verdict.feedback)) == (correct, True), str(
        verdict.feedback
    )


FLOATS = tensor([0.0, 1.0, 1.0, 0.0], (4,))
GRAD = tensor([4.0, 6.0], (2,), requires_grad=True)
MASK = tensor([True, False], (2,), "bool")
FLOAT64 = tensor([1.0, 2.0], (2,), "float64")

# Graded by value: the question does not teach the type (`BY_VALUE`, no `strict:`).
BY_VALUE_CASES = [
    # an int for a float, a float for an int
    ("int for float", "1", Scalar(1.0), True, "torch gives it as 1.0 (a float)."),
    ("int for a rounded float", "0", Scalar(1e-6), True, "as 0.0 (a float)"),
    ("negative int for float", "-3", Scalar(-3.0), True, "as -3.0"),
    ("int of another value", "2", Scalar(2.5), False, "Got 2, expected 2.5."),
    ("integral float for int", "2.", Scalar(2), True, "torch gives it as 2 (an int)."),
    ("fractional float for int", "2.5", Scalar(2), False, "Got 2.5, expected 2."),
    ("nan is no int", "nan", Scalar(2), False, "expected 2"),
    ("bool is still not int", "1", Scalar(True), False, "Got 1 (an int), expected True (a bool)."),
    ("int is still not bool", "True", Scalar(1), False, "expected 1 (an int)"),
    ("same kind needs no note", "1.0", Scalar(1.0), True, "Correct."),
    # a plain number for a 0-dim tensor
    ("int for 0-dim float tensor", "2", A_GRAD, True, "as tensor(2.) (a float tensor)."),
    ("float for 0-dim float tensor", "2.", A_GRAD, True, "as tensor(2.) (a float tensor)."),
    ("float for 0-dim int tensor", "3.", tensor(3, dtype="int64"), True, "tensor(3) (an int"),
    ("int of another value for 0-dim", "3", A_GRAD, False, "Got 3, expected tensor(2."),
    ("int for a bool tensor", "1", tensor(True, dtype="bool"), False, "expected a bool tensor"),
    ("number for a 1-element tensor", "2.", tensor([2.0], (1,)), False, "expected tensor([2.])"),
    # a list for a tensor
    ("list for 1-d", "[4., 6.]", GRAD, True, "torch gives it as tensor([4., 6.]) (a float tensor)"),
    ("int list for 1-d", "[4, 6]", GRAD, True, "as tensor([4., 6.])"),
    ("tuple for 1-d", "(4., 6.)", GRAD, True, "as tensor([4., 6.])"),
    ("nested list for 2-d", "[[1., 2.], [3., 4.]]", MATRIX, True, "as tensor([[1., 2.], [3., 4."),
    ("list for float64", "[1, 2]", FLOAT64, True, "tensor([1., 2.], dtype=torch.float64)"),
    ("bool list for a mask", "[True, False]", MASK, True, "as tensor([True, False]) (a bool"),
    ("list of another value", "[4., 7.]", GRAD, False, "Got [4.0, 7.0], expected tensor([4., 6.]"),
    ("list of another length", "[4., 6., 8.]", GRAD, False, "Got [4.0, 6.0, 8.0], expected"),
    ("list of another shape", "[[4., 6.]]", GRAD, False, "Got [[4.0, 6.0]], expected"),
    ("ragged list", "[[1., 2.], [3.]]", MATRIX, False, "expected tensor([[1., 2.], [3., 4.]])"),
    ("list of words", "['a', 'b']", GRAD, False, "expected tensor([4., 6.]"),
    ("int list for a mask", "[1, 0]", MASK, False, "expected tensor([True, False])"),
    # integer values for a float tensor, and back
    ("int tensor for float", "tensor([0, 1, 1, 0])", FLOATS, True, "as tensor([0., 1., 1., 0.])"),
    ("int 0-dim for float", "tensor(2)", A_GRAD, True, "as tensor(2.) (a float tensor)."),
    (
        "int tensor with its flag",
        "tensor(2, requires_grad=True)",
        A_GRAD,
        True,
        "as tensor(2., requires_grad=True)",
    ),
    ("float tensor for int", "tensor([1., 2.])", INTS, True, "as tensor([1, 2]) (an int tensor)"),
    ("int tensor, other values", "tensor([0, 1, 1, 1])", FLOATS, False, "Got tensor([0, 1, 1, 1])"),
    ("fractional for int", "tensor([1.5, 2.])", INTS, False, "Got tensor([1.5, 2.]), expected"),
    (
        "a dtype written is compared",
        "tensor([0, 1, 1, 0], dtype=torch.int64)",
        FLOATS,
        False,
        "Got dtype torch.int64, expected torch.float32.",
    ),
    ("int tensor for a mask", "tensor([1, 0])", MASK, False, "expected a bool tensor"),
    # a tensor for a number or a list
    ("0-dim tensor for float", "tensor(5.)", Scalar(5.0), True, "torch gives it as 5.0 (a float)."),
    ("int 0-dim tensor for float", "tensor(5)", Scalar(5.0), True, "as 5.0 (a float)"),
    ("tensor for int", "tensor(2)", Scalar(2), True, "as 2 (an int)"),
    ("tensor of another value", "tensor(4.)", Scalar(5.0), False, "expected a float: 5.0"),
    (
        "tensor that requires grad",
        "tensor(5., requires_grad=True)",
        Scalar(5.0),
        False,
        "expected a float: 5.0",
    ),
    ("1-d tensor for a number", "tensor([5.])", Scalar(5.0), False, "expected a float: 5.0"),
    ("tensor for None", "tensor(0.)", Scalar(None), False, "expected None"),
    ("tensor for a tuple", "tensor([1, 4])", scalars("tuple", 1, 4), True, "as (1, 4) (a tuple)"),
    ("tensor of another length", "tensor([1])", scalars("tuple", 1, 4), False, "2 items"),
    # items of a tuple
    ("ints for floats in a tuple", "(1, 2)", scalars("tuple", 1.0, 2.0), True, "as (1.0, 2.0)"),
    ("lists in a tuple", "([4., 6.], None)", Sequence("tuple", (GRAD, Scalar(None))), True, ""),
    ("item of another value", "(1, 3)", scalars("tuple", 1.0, 2.0), False, "Item 2: got 3"),
    ("exact tuple needs no note", "(1., 2.)", scalars("tuple", 1.0, 2.0), True, "Correct."),
]


@pytest.mark.parametrize(("text", "truth", "correct", "feedback"), _cases(BY_VALUE_CASES))
def test_compare_by_value(text: str, truth: Value, correct: bool, feedback: str) -> None:
    verdict = compare(parse_answer(text), truth, BY_VALUE)
    assert (verdict.correct, feedback in str(verdict.feedback)) == (correct, True), str(
        verdict.feedback
    )
    exact = render_answer(truth) == render_answer(parse_answer(text))
    assert verdict.by_value is (correct and feedback != "Correct." and not exact)


# What each lesson of `strict:` keeps refusing (and what it lets through all the same).
KEPT = [
    ("int for float", "1", Scalar(1.0), ["dtype"], False, "Got 1 (an int), expected 1.0"),
    ("int for float, type kept", "1", Scalar(1.0), ["type"], True, "as 1.0 (a float)"),
    ("int tensor for float", "tensor([0, 1, 1, 0])", FLOATS, ["dtype"], False, "an int tensor"),
    ("int for 0-dim", "2", A_GRAD, ["dtype"], False, "expected a float tensor"),
    ("list for tensor", "[4., 6.]", GRAD, ["type"], False, "Got [4.0, 6.0], expected tensor("),
    ("list for tensor, dtype kept", "[4., 6.]", GRAD, ["dtype"], True, "as tensor([4., 6.])"),
    ("int list, dtype kept", "[4, 6]", GRAD, ["dtype"], False, "expected tensor([4., 6.]"),
    ("tensor for a number", "tensor(5.)", Scalar(5.0), ["type"], False, "expected a float: 5.0"),
    ("tensor for a tuple", "tensor([1, 4])", scalars("tuple", 1, 4), ["type"], False, "a tuple"),
    # as it always was: a bare number of the tensor's kind stands for a 0-dim tensor
    ("bare number, type kept", "2.", A_GRAD, ["type"], True, "as a tensor it is written"),
    ("both kept", "2", A_GRAD, ["dtype", "type"], False, "expected a float tensor"),
]


@pytest.mark.parametrize(
    ("text", "truth", "lessons", "correct", "feedback"),
    [pytest.param(*row[1:], id=row[0]) for row in KEPT],
)
def test_a_question_s_lesson_keeps_its_type_strict(
    text: str, truth: Value, lessons: list[str], correct: bool, feedback: str
) -> None:
    verdict = compare(parse_answer(text), truth, Rules.keeping(lessons))
    assert (verdict.correct, feedback in str(verdict.feedback)) == (correct, True), str(
        verdict.feedback
    )


def test_strict_is_what_compare_does_unless_told() -> None:
    assert Rules.keeping(["dtype", "type"]) == STRICT and Rules.keeping([]) == BY_VALUE
    for row in BY_VALUE_CASES:
        answer, truth = parse_answer(row[1]), row[2]
        assert compare(answer, truth) == compare(answer, truth, STRICT)


@pytest.mark.parametrize("n", [10, 1000])
def test_feedback_stays_short_for_big_values(n: int) -> None:
    truth = tensor([float(i) for i in range(n)], (n,))
    answer = TensorValue([float(i) for i in range(n - 1)] + [-1.0], (n,))
    verdict = compare(answer, truth)
    assert not verdict.correct
    assert len(str(verdict.feedback)) <= 2 * MAX_SHOWN + 20


def test_verdict_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Comparison(True, "Correct.").correct = False  # type: ignore[misc]


SAME = [
    ("same literal", "False", "False", True),
    ("different literal", "False", "True", False),
    ("bare number and 0-dim tensor", "5.", "tensor(5.)", True),
    ("unstated flag", "tensor(5., requires_grad=True)", "tensor(5.)", True),
    (
        "contradicting flags",
        "tensor(5., requires_grad=True)",
        "tensor(5., requires_grad=False)",
        False,
    ),
    ("grad_fn stated once", "tensor(5., grad_fn=<MulBackward0>)", "tensor(5.)", True),
    (
        "grad_fn versus no grad",
        "tensor(5., grad_fn=<MulBackward0>)",
        "tensor(5., requires_grad=False)",
        False,
    ),
    ("grad_fn versions", "<MulBackward>", "MulBackward0", True),
    ("exception names", "RuntimeError", "RuntimeError", True),
    ("exception versus no error", "RuntimeError", "no error", False),
    ("tuple and list", "(1, 2)", "[1, 2]", True),
    ("Size and tuple", "torch.Size([2])", "(2,)", True),
    ("int and float", "2", "2.", False),  # by value they are: see below
    ("dtype written once", "tensor(1., dtype=torch.float64)", "tensor(1.)", True),
    (
        "contradicting dtypes",
        "tensor(1., dtype=torch.float64)",
        "tensor(1., dtype=torch.float32)",
        False,
    ),
]


@pytest.mark.parametrize(("a", "b", "same"), [pytest.param(*row[1:], id=row[0]) for row in SAME])
def test_same_value_for_misconceptions(a: str, b: str, same: bool) -> None:
    assert same_value(parse_answer(a), parse_answer(b)) is same
    assert same_value(parse_answer(b), parse_answer(a)) is same


@pytest.mark.parametrize(
    ("a", "b"),
    [("2", "2."), ("[1., 2.]", "tensor([1., 2.])"), ("tensor([1, 2])", "tensor([1., 2.])")],
)
def test_by_value_misconceptions_match_answers_of_another_type(a: str, b: str) -> None:
    assert same_value(parse_answer(a), parse_answer(b), BY_VALUE)
    assert not same_value(parse_answer(a), parse_answer(b), STRICT)


def test_same_value_is_symmetric_over_all_pairs() -> None:
    texts = sorted({t for row in SAME for t in row[1:3]})
    for a, b in itertools.combinations(texts, 2):
        va, vb = parse_answer(a), parse_answer(b)
        assert same_value(va, vb) == same_value(vb, va), (a, b)
