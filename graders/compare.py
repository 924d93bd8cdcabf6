"""Compare a learner's answer with the truth torch gave, with one-sentence feedback.

The rules, by the kind of the truth:

- Tensor: a fixed ladder, stopping at the first difference. Is it a tensor -> shape ->
  dtype (compared when the answer wrote ``dtype=``; otherwise only the kind must agree:
  ``tensor(2)`` is an int tensor, ``tensor(2.)`` a float one) -> ``requires_grad`` (only
  if written) -> ``grad_fn`` (only if written; by name) -> values. A bare number for a
  0-dim tensor is accepted when its kind and value match; the feedback shows the tensor.
- Numbers: floats within ``rel 1e-3`` or ``abs 1e-5`` (torch prints 4 decimals); ints
  exactly; ``bool`` is not ``int`` (``True`` is not ``1``), and an int is not a float
  (``2`` is not ``2.0``): the learner predicts what is printed. NaN equals only NaN;
  ``inf`` equals only ``inf`` of the same sign.
- Tuples and lists: item by item; a tuple answer for a list truth (or back) is accepted.
  ``torch.Size([3, 4])``, ``(3, 4)`` and ``[3, 4]`` are interchangeable.
- Exceptions: by class name (``RuntimeError``); ``no error`` only matches no error.
- grad_fn: by name; a missing trailing version number is accepted (``MulBackward`` for
  ``MulBackward0``), a different one is not.
- dtypes: by canonical name (``torch.long`` is ``torch.int64``).
- Opaque truths (which no answer form can express) compare the answer's text with the
  truth's repr, so validation shows the course author what went wrong.

A flag the truth does not know (``None``, as in answers) is never compared: so
``same_value`` can compare two answers, which is how misconceptions are matched.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .literals import dtype_kind, flatten, render_answer, render_number, tensor_dtype
from .values import (
    DtypeValue, ExceptionValue, GradFnValue, Name, NoError, Opaque, Scalar, Sequence,
    SizeValue, TensorValue, Value,
)

REL_TOL = 1e-3
ABS_TOL = 1e-5
MAX_SHOWN = 80  # characters of a rendered value in feedback


@dataclass(frozen=True)
class Verdict:
    """Whether an answer is right, and one short sentence saying why for the learner."""

    correct: bool
    feedback: str


def compare(answer: Value, truth: Value) -> Verdict:
    """Judge ``answer`` (usually parsed from a learner) against ``truth`` (from torch)."""
    return _BY_TRUTH[type(truth)](answer, truth)


def same_value(a: Value, b: Value) -> bool:
    """Whether two answers say the same thing (either one accepted for the other)."""
    return compare(a, b).correct or compare(b, a).correct


def same_number(a: bool | int | float, b: bool | int | float) -> bool:
    """Numbers of the same kind and value (floats within the tolerance)."""
    if _number_kind(a) != _number_kind(b):
        return False
    if isinstance(a, float) and (math.isnan(a) or math.isnan(b)):
        return math.isnan(a) and math.isnan(b)
    if isinstance(a, float):
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    return a == b


def same_name(a: str, b: str) -> bool:
    """grad_fn names: equal, or equal but for a trailing version number one side left out."""
    base_a, base_b = re.sub(r"\d+$", "", a), re.sub(r"\d+$", "", b)
    return a == b or (base_a == base_b and (a == base_a or b == base_b))


def _tensor(answer: Value, truth: TensorValue) -> Verdict:
    if isinstance(answer, Scalar) and truth.shape == () and _number_kind(answer.value):
        return _bare_number(answer, truth)
    if not isinstance(answer, TensorValue):
        return _wrong(answer, truth)
    for rung in (_shape, _dtype, _requires_grad, _grad_fn, _values):
        problem = rung(answer, truth)
        if problem:
            return Verdict(False, problem)
    return _right(answer, truth)


def _bare_number(answer: Scalar, truth: TensorValue) -> Verdict:
    kind = dtype_kind(tensor_dtype(truth))
    if _number_kind(answer.value) != kind:
        return _wrong(answer, truth, f"{_article(kind)} {kind} tensor")
    if not same_number(answer.value, truth.values):  # type: ignore[arg-type]
        return _wrong(answer, truth)
    return Verdict(True, f"Correct; as a tensor it is written {_show(truth)}.")


def _shape(answer: TensorValue, truth: TensorValue) -> str | None:
    if answer.shape == truth.shape:
        return None
    zero_dim = " (a 0-dim tensor)" if not truth.shape else ""
    return f"Got a tensor of shape {_size_text(answer.shape)}, expected shape {_size_text(truth.shape)}{zero_dim}."


def _dtype(answer: TensorValue, truth: TensorValue) -> str | None:
    expected = tensor_dtype(truth)
    if answer.dtype is not None:
        return None if answer.dtype == expected else f"Got dtype torch.{answer.dtype}, expected torch.{expected}."
    got_kind, kind = dtype_kind(tensor_dtype(answer)), dtype_kind(expected)
    if got_kind == kind:
        return None
    return f"Got {_show(answer)}, {_article(got_kind)} {got_kind} tensor; expected {_article(kind)} {kind} tensor: {_show(truth)}."


def _requires_grad(answer: TensorValue, truth: TensorValue) -> str | None:
    got, expected = _requires_grad_of(answer), _requires_grad_of(truth)
    if None in (got, expected) or got == expected:
        return None
    return f"Got requires_grad={got}, expected requires_grad={expected}."


def _requires_grad_of(t: TensorValue) -> bool | None:
    # a written grad_fn says requires_grad=True even when requires_grad is not written
    return t.requires_grad if t.requires_grad is not None else (True if t.grad_fn else None)


def _grad_fn(answer: TensorValue, truth: TensorValue) -> str | None:
    if answer.grad_fn is None:
        return None
    if truth.grad_fn is not None:
        if same_name(answer.grad_fn, truth.grad_fn):
            return None
        return f"Got grad_fn=<{answer.grad_fn}>, expected grad_fn=<{truth.grad_fn}>."
    # Only a described tensor (is_leaf known) or requires_grad=False says "no grad_fn".
    if truth.is_leaf is None and truth.requires_grad is not False:
        return None
    return f"Got grad_fn=<{answer.grad_fn}>, expected no grad_fn: {_show(truth)}."


def _values(answer: TensorValue, truth: TensorValue) -> str | None:
    got, expected = list(flatten(answer.values)), list(flatten(truth.values))
    wrong = next((i for i, (a, t) in enumerate(zip(got, expected)) if not same_number(a, t)), None)
    if wrong is None:
        return None
    shown = f"Got {render_answer(answer)}, expected {render_answer(truth)}."
    if len(shown) <= 2 * MAX_SHOWN:
        return shown
    digits = 15 if truth.dtype == "float64" else 7
    got_text, expected_text = render_number(got[wrong], digits), render_number(expected[wrong], digits)
    return f"Got {got_text} at index {_unravel(wrong, truth.shape)}, expected {expected_text} there."


def _scalar(answer: Value, truth: Scalar) -> Verdict:
    if not isinstance(answer, Scalar):
        return _wrong(answer, truth, "" if truth.value is None else _scalar_noun(truth.value))
    got, expected = _scalar_noun(answer.value), _scalar_noun(truth.value)
    if got != expected:
        return Verdict(False, f"Got {_show(answer)} ({got}), expected {_show(truth)} ({expected}).")
    if isinstance(truth.value, str) or truth.value is None:
        same = answer.value == truth.value
    else:
        same = same_number(answer.value, truth.value)  # type: ignore[arg-type]
    return _right(answer, truth) if same else _wrong(answer, truth)


def _sequence(answer: Value, truth: Sequence) -> Verdict:
    if isinstance(answer, SizeValue):
        answer = _size_as_tuple(answer)
    if not isinstance(answer, Sequence):
        return _wrong(answer, truth, f"a {truth.kind}")
    if len(answer.items) != len(truth.items):
        return _wrong(answer, truth, f"{len(truth.items)} items")
    for i, (a, t) in enumerate(zip(answer.items, truth.items)):
        verdict = compare(a, t)
        if not verdict.correct:
            return Verdict(False, f"Item {i + 1}: {verdict.feedback[0].lower()}{verdict.feedback[1:]}")
    return _right(answer, truth)


def _size(answer: Value, truth: SizeValue) -> Verdict:
    if isinstance(answer, Sequence):
        ok = all(isinstance(i, Scalar) and _number_kind(i.value) == "int" for i in answer.items)
        dims = tuple(i.value for i in answer.items) if ok else None  # type: ignore[union-attr]
    else:
        dims = answer.dims if isinstance(answer, SizeValue) else None
    return _right(answer, truth) if dims == truth.dims else _wrong(answer, truth)


def _by_name(names: Callable[[Value], str | None], match: Callable[[str, str], bool]) -> Callable[[Value, Any], Verdict]:
    """A comparison of named things: the answer's name (if any) against the truth's."""

    def judge(answer: Value, truth: Any) -> Verdict:
        got, expected = names(answer), names(truth)
        if got is None or expected is None or not match(got, expected):
            return _wrong(answer, truth)
        # <MulBackward0> is read as the name MulBackward0: same name, nothing to add
        return Verdict(True, "Correct.") if got == expected else _right(answer, truth)

    return judge


def _name_of(v: Value) -> str | None:
    if isinstance(v, Name):
        return v.ident
    if isinstance(v, (GradFnValue, DtypeValue)):
        return v.name
    return v.cls if isinstance(v, ExceptionValue) else None


def _text_of(v: Value) -> str:
    if isinstance(v, Scalar) and isinstance(v.value, str):
        return v.value.strip()
    return (v.text if isinstance(v, Opaque) else render_answer(v)).strip()


def _right(answer: Value, truth: Value) -> Verdict:
    full = render_answer(truth)
    if render_answer(answer) == full:
        return Verdict(True, "Correct.")
    return Verdict(True, f"Correct; written in full: {_cap(full)}.")


def _wrong(answer: Value, truth: Value, what: str = "") -> Verdict:
    expected = f"{what}: {_show(truth)}" if what else _show(truth)
    return Verdict(False, f"Got {_show(answer)}, expected {expected}.")


def _show(v: Value) -> str:
    return _cap(render_answer(v))


def _cap(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def _number_kind(v: object) -> str | None:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    return "float" if isinstance(v, float) else None


def _scalar_noun(v: object) -> str:
    if v is None:
        return "None"
    kind = _number_kind(v) or "string"
    return f"{_article(kind)} {kind}"


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"


def _size_as_tuple(s: SizeValue) -> Sequence:
    return Sequence("tuple", tuple(Scalar(d) for d in s.dims))


def _unravel(index: int, shape: tuple[int, ...]) -> list[int]:
    where = []
    for n in reversed(shape):
        index, i = divmod(index, n)
        where.append(i)
    return where[::-1]


def _size_text(shape: tuple[int, ...]) -> str:
    return render_answer(SizeValue(shape))


_BY_TRUTH: dict[type, Callable[[Value, Any], Verdict]] = {
    TensorValue: _tensor,
    Scalar: _scalar,
    Sequence: _sequence,
    SizeValue: _size,
    DtypeValue: _by_name(_name_of, str.__eq__),
    GradFnValue: _by_name(_name_of, same_name),
    Name: _by_name(_name_of, same_name),
    ExceptionValue: _by_name(_name_of, str.__eq__),
    NoError: _by_name(lambda v: "no error" if isinstance(v, NoError) else None, str.__eq__),
    Opaque: _by_name(_text_of, str.__eq__),
}
