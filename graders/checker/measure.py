"""Child side of a checker: torch functions grabbed before learner code runs, measurements
made with them, and calls of learner code that catch everything.

Learner code may replace ``torch.equal``, ``Tensor.backward`` or anything else it manages
to reach (the allowlist refuses, but a checker should not depend on one line of defence).
Every fact a checker measures in the child (values, flags, storage addresses, version
counters) is read through the references taken here at import time, straight from the
immutable C types (``torch._C.TensorBase``, ``UntypedStorage``), so a patched Python
attribute cannot change what is measured. Only plain ``torch.Tensor`` and
``torch.nn.Parameter`` objects are measured: a subclass can answer every C method through
``__torch_function__``, so it raises ``Tampered``.

``call(fn, *args)`` (from ``calls``, re-exported here) runs learner code and turns whatever
it raises into a ``Raised`` record.

This module imports torch at import time on purpose; a checker imports it inside
``observe``, which runs in the sandbox (the grader's own process never imports torch).
"""

from __future__ import annotations

import builtins
from typing import Any

import torch

from ..answers.values import TensorValue, to_json
from .calls import Called as Called
from .calls import Raised as Raised
from .calls import call as call
from .calls import raised_by as raised_by

_TB = torch._C.TensorBase
# Separate names, not a dict: a module attribute that is replaced shows in guard's snapshot,
# an entry of a dict edited in place would not.
_get_requires_grad = _TB.__dict__["requires_grad"].__get__
_get_grad = _TB.__dict__["grad"].__get__
_get_grad_fn = _TB.__dict__["grad_fn"].__get__
_get_is_leaf = _TB.__dict__["is_leaf"].__get__
_get_version = _TB.__dict__["_version"].__get__
_get_shape = _TB.__dict__["shape"].__get__
_get_dtype = _TB.__dict__["dtype"].__get__
_set_grad = _TB.__dict__["grad"].__set__
_tolist = _TB.tolist
_detach = _TB.detach
_clone = _TB.clone
_numpy = _TB.numpy
_numel = _TB.numel
_untyped_storage = _TB.untyped_storage
_storage_ptr: Any = torch._C.StorageBase.data_ptr  # type: ignore[attr-defined]
_equal = torch._C._VariableFunctions.equal
_randn = torch._C._VariableFunctions.randn
_add_ = _TB.add_
_backward = torch.autograd.backward
_grad = torch.autograd.grad
_expanded: Any = torch.ones(1, requires_grad=True).expand(
    1
)  # its grad_fn leads to an AccumulateGrad
_AccumulateGrad: Any = type(_expanded.grad_fn.next_functions[0][0])
del _expanded
_node_variable = _AccumulateGrad.variable.__get__
_set_grad_enabled = torch._C._set_grad_enabled
_is_grad_enabled = torch._C.is_grad_enabled
_function_modes = torch._C._len_torch_function_stack
_dispatch_modes = torch._C._len_torch_dispatch_stack
_default_generator = torch.default_generator
_seed_generator = torch._C.Generator.manual_seed
_Generator = torch._C.Generator
_type = builtins.type
_mro = type.__dict__["__mro__"].__get__
_type_name = type.__dict__["__qualname__"].__get__
_str = builtins.str
_getattribute = object.__getattribute__
_dict_values = dict.values

Tensor = torch.Tensor
Parameter = torch.nn.Parameter
FLOAT = torch.float32
TRUSTED_TYPES = (Tensor, Parameter)
MAX_ELEMENTS = 4096  # checkers use small tensors; more is not a plausible answer


class Tampered(Exception):
    """Something a checker must measure cannot be trusted (a tensor subclass, a patch)."""


def kind_of(obj: Any) -> str:
    """``"tensor"`` (a plain tensor or parameter), ``"none"`` or ``"other"``; a subclass raises."""
    cls = _type(obj)
    if cls is Tensor or cls is Parameter:
        return "tensor"
    if Tensor in _mro(cls):
        raise Tampered(
            f"your code produced a tensor subclass `{type_name(obj)}`, "
            "which the grader cannot trust"
        )
    return "none" if obj is None else "other"


def type_name(obj: Any) -> str:
    """The class name of ``obj``, read without calling anything the learner defined."""
    return _str(_type_name(_type(obj)))[:80]


def tensor(obj: Any) -> Any:
    """``obj`` when it is a plain tensor; ``Tampered`` for a subclass, else ``TypeError``.

    Every measurement goes through here, so here is where an interception mode (which
    would answer even the C methods captured above) is refused.
    """
    if _function_modes() or _dispatch_modes():
        raise Tampered(
            "your code left a torch function or dispatch mode active, "
            "which intercepts the grader's measurements"
        )
    if kind_of(obj) != "tensor":
        raise TypeError(f"expected a tensor, got {type_name(obj)}")
    return obj


def describe(obj: Any) -> dict[str, Any]:
    """JSON of what the learner produced: a ``TensorValue``, ``None`` or an opaque type name."""
    kind = kind_of(obj)
    if kind == "none":
        return {"type": "scalar", "value": None}
    if kind == "other":
        return {"type": "opaque", "type_name": type_name(obj), "text": f"a {type_name(obj)}"}
    return to_json(_tensor_value(obj))


def _tensor_value(t: Any) -> TensorValue:
    tensor(t)
    if _numel(t) > MAX_ELEMENTS:
        raise ValueError(f"a tensor of {_numel(t)} elements is far larger than expected")
    grad_fn = _get_grad_fn(t)
    return TensorValue(
        values=_tolist(_detach(t)),
        shape=tuple(int(n) for n in _get_shape(t)),
        dtype=_str(_get_dtype(t)).removeprefix("torch."),
        requires_grad=bool(_get_requires_grad(t)),
        is_leaf=bool(_get_is_leaf(t)),
        grad_fn=None if grad_fn is None else _str(_type_name(_type(grad_fn))),
    )


