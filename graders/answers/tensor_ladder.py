"""Comparing with a tensor truth: a fixed ladder, stopping at the first difference.

Is it a tensor -> shape -> dtype -> ``requires_grad`` -> ``grad_fn`` -> values, each
difference said as "got X, expected Y". A bare number for a 0-dim tensor is accepted
when its value matches; by value (``Rules``), a number of the other kind (``2`` for
``tensor(2.)``), a list for a tensor and a tensor of the other kind are too (see
``compare`` for the rules of each rung).
"""

from __future__ import annotations

from dataclasses import replace

from ..i18n import N_
from ..said import Told, say
from .by_value import accepted, as_tensor
from .judging import (
    MAX_SHOWN,
    NUMBER_KINDS,
    STRICT,
    Comparison,
    Rules,
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


def compare_tensor(answer: Value, truth: TensorValue, rules: Rules = STRICT) -> Comparison:
    if isinstance(answer, Scalar) and truth.shape == () and number_kind(answer.value):
        return _bare_number(answer, truth, rules)
    if not isinstance(answer, TensorValue):
        listed = None if rules.type else as_tensor(answer)
        if listed is None or not _ladder(listed, truth, rules).correct:
            return wrong(answer, truth)
        return accepted(answer, truth)  # a list for a tensor
    verdict = _ladder(answer, truth, rules)
    if verdict.correct and _kind(answer) != _kind(truth):
        return accepted(answer, truth)  # an int tensor for a float one
    if verdict.correct and answer.grad_fn not in (None, truth.grad_fn):
        # grad_fn=<mulbackward0> or <MulBackward>: read as the node, said how torch writes it
        return replace(verdict, by_value=True)
    return verdict


def _ladder(answer: TensorValue, truth: TensorValue, rules: Rules) -> Comparison:
    for rung in (_shape, _dtype, _requires_grad, _grad_fn, _values):
        problem = rung(answer, truth, rules)
        if problem:
            return Comparison(False, problem)
    return right(answer, truth)


def _bare_number(answer: Scalar, truth: TensorValue, rules: Rules) -> Comparison:
    kind, got = _kind(truth), number_kind(answer.value)
    if got != kind and (rules.dtype or {got, kind} != NUMBER_KINDS):
        return wrong(answer, truth, tensor_noun(kind))
    if not same_number(answer.value, truth.values, any_kind=True):  # type: ignore[arg-type]
        return wrong(answer, truth)
    if got != kind or not rules.type:
        return accepted(answer, truth)
    return Comparison(True, say("Correct; as a tensor it is written {truth}.", truth=show(truth)))


def _kind(t: TensorValue) -> str:
    return dtype_kind(tensor_dtype(t))


def _shape(answer: TensorValue, truth: TensorValue, rules: Rules) -> Told | None:
    if answer.shape == truth.shape:
        return None
    if not truth.shape:
        message = N_("Got a tensor of shape {got}, expected shape {expected} (a 0-dim tensor).")
    else:
        message = N_("Got a tensor of shape {got}, expected shape {expected}.")
    return say(message, got=_size_text(answer.shape), expected=_size_text(truth.shape))


def _dtype(answer: TensorValue, truth: TensorValue, rules: Rules) -> Told | None:
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
    got_kind, kind = _kind(answer), dtype_kind(expected)
    if got_kind == kind or (not rules.dtype and {got_kind, kind} == NUMBER_KINDS):
        return None
    return say(
        "Got {answer}, {got}; expected {expected}: {truth}.",
        answer=show(answer),
        got=tensor_noun(got_kind),
        expected=tensor_noun(kind),
        truth=show(truth),
    )


def _requires_grad(answer: TensorValue, truth: TensorValue, rules: Rules) -> Told | None:
    got, expected = _requires_grad_of(answer), _requires_grad_of(truth)
    if None in (got, expected) or got == expected:
        return None
    return say(
        "Got requires_grad={got}, expected requires_grad={expected}.", got=got, expected=expected
    )


def _requires_grad_of(t: TensorValue) -> bool | None:
    # a written grad_fn says requires_grad=True even when requires_grad is not written
    return t.requires_grad if t.requires_grad is not None else (True if t.grad_fn else None)


def _grad_fn(answer: TensorValue, truth: TensorValue, rules: Rules) -> Told | None:
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


def _values(answer: TensorValue, truth: TensorValue, rules: Rules) -> Told | None:
    got, expected = list(flatten(answer.values)), list(flatten(truth.values))
    pairs = enumerate(zip(got, expected, strict=True))
    wrong = next(
        (i for i, (a, t) in pairs if not same_number(a, t, any_kind=not rules.dtype)), None
    )
    if wrong is None:
        return None
    shown = say(
        "Got {answer}, expected {truth}.", answer=render_answer(answer), truth=render_answer(truth)
    )
    if len(str(shown)) <= 2 * MAX_SHOWN:  # measured in English: a rule of thumb
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
