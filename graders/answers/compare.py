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
- Exceptions: by class name, in any case (``RuntimeError``, ``runtimeerror``); ``no error``
  only matches no error.
- grad_fn: by name; a missing trailing version number is accepted (``MulBackward`` for
  ``MulBackward0``), a different one is not.
- dtypes: by canonical name (``torch.long`` is ``torch.int64``).
- Opaque truths (which no answer form can express) compare the answer's text with the
  truth's repr, so validation shows the course author what went wrong.

A flag the truth does not know (``None``, as in answers) is never compared: so
``same_value`` can compare two answers, which is how misconceptions are matched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..said import decapitalized, say
from .judging import (
    Comparison,
    number_kind,
    right,
    same_name,
    same_number,
    scalar_noun,
    sequence_noun,
    show,
    wrong,
)
from .render import render_answer
from .tensor_ladder import compare_tensor
from .values import (
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


def compare(answer: Value, truth: Value) -> Comparison:
    """Judge ``answer`` (usually parsed from a learner) against ``truth`` (from torch)."""
    return _BY_TRUTH[type(truth)](answer, truth)


def same_value(a: Value, b: Value) -> bool:
    """Whether two answers say the same thing (either one accepted for the other)."""
    return compare(a, b).correct or compare(b, a).correct


def _scalar(answer: Value, truth: Scalar) -> Comparison:
    if not isinstance(answer, Scalar):
        return wrong(answer, truth, "" if truth.value is None else scalar_noun(truth.value))
    got, expected = scalar_noun(answer.value), scalar_noun(truth.value)
    if got != expected:
        return Comparison(
            False,
            say(
                "Got {answer} ({got}), expected {truth} ({expected}).",
                answer=show(answer),
                got=got,
                truth=show(truth),
                expected=expected,
            ),
        )
    if isinstance(truth.value, str) or truth.value is None:
        same = answer.value == truth.value
    else:
        same = same_number(answer.value, truth.value)  # type: ignore[arg-type]
    return right(answer, truth) if same else wrong(answer, truth)


def _sequence(answer: Value, truth: Sequence) -> Comparison:
    if isinstance(answer, SizeValue):
        answer = _size_as_tuple(answer)
    if not isinstance(answer, Sequence):
        return wrong(answer, truth, sequence_noun(truth.kind))
    if len(answer.items) != len(truth.items):
        return wrong(answer, truth, say("{count} items", count=len(truth.items)))
    for i, (a, t) in enumerate(zip(answer.items, truth.items, strict=True)):
        verdict = compare(a, t)
        if not verdict.correct:
            return Comparison(
                False,
                say(
                    "Item {number}: {verdict}",
                    number=i + 1,
                    verdict=decapitalized(verdict.feedback),
                ),
            )
    return right(answer, truth)


def _size(answer: Value, truth: SizeValue) -> Comparison:
    if isinstance(answer, Sequence):
        ok = all(isinstance(i, Scalar) and number_kind(i.value) == "int" for i in answer.items)
        dims = tuple(i.value for i in answer.items) if ok else None  # type: ignore[union-attr]
    else:
        dims = answer.dims if isinstance(answer, SizeValue) else None
    return right(answer, truth) if dims == truth.dims else wrong(answer, truth)


def _by_name(
    names: Callable[[Value], str | None], match: Callable[[str, str], bool]
) -> Callable[[Value, Any], Comparison]:
    """A comparison of named things: the answer's name (if any) against the truth's."""

    def judge(answer: Value, truth: Any) -> Comparison:
        got, expected = names(answer), names(truth)
        if got is None or expected is None or not match(got, expected):
            return wrong(answer, truth)
        # <MulBackward0> is read as the name MulBackward0: same name, nothing to add
        return Comparison(True, say("Correct.")) if got == expected else right(answer, truth)

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


def _size_as_tuple(s: SizeValue) -> Sequence:
    return Sequence("tuple", tuple(Scalar(d) for d in s.dims))


_BY_TRUTH: dict[type, Callable[[Value, Any], Comparison]] = {
    TensorValue: compare_tensor,
    Scalar: _scalar,
    Sequence: _sequence,
    SizeValue: _size,
    DtypeValue: _by_name(_name_of, str.__eq__),
    GradFnValue: _by_name(_name_of, same_name),
    Name: _by_name(_name_of, same_name),
    # Exception classes without regard to case: `runtimeerror` names RuntimeError.
    ExceptionValue: _by_name(_name_of, lambda a, b: a.casefold() == b.casefold()),
    NoError: _by_name(lambda v: "no error" if isinstance(v, NoError) else None, str.__eq__),
    Opaque: _by_name(_text_of, str.__eq__),
}