def dtype(t: Any) -> Any:
    return _get_dtype(tensor(t))


def requires_grad(t: Any) -> bool:
    return bool(_get_requires_grad(tensor(t)))


def is_leaf(t: Any) -> bool:
    return bool(_get_is_leaf(tensor(t)))


def has_grad_fn(t: Any) -> bool:
    return _get_grad_fn(tensor(t)) is not None


def version(t: Any) -> int:
    """The autograd version counter (bumped by every in-place change autograd can see)."""
    return int(_get_version(tensor(t)))


def parameters(module: Any) -> tuple[Any, ...]:
    """The parameter objects registered in ``module`` and its submodules, read from its own
    dicts (``parameters()`` is a method the learner could have replaced on the instance)."""
    found = [tensor(p) for p in _dict_values(_getattribute(module, "_parameters")) if p is not None]
    for child in _dict_values(_getattribute(module, "_modules")):
        found += parameters(child) if child is not None else ()
    return tuple(found)


def grad(t: Any) -> Any:
    """``t.grad``: None or a plain tensor (a subclass raises ``Tampered``)."""
    g = _get_grad(tensor(t))
    return None if g is None else tensor(g)


def clear_grad(t: Any) -> None:
    _set_grad(tensor(t), None)


def storage_ptr(t: Any) -> int:
    """Start of the memory block behind ``t`` (a view shares it even at another offset)."""
    return int(_storage_ptr(_untyped_storage(tensor(t))))


def bits(t: Any) -> bytes:
    """The exact bytes of ``t``'s values: immutable, so nothing can edit them later."""
    return bytes(_numpy(_clone(_detach(tensor(t)))).tobytes())


def same_values(a: Any, b: Any) -> bool:
    """Same shape and bit-identical values."""
    return bool(_equal(_detach(tensor(a)), _detach(tensor(b))))


def snapshot(t: Any) -> Any:
    """A private copy of ``t``'s values, to compare with later."""
    return _clone(_detach(tensor(t)))


def bump(t: Any) -> None:
    """Write into ``t`` in place (adds 1 everywhere), outside autograd."""
    with no_grad():
        _add_(tensor(t), 1)


def backward(t: Any, gradient: Any = None) -> None:
    """Run backward from ``t`` with torch's own engine entry point, grad mode on."""
    with grad_enabled(True):
        _backward(tensor(t), gradient)


def randn(*shape: int, generator: Any, requires_grad: bool = False, dtype: Any = FLOAT) -> Any:
    """Seeded inputs from a private generator: learner code that draws numbers changes nothing."""
    return _randn(shape, generator=generator, dtype=dtype, requires_grad=requires_grad)


def shape(t: Any) -> tuple[int, ...]:
    return tuple(int(n) for n in _get_shape(tensor(t)))


def generator(seed: int) -> Any:
    """A fresh CPU generator seeded with ``seed``."""
    g = _Generator()
    _seed_generator(g, int(seed))
    return g


def graph_leaves(t: Any, limit: int = 10_000) -> tuple[Any, ...]:
    """The leaf tensors whose gradients a backward pass from ``t`` would accumulate: the
    ``variable`` of every ``AccumulateGrad`` node reachable from ``t.grad_fn``."""
    start = _get_grad_fn(tensor(t))
    found: list[Any] = []
    seen: set[int] = set()
    stack = [start] if start is not None else []
    while stack and len(seen) < limit:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if _type(node) is _AccumulateGrad:
            found.append(_node_variable(node))
        # A data descriptor of torch's C node types: an instance attribute cannot shadow it.
        stack += [n for n, _index in node.next_functions if n is not None]
    return tuple(found)


def contains(tensors: Any, t: Any) -> bool:
    """Whether ``t`` itself (not an equal tensor) is among ``tensors``."""
    return any(x is t for x in tensors)


def gradient(out: Any, inputs: Any, upstream: Any) -> tuple[Any, ...]:
    """``torch.autograd.grad(out, inputs, upstream, allow_unused=True)`` through torch's own
    engine entry point, grad mode on: gradients computed now, not read from ``.grad``."""
    with grad_enabled(True):
        return tuple(_grad(tensor(out), inputs, upstream, allow_unused=True))


def buffers(module: Any) -> tuple[Any, ...]:
    """The buffers registered in ``module`` and its submodules, read from their own dicts."""
    found = [tensor(b) for b in _dict_values(_getattribute(module, "_buffers")) if b is not None]
    for child in _dict_values(_getattribute(module, "_modules")):
        found += buffers(child) if child is not None else ()
    return tuple(found)


def training(module: Any) -> bool:
    """``module.training``, read from the instance's own dict."""
    return bool(_getattribute(module, "__dict__").get("training"))


def seed_global(seed: int) -> None:
    """Seed torch's default generator (module initialisation draws from it)."""
    _seed_generator(_default_generator, int(seed))


class grad_enabled:
    """``torch.set_grad_enabled`` through the captured switch; restores the previous mode."""

    def __init__(self, mode: bool) -> None:
        self.mode = mode
        self.previous = True

    def __enter__(self) -> None:
        self.previous = _is_grad_enabled()
        _set_grad_enabled(self.mode)

    def __exit__(self, *exc: object) -> None:
        _set_grad_enabled(self.previous)


def no_grad() -> grad_enabled:
    return grad_enabled(False)
