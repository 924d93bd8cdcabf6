"""The plain-data picture of a Python/torch value that a learner can predict.

Both sides of a comparison use these types: the truth engine describes what torch
produced (``describe`` runs next to torch, in a child process), and the answer parser
turns a learner's literal into the same shape. Everything here is JSON-serialisable
through ``to_json`` / ``from_json``; nothing here imports torch at module level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

Nested = bool | int | float | list["Nested"]


@dataclass(frozen=True)
class TensorValue:
    """A tensor: values as nested lists, plus the flags autograd cares about.

    On the answer side a flag left as ``None`` means "the learner did not say".
    """

    values: Nested
    shape: tuple[int, ...]
    dtype: str | None = None  # "float32", "int64", ... (no "torch." prefix)
    requires_grad: bool | None = None
    is_leaf: bool | None = None
    grad_fn: str | None = None


@dataclass(frozen=True)
class Scalar:
    """A plain Python scalar: None, bool, int, float or str."""

    value: None | bool | int | float | str


@dataclass(frozen=True)
class Sequence:
    """A tuple or a list of values."""

    kind: str  # "tuple" | "list"
    items: tuple[Value, ...]


@dataclass(frozen=True)
class SizeValue:
    """``torch.Size([...])``."""

    dims: tuple[int, ...]


@dataclass(frozen=True)
class DtypeValue:
    """``torch.float32`` and friends, stored without the ``torch.`` prefix."""

    name: str


@dataclass(frozen=True)
class GradFnValue:
    """An autograd node such as ``<MulBackward0>``."""

    name: str


@dataclass(frozen=True)
class ExceptionValue:
    """The outcome of code that raised."""

    cls: str
    message: str = ""


@dataclass(frozen=True)
class NoError:
    """The outcome of a statement that ran without raising."""


@dataclass(frozen=True)
class Name:
    """A bare identifier in an answer (``RuntimeError``, ``MulBackward0``).

    Only the comparison decides what it names, from the kind of the truth.
    """

    ident: str


@dataclass(frozen=True)
class Opaque:
    """A truth value the course cannot ask learners to write (kept for drift reports)."""

    type_name: str
    text: str


Value = (
    TensorValue
    | Scalar
    | Sequence
    | SizeValue
    | DtypeValue
    | GradFnValue
    | ExceptionValue
    | NoError
    | Name
    | Opaque
)

_TAGS: dict[type, str] = {
    TensorValue: "tensor",
    Scalar: "scalar",
    Sequence: "sequence",
    SizeValue: "size",
    DtypeValue: "dtype",
    GradFnValue: "grad_fn",
    ExceptionValue: "exception",
    NoError: "no_error",
    Name: "name",
    Opaque: "opaque",
}
_BY_TAG = {tag: cls for cls, tag in _TAGS.items()}


def to_json(value: Value) -> dict[str, Any]:
    """Turn a value into a JSON-ready dict tagged with ``type``.

    JSON has no NaN or Infinity (and the sandbox refuses those tokens), so a non-finite
    float, alone or inside a tensor, is written as ``{"float": "nan" | "inf" | "-inf"}``:
    a dict can never be a real value here, so the marker is unambiguous.
    """
    tag = _TAGS[type(value)]
    if isinstance(value, Sequence):
        return {"type": tag, "kind": value.kind, "items": [to_json(v) for v in value.items]}
    fields = {k: _plain(v) for k, v in value.__dict__.items()}
    return {"type": tag, **fields}


def from_json(data: dict[str, Any]) -> Value:
    """Inverse of ``to_json``; raises ``ValueError`` on anything else.

    Data may come from a child that ran learner code, so the shape is checked here, once:
    a value that passes can be compared without further defensive code.
    """
    try:
        cls = _BY_TAG[data["type"]]
        if cls is Sequence:
            if data["kind"] not in ("tuple", "list"):
                raise ValueError(f"unknown sequence kind {data['kind']!r:.20}")
            return Sequence(data["kind"], tuple(from_json(v) for v in data["items"]))
        fields = {k: _unplain(v) for k, v in data.items() if k != "type"}
        for key in ("shape", "dims"):
            if key in fields:
                fields[key] = _ints(fields[key])
        return _checked(cls(**fields))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a value: {data!r:.80}") from exc


def nested_shape(values: Nested) -> tuple[int, ...] | None:
    """The shape of a nested list of numbers, or None when it is ragged or not numbers."""
    if not isinstance(values, list):
        return () if _is_number(values) else None
    if not values:
        return (0,)
    shapes = {nested_shape(v) for v in values}
    inner = shapes.pop() if len(shapes) == 1 else None
    return None if inner is None else (len(values), *inner)


_OPTIONAL_STR = ("dtype", "grad_fn")
_OPTIONAL_BOOL = ("requires_grad", "is_leaf")
_STR = ("name", "cls", "message", "ident", "type_name", "text")


def _checked(value: Value) -> Value:
    fields = value.__dict__
    if not (
        all(isinstance(fields[k], str) for k in _STR if k in fields)
        and all(isinstance(fields[k], (str, type(None))) for k in _OPTIONAL_STR if k in fields)
        and all(isinstance(fields[k], (bool, type(None))) for k in _OPTIONAL_BOOL if k in fields)
    ):
        raise ValueError(f"a field of {type(value).__name__} has the wrong type")
    if isinstance(value, TensorValue) and nested_shape(value.values) != listed_shape(value.shape):
        raise ValueError(f"tensor values do not have shape {value.shape}")
    if isinstance(value, Scalar) and not (
        value.value is None or _is_number(value.value) or isinstance(value.value, str)
    ):
        raise ValueError(f"not a scalar: {value.value!r:.40}")
    return value


def listed_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape ``tolist()`` shows: it stops at the first empty dimension.

    Shape (0, 3) lists as ``[]`` and (2, 0, 3) as ``[[], []]``.
    """
    return shape[: shape.index(0) + 1] if 0 in shape else shape


def _ints(dims: Any) -> tuple[int, ...]:
    if not all(type(n) is int and n >= 0 for n in dims):
        raise ValueError(f"not a shape: {dims!r:.40}")
    return tuple(dims)


def _is_number(v: Any) -> bool:
    return isinstance(v, (bool, int, float))


def _plain(v: Any) -> Any:
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return {"float": repr(v)}
    return v


def _unplain(v: Any) -> Any:
    if isinstance(v, list):
        return [_unplain(x) for x in v]
    if isinstance(v, dict):
        if set(v) != {"float"} or v["float"] not in _NON_FINITE:
            raise ValueError(f"not a value: {v!r:.40}")
        return float(v["float"])
    return v


_NON_FINITE = ("nan", "inf", "-inf")
