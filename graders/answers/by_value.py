"""Reading an answer by its value, where the question's lesson is not the type.

A teaching assistant marks ``1`` right for ``1.0``, ``[4., 6.]`` for ``tensor([4., 6.])``,
``2`` for ``tensor(2.)`` and ``tensor([0, 1])`` for ``tensor([0., 1.])``: the value is what
the question asks. ``as_tensor`` reads a number or a (nested) list of numbers as the tensor
torch makes of it, ``as_plain`` a tensor as the number or list it holds. ``accepted`` is
the verdict on an answer that is right by value only: its feedback says how torch prints
it, from the learner's own values put in torch's type (``recast``), so it tells the type
and nothing of the truth the learner did not write.
"""

from __future__ import annotations

from ..i18n import N_
from ..said import Told, say
from .judging import (
    Comparison,
    number_kind,
    same_text,
    scalar_noun,
    sequence_noun,
    show,
    tensor_noun,
)
from .render import as_kind, dtype_kind, literal_dtype, tensor_dtype
from .values import (
    DtypeValue,
    ExceptionValue,
    GradFnValue,
    Name,
    Nested,
    Scalar,
    Sequence,
    SizeValue,
    TensorValue,
    Value,
    nested_shape,
)


def as_tensor(answer: Value) -> TensorValue | None:
    """A number or a (nested) list of numbers as ``torch.tensor`` makes it; else None."""
    values = _numbers(answer)
    shape = None if values is None else nested_shape(values)
    if values is None or shape is None:
        return None
    return TensorValue(as_kind(values, dtype_kind(literal_dtype(values))), shape)


def as_plain(answer: TensorValue) -> Value | None:
    """The number or (nested) list a tensor holds; None when the answer claims what a plain
    value cannot have (``requires_grad=True``, a ``grad_fn``)."""
    if answer.requires_grad or answer.grad_fn:
        return None
    return _plain(answer.values)


def accepted(answer: Value, truth: Value) -> Comparison:
    """Right by value: the feedback says how torch gives it (``1`` -> ``1.0 (a float)``)."""
    said = say(
        "Right by value; torch gives it as {printed} ({what}).",
        printed=show(recast(answer, truth)),
        what=_noun(truth),
    )
    return Comparison(True, said, by_value=True)


def recast(answer: Value, truth: Value) -> Value:
    """The answer's own values in the truth's types (and container), as torch prints them."""
    if isinstance(truth, TensorValue):
        t = answer if isinstance(answer, TensorValue) else as_tensor(answer)
        if t is None:
            return answer
        values = as_kind(t.values, dtype_kind(tensor_dtype(truth)))
        return TensorValue(values, t.shape, tensor_dtype(truth), t.requires_grad, None, t.grad_fn)
    if isinstance(truth, Scalar) and isinstance(truth.value, str):
        return _as_text(answer, truth.value)
    if isinstance(truth, (GradFnValue, DtypeValue, ExceptionValue, SizeValue)):
        return truth  # a name or a size accepted (only a right one is recast), as torch writes it
    plain = as_plain(answer) if isinstance(answer, TensorValue) else answer
    if isinstance(truth, Scalar) and isinstance(plain, Scalar):
        kind = number_kind(truth.value)
        return Scalar(as_kind(plain.value, kind)) if kind else plain  # type: ignore[arg-type]
    if isinstance(truth, Sequence) and isinstance(plain, Sequence):
        items = zip(plain.items, truth.items, strict=False)
        return Sequence(truth.kind, tuple(recast(a, t) for a, t in items))
    return answer


def _as_text(answer: Value, text: str) -> Value:
    """A name written without quotes, or a string, as the string torch gives: the truth's
    own text where it names the same class (``sigmoidbackward0`` is ``'SigmoidBackward0'``),
    else the learner's text in quotes."""
    written = answer.ident if isinstance(answer, Name) else None
    if isinstance(answer, Scalar) and isinstance(answer.value, str):
        written = answer.value
    if written is None:
        return answer
    return Scalar(text if same_text(written, text) else written)


def _noun(truth: Value) -> Told:
    if isinstance(truth, TensorValue):
        return tensor_noun(dtype_kind(tensor_dtype(truth)))
    if isinstance(truth, Sequence):
        return sequence_noun(truth.kind)
    if isinstance(truth, SizeValue):
        return say(A_SIZE)
    return scalar_noun(truth.value) if isinstance(truth, Scalar) else ""


A_SIZE = N_("a torch.Size")


def _numbers(answer: Value) -> Nested | None:
    if isinstance(answer, Scalar) and number_kind(answer.value):
        return answer.value  # type: ignore[return-value]
    if isinstance(answer, Sequence):
        items = [_numbers(item) for item in answer.items]
        return None if any(item is None for item in items) else items  # type: ignore[return-value]
    return None


def _plain(values: Nested) -> Value:
    if isinstance(values, list):
        return Sequence("list", tuple(_plain(v) for v in values))
    return Scalar(values)
