"""Describe what torch produced as plain ``Value`` data (runs next to torch, in a child).

``describe(obj)`` keeps what a learner could predict about a result and nothing that
needs torch to read back: a tensor becomes its values (``tolist()``), shape, dtype name,
``requires_grad``, ``is_leaf`` and grad_fn name. NaN and infinities stay Python floats
here; ``values.to_json`` writes them as ``{"float": "nan"}`` markers for the JSON channel.

Whatever cannot be written as an answer literal (a dict, a module, a complex or quantized
tensor, a huge tensor or list) becomes ``Opaque``, so a course author sees at validation
time that the question cannot be asked. torch is imported inside the functions only.
"""

from __future__ import annotations

from typing import Any

from .values import (
    DtypeValue,
    ExceptionValue,
    GradFnValue,
    Opaque,
    Scalar,
    Sequence,
    SizeValue,
    TensorValue,
    Value,
)

MAX_TENSOR_ELEMENTS = 65536  # ~1.5 MB of JSON: well under the sandbox result cap
MAX_ITEMS = 1000  # per tuple/list
MAX_DEPTH = 16  # tuples/lists inside tuples/lists
MAX_STR = 10_000
MAX_INT_BITS = 256  # bigger ints overflow json/str conversion limits
MAX_REPR = 200
MAX_MESSAGE = 500

# Dtypes whose tolist() gives JSON-able bool/int/float elements.
_LISTABLE_PREFIXES = ("float", "bfloat", "int", "uint", "bool")


def describe(obj: Any, _depth: int = 0) -> Value:
    """Describe a Python/torch object as a ``Value`` (see the module docstring)."""
    import torch

    if isinstance(obj, torch.Tensor):  # nn.Parameter included
        return _describe_tensor(obj)
    if isinstance(obj, torch.Size):  # before tuple: Size is a tuple
        return SizeValue(tuple(int(n) for n in obj))
    if isinstance(obj, torch.dtype):
        return DtypeValue(dtype_name(obj))
    if isinstance(obj, torch.autograd.graph.Node):
        return GradFnValue(type(obj).__name__)
    scalar = _describe_scalar(obj)
    if scalar is not None:
        return scalar
    if isinstance(obj, (tuple, list)):
        return _describe_sequence(obj, _depth)
    return opaque(obj)


def describe_exception(exc: BaseException) -> ExceptionValue:
    """The class name and (capped) message of an exception."""
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not hide which class was raised
        message = ""
    return ExceptionValue(type(exc).__name__, message[:MAX_MESSAGE])


def dtype_name(dtype: Any) -> str:
    """``torch.float32`` -> ``"float32"``."""
    return str(dtype).removeprefix("torch.")


def opaque(obj: Any) -> Opaque:
    """The type name and a capped repr of something learners cannot write as a literal."""
    cls = type(obj)
    type_name = (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )
    try:
        text = repr(obj)
    except Exception:  # noqa: BLE001 - the repr of arbitrary objects may fail
        text = f"<{type_name} object>"
    return Opaque(type_name, text[:MAX_REPR])


def _describe_tensor(t: Any) -> Value:
    dtype = dtype_name(t.dtype)
    if not dtype.startswith(_LISTABLE_PREFIXES):
        return opaque(t)
    try:
        if t.numel() > MAX_TENSOR_ELEMENTS:
            return opaque(t)
        values = t.tolist()
    except (RuntimeError, TypeError):  # meta, sparse, nested tensors have no plain list form
        return opaque(t)
    grad_fn = None if t.grad_fn is None else type(t.grad_fn).__name__
    return TensorValue(
        values=values,
        shape=tuple(int(n) for n in t.shape),
        dtype=dtype,
        requires_grad=bool(t.requires_grad),
        is_leaf=bool(t.is_leaf),
        grad_fn=grad_fn,
    )


def _describe_scalar(obj: Any) -> Scalar | Opaque | None:
    # Subclasses (an IntEnum, numpy.float64) are read as the plain type they extend.
    if obj is None or isinstance(obj, bool):
        return Scalar(obj)
    if isinstance(obj, int):
        return Scalar(int(obj)) if int(obj).bit_length() <= MAX_INT_BITS else opaque(obj)
    if isinstance(obj, float):
        return Scalar(float(obj))
    if isinstance(obj, str):
        return Scalar(str(obj)) if len(obj) <= MAX_STR else opaque(obj)
    return None


def _describe_sequence(obj: tuple[Any, ...] | list[Any], depth: int) -> Value:
    if depth >= MAX_DEPTH or len(obj) > MAX_ITEMS:
        return opaque(obj)
    items = tuple(describe(item, depth + 1) for item in obj)
    if any(isinstance(item, Opaque) for item in items):
        return opaque(obj)  # one unwritable item makes the whole answer unwritable
    kind = "list" if isinstance(obj, list) else "tuple"
    return Sequence(kind, items)
