"""Comparing with a tensor truth: a fixed ladder, stopping at the first difference.

Is it a tensor -> shape -> dtype -> ``requires_grad`` -> ``grad_fn`` -> values, each
difference said as "got X, expected Y". A bare number for a 0-dim tensor is accepted
when its kind and value match (see ``compare`` for the rules of each rung).
"""

from __future__ import annotations

from ..i18n import N_
from ..said import say
from .judging import (
    MAX_SHOWN,
    Comparison,
    number_kind,
    right,
    same_name,
    same_number,
    show,
    tensor_noun,
    wrong,
)
from .render import dtype_kind, flatten, render_answer, render_number, tensor_dtype
from .values import Scalar, SizeValue, TensorValue, Value


def compare_tensor(answer: Value, truth: TensorValue) -> Comparison:
    if isinstance(answer, Scalar) and truth.shape == () and number_kind(answer.value):
        return _bare_number(answer, truth)
    if not isinstance(answer, TensorValue):
        return wrong(answer, truth)
    for rung in (_shape, _dtype, _requires_grad, _grad_fn, _values):
        problem = rung(answer, truth)
        if problem:
            return Comparison(False, problem)
    return right(answer, truth)


def _bare_number(answer: Scalar, truth: TensorValue) -> Comparison:
    kind = dtype_kind(tensor_dtype(truth))
    if number_kind(answer.value) != kind:
        return wrong(answer, truth, tensor_noun(kind))
    if not same_number(answer.value, truth.values):  # type: ignore[arg-type]
        return wrong(answer, truth)
    return Comparison(True, say("Correct; as a tensor it is written {truth}.", truth=show(truth)))


def _shape(answer: TensorValue, truth: TensorValue) -> str | None:
    if answer.shape == truth.shape:
        return None
    if not truth.shape:
        message = N_("Got a tensor of shape {got}, expected shape {expected} (a 0-dim tensor).")
    else:
        message = N_("Got a tensor of shape {got}, expected shape {expected}.")
    return say(message, got=_size_text(answer.shape), expected=_size_text(truth.shape))


def _dtype(answer: TensorValue, truth: TensorValue) -> str | None:
    expected = tensor_dtype(truth)
    if answer.dtype is not None:
        return (
            None
            if answer.dtype == expected
            else say(
                "Got dtype torch.{got}, expected torch.{expected}.",
                got=answer.dtype,
                expected=expected,
            )
        )
    got_kind, kind = dtype_kind(tensor_dtype(answer)), dtype_kind(expected)
    if got_kind == kind:
        return None
    return say(
        "Got {answer}, {got}; expected {expected}: {truth}.",
        answer=show(answer),
        got=tensor_noun(got_kind),
        expected=tensor_noun(kind),
        truth=show(truth),
    )


def _requires_grad(answer: TensorValue, truth: TensorValue) -> str | None:
    got, expected = _requires_grad_of(answer), _requires_grad_of(truth)
    if None in (got, expected) or got == expected:
        return None
    return say(
        "Got requires_grad={got}, expected requires_grad={expected}.", got=got, expected=expected
    )


def _requires_grad_of(t: TensorValue) -> bool | None:
    # a written grad_fn says requires_grad=True even when requires_grad is not written
    return t.requires_grad if t.requires_grad is not None else (True if t.grad_fn else None)


def _grad_fn(answer: TensorValue, truth: TensorValue) -> str | None:
    if answer.grad_fn is None:
        return None
    if truth.grad_fn is not None:
        if same_name(answer.grad_fn, truth.grad_fn):
            return None
        return say(
            "Got grad_fn=<{got}>, expected grad_fn=<{expected}>.",
            got=answer.grad_fn,
            expected=truth.grad_fn,
        )
    # Only a described tensor (is_leaf known) or requires_grad=False says "no grad_fn".
    if truth.is_leaf is None and truth.requires_grad is not False:
        return None
    return say(
        "Got grad_fn=<{got}>, expected no grad_fn: {truth}.", got=answer.grad_fn, truth=show(truth)
    )


def _values(answer: TensorValue, truth: TensorValue) -> str | None:
    got, expected = list(flatten(answer.values)), list(flatten(truth.values))
    wrong = next(
        (i for i, (a, t) in enumerate(zip(got, expected, strict=True)) if not same_number(a, t)),
        None,
    )
    if wrong is None:
        return None
    shown = say(
        "Got {answer}, expected {truth}.", answer=render_answer(answer), truth=render_answer(truth)
    )
    if len(shown) <= 2 * MAX_SHOWN:
        return shown
    digits = 15 if truth.dtype == "float64" else 7
    got_text, expected_text = (
        render_number(got[wrong], digits),
        render_number(expected[wrong], digits),
    )
    return say(
        "Got {got} at index {index}, expected {expected} there.",
        got=got_text,
        index=_unravel(wrong, truth.shape),
        expected=expected_text,
    )


def _unravel(index: int, shape: tuple[int, ...]) -> list[int]:
    where = []
    for n in reversed(shape):
        index, i = divmod(index, n)
        where.append(i)
    return where[::-1]


def _size_text(shape: tuple[int, ...]) -> str:
    return render_answer(SizeValue(shape))
