"""How torch writes values as text: dtype names and kinds, and answer literals for truths.

``render_answer(value)`` gives the literal a learner would write for a value (the answer
key, and the "expected ..." part of feedback). Tensors follow torch's printing on one
line: ``tensor(5.)``, ``tensor([[1., 2.], [3., 4.]], requires_grad=True)``,
``tensor(2., grad_fn=<MulBackward0>)``, ``tensor([], size=(0, 3))``. Float elements get 7
significant digits (15 for float64) and a trailing ``.`` when integral, so they read back
as floats. ``dtype=`` appears exactly when torch prints it: when the dtype differs from
the one torch infers from the literal (``literal_dtype``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from .values import (
    DtypeValue,
    ExceptionValue,
    GradFnValue,
    Name,
    Nested,
    NoError,
    Opaque,
    Scalar,
    Sequence,
    SizeValue,
    TensorValue,
    Value,
)

# Every dtype torch 2.13 has (a test checks this against torch), plus torch's aliases.
DTYPES = frozenset(
    "bool float16 bfloat16 float32 float64 complex32 complex64 complex128 "
    "int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
    "float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu float4_e2m1fn_x2 "
    "qint8 qint32 quint8 quint4x2 quint2x4 bits1x8 bits2x4 bits4x2 bits8 bits16 "
    "int1 int2 int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 uint5 uint6 uint7".split()
)
DTYPE_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "short": "int16",
    "int": "int32",
    "long": "int64",
    "cfloat": "complex64",
    "cdouble": "complex128",
    "chalf": "complex32",
}


def dtype_kind(dtype: str) -> str:
    """``"bool"``, ``"int"``, ``"float"`` or ``"other"`` (complex, quantized, bit types)."""
    if dtype == "bool":
        return "bool"
    if dtype.startswith(("float", "bfloat")):
        return "float"
    return "int" if re.fullmatch(r"u?int\d+", dtype) else "other"


def literal_dtype(values: Nested) -> str:
    """The dtype torch infers for a literal: any float -> float32, any int -> int64, else bool.

    An empty literal is float32, as ``torch.tensor([])`` is.
    """
    flat = list(flatten(values))
    if not flat or any(isinstance(v, float) for v in flat):
        return "float32"
    return "bool" if all(isinstance(v, bool) for v in flat) else "int64"


def as_kind(values: Nested, kind: str) -> Nested:
    """``values`` converted as torch converts them to a dtype of ``kind`` (``dtype_kind``):
    ``[1, 2]`` as floats is ``[1.0, 2.0]``. Values of kind ``other`` stay as they are."""
    convert = _CONVERT.get(kind)
    if convert is None:
        return values
    return _map(values, convert)


def _map(values: Nested, convert: Callable[[Any], bool | int | float]) -> Nested:
    return [_map(v, convert) for v in values] if isinstance(values, list) else convert(values)


_CONVERT: dict[str, Callable[[Any], bool | int | float]] = {
    "float": float,
    "int": int,
    "bool": bool,
}


def tensor_dtype(t: TensorValue) -> str:
    """The dtype of a tensor: the one written, else the one its literal implies."""
    return t.dtype or literal_dtype(t.values)


def flatten(values: Nested) -> Iterator[bool | int | float]:
    """The elements of nested tensor values, in order."""
    if isinstance(values, list):
        for v in values:
            yield from flatten(v)
    else:
        yield values


def render_answer(value: Value) -> str:
    """The answer literal a learner would write for ``value`` (``parse_answer`` reads it back).

    ``Opaque`` values render as their repr, which is not an answer form.
    """
    return _RENDERERS[type(value)](value)


def render_number(v: bool | int | float, digits: int) -> str:
    """One tensor element with ``digits`` significant digits; floats always look like floats."""
    if isinstance(v, (bool, int)):
        return str(v)
    if not math.isfinite(v):
        return repr(v)  # nan, inf, -inf: the parser reads these names back
    text = format(v, f".{digits}g")
    return text if any(c in text for c in ".e") else text + "."


def _tensor(t: TensorValue) -> str:
    digits = 15 if t.dtype == "float64" else 7
    empty = math.prod(t.shape) == 0
    parts = ["[]" if empty else _nested(t.values, digits)]
    if empty and len(t.shape) != 1:
        parts.append(f"size={_tuple(t.shape)}")
    if t.dtype is not None and t.dtype != literal_dtype(t.values):
        parts.append(f"dtype=torch.{t.dtype}")
    if t.grad_fn is not None:
        parts.append(f"grad_fn=<{t.grad_fn}>")
    elif t.requires_grad:
        parts.append("requires_grad=True")
    return f"tensor({', '.join(parts)})"


def _nested(values: Nested, digits: int) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_nested(v, digits) for v in values) + "]"
    return render_number(values, digits)


def _sequence(s: Sequence) -> str:
    items = [render_answer(v) for v in s.items]
    return _tuple(items) if s.kind == "tuple" else f"[{', '.join(items)}]"


def _tuple(items: Any) -> str:
    texts = [str(i) for i in items]
    return f"({texts[0]},)" if len(texts) == 1 else f"({', '.join(texts)})"


_RENDERERS: dict[type, Callable[[Any], str]] = {
    TensorValue: _tensor,
    Scalar: lambda v: repr(v.value),  # Python's own form: None, True, 5.0, 1e-08, nan, 'text'
    Sequence: _sequence,
    SizeValue: lambda v: f"torch.Size([{', '.join(map(str, v.dims))}])",
    DtypeValue: lambda v: f"torch.{v.name}",
    GradFnValue: lambda v: f"<{v.name}>",
    ExceptionValue: lambda v: v.cls,
    NoError: lambda v: "no error",
    Name: lambda v: v.ident,
    Opaque: lambda v: v.text,
}
