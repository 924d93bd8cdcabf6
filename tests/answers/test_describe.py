"""describe(): what torch produced, as plain data that survives the JSON channel.

These tests use real torch. They also hold the answer side to torch's own conventions:
every torch dtype is known to the parser, and simple values render exactly as torch
prints them.
"""

from __future__ import annotations

import json
import math
import re

import pytest

from graders.answers.compare import compare
from graders.answers.from_torch import (
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_MESSAGE,
    MAX_REPR,
    describe,
    describe_exception,
)
from graders.answers.parse import is_writable, parse_answer, render_answer
from graders.answers.render import DTYPE_ALIASES, DTYPES, dtype_kind
from graders.answers.values import (
    DtypeValue,
    ExceptionValue,
    GradFnValue,
    Opaque,
    Scalar,
    Sequence,
    SizeValue,
    TensorValue,
    Value,
    from_json,
    to_json,
)

torch = pytest.importorskip("torch")


def _leaf() -> torch.Tensor:
    return torch.tensor(1.0, requires_grad=True)


DESCRIBED = [
    ("leaf requiring grad", _leaf, TensorValue(1.0, (), "float32", True, True, None)),
    (
        "clone is a non-leaf",
        lambda: _leaf().clone(),
        TensorValue(1.0, (), "float32", True, False, "CloneBackward0"),
    ),
    ("product", lambda: _leaf() * 2, TensorValue(2.0, (), "float32", True, False, "MulBackward0")),
    (
        "detached",
        lambda: (_leaf() * 2).detach(),
        TensorValue(2.0, (), "float32", False, True, None),
    ),
    (
        "select",
        lambda: torch.ones(2, 2, requires_grad=True)[0][0],
        TensorValue(1.0, (), "float32", True, False, "SelectBackward0"),
    ),
    (
        "int matrix",
        lambda: torch.tensor([[1, 2], [3, 4]]),
        TensorValue([[1, 2], [3, 4]], (2, 2), "int64", False, True, None),
    ),
    (
        "bool",
        lambda: torch.tensor([True, False]),
        TensorValue([True, False], (2,), "bool", False, True, None),
    ),
    (
        "float64",
        lambda: torch.tensor([0.5], dtype=torch.float64),
        TensorValue([0.5], (1,), "float64", False, True, None),
    ),
    (
        "empty with a zero dim",
        lambda: torch.empty(2, 0),
        TensorValue([[], []], (2, 0), "float32", False, True, None),
    ),
    (
        "parameter is a tensor",
        lambda: torch.nn.Parameter(torch.zeros(2)),
        TensorValue([0.0, 0.0], (2,), "float32", True, True, None),
    ),
    ("Size", lambda: torch.ones(3, 4).shape, SizeValue((3, 4))),
    ("dtype", lambda: torch.ones(1).dtype, DtypeValue("float32")),
    ("grad_fn node", lambda: (_leaf() * 2).grad_fn, GradFnValue("MulBackward0")),
    ("None", lambda: None, Scalar(None)),
    ("bool scalar", lambda: _leaf().is_leaf, Scalar(True)),
    ("int scalar", lambda: torch.ones(3).numel(), Scalar(3)),
    ("float scalar", lambda: torch.tensor(2.5).item(), Scalar(2.5)),
    ("string", lambda: str(torch.ones(1).dtype), Scalar("torch.float32")),
    ("tuple of flags", lambda: (True, False), Sequence("tuple", (Scalar(True), Scalar(False)))),
    ("list", lambda: [1, [2]], Sequence("list", (Scalar(1), Sequence("list", (Scalar(2),))))),
    (
        "named tuple from torch is a tuple",
        lambda: torch.max(torch.tensor([1.0, 3.0]), 0),
        Sequence(
            "tuple",
            (
                TensorValue(3.0, (), "float32", False, True, None),
                TensorValue(1, (), "int64", False, True, None),
            ),
        ),
    ),
]


@pytest.mark.parametrize(("make", "expected"), [pytest.param(m, v, id=i) for i, m, v in DESCRIBED])
def test_describe(make, expected: Value) -> None:  # type: ignore[no-untyped-def]
    assert describe(make()) == expected


def test_nan_and_inf_survive_strict_json() -> None:
    value = describe(torch.tensor([math.nan, math.inf, -math.inf, 1.0]))
    text = json.dumps(to_json(value), allow_nan=False)  # the sandbox refuses NaN tokens
    back = from_json(json.loads(text))
    assert isinstance(back, TensorValue)
    assert math.isnan(back.values[0]) and back.values[1:] == [math.inf, -math.inf, 1.0]
    assert (
        from_json(json.loads(json.dumps(to_json(Scalar(math.nan)), allow_nan=False))).value != "nan"
    )


OPAQUE = [
    ("dict", lambda: {"a": 1}, "dict"),
    ("module", lambda: torch.nn.Linear(2, 2), "torch.nn.modules.linear.Linear"),
    ("complex tensor", lambda: torch.ones(2, dtype=torch.complex64), "torch.Tensor"),
    ("meta tensor", lambda: torch.ones(2, device="meta"), "torch.Tensor"),
    ("sparse tensor", lambda: torch.ones(2).to_sparse(), "torch.Tensor"),
    (
        "nested tensor",
        lambda: torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]),
        "torch.Tensor",
    ),
    ("huge tensor", lambda: torch.zeros(300, 300), "torch.Tensor"),
    ("huge list", lambda: list(range(MAX_ITEMS + 1)), "list"),
    ("tuple holding a dict", lambda: (1, {}), "tuple"),
    ("exception object", lambda: RuntimeError("x"), "RuntimeError"),
]


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
@pytest.mark.parametrize(("make", "type_name"), [pytest.param(m, t, id=i) for i, m, t in OPAQUE])
def test_unwritable_things_are_opaque(make, type_name: str) -> None:  # type: ignore[no-untyped-def]
    value = describe(make())
    assert isinstance(value, Opaque) and value.type_name == type_name
    assert len(value.text) <= MAX_REPR


def test_deep_lists_are_opaque() -> None:
    deep: list = []
    for _ in range(MAX_DEPTH + 2):
        deep = [deep]
    assert isinstance(describe(deep), Opaque)


def test_a_broken_repr_does_not_break_describe() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise ValueError("no")

    assert describe(Broken()).text == f"<{Broken.__module__}.{Broken.__qualname__} object>"


def test_describe_exception() -> None:
    try:
        _leaf().resize_(2)
    except RuntimeError as exc:
        value = describe_exception(exc)
    assert (
        value.cls == "RuntimeError" and "cannot resize variables that require grad" in value.message
    )
    assert describe_exception(ValueError("x" * 10_000)).message == "x" * MAX_MESSAGE


def test_describe_exception_with_broken_str() -> None:
    class Weird(Exception):
        def __str__(self) -> str:
            raise TypeError("no")

    assert describe_exception(Weird()) == ExceptionValue("Weird", "")


def _all_torch_dtypes() -> set[str]:
    return {
        str(v).removeprefix("torch.") for v in vars(torch).values() if isinstance(v, torch.dtype)
    }


def test_parser_knows_every_torch_dtype() -> None:
    assert _all_torch_dtypes() <= DTYPES


@pytest.mark.parametrize(("alias", "canonical"), sorted(DTYPE_ALIASES.items()))
def test_dtype_aliases_match_torch(alias: str, canonical: str) -> None:
    assert getattr(torch, alias) is getattr(torch, canonical)


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_dtype_kind_matches_torch(name: str) -> None:
    dtype = getattr(torch, name)
    kind = dtype_kind(name)
    assert (kind == "float") == (dtype.is_floating_point)
    assert (kind == "bool") == (dtype is torch.bool)
    if kind == "int":
        assert not dtype.is_complex and not dtype.is_floating_point


# Simple values render exactly as torch/Python print them.
PRINTED = [
    lambda: torch.tensor(5.0),
    lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
    lambda: torch.tensor(2.0, requires_grad=True) * 1,
    lambda: torch.tensor([1, 2], dtype=torch.int32),
    lambda: torch.tensor([1.0, 2.0], dtype=torch.float64),
    lambda: torch.tensor([True, False]),
    lambda: torch.tensor([], dtype=torch.int64),
    lambda: torch.empty(0, 3),
    lambda: torch.empty(3, 0, dtype=torch.float64, requires_grad=True),
    lambda: torch.tensor([math.nan, math.inf]),
    lambda: torch.ones(2).shape,
    lambda: torch.float16,
    lambda: (True, None, 2.5),
]


def _one_line(printed: str) -> str:
    # torch aligns columns across lines ("[ True, False]"); an answer is one plain line
    return re.sub(r"\[\s+", "[", " ".join(printed.split()))


@pytest.mark.parametrize("make", PRINTED, ids=lambda m: _one_line(str(m())))
def test_render_matches_torch_print(make) -> None:  # type: ignore[no-untyped-def]
    obj = make()
    assert render_answer(describe(obj)) == _one_line(str(obj))


# The answer-key invariant on values torch really produced.
TRUTHS = [
    _leaf,
    lambda: _leaf().clone(),
    lambda: torch.rand(3, 4, requires_grad=True),
    lambda: torch.rand(2, 3).detach(),
    lambda: torch.rand(4, dtype=torch.float64) * 1e-9,
    lambda: torch.randn(3, dtype=torch.float16),
    lambda: torch.randn(3, dtype=torch.bfloat16),
    lambda: torch.arange(6, dtype=torch.uint8).reshape(2, 3),
    lambda: torch.tensor([1e38, -1e-38, 0.0, -0.0]),
    lambda: torch.tensor(float("nan")),
    lambda: torch.randint(-100, 100, (2, 2, 2)),
    lambda: torch.empty(2, 0, 3),
    lambda: torch.ones(3, dtype=torch.float8_e4m3fn),
    lambda: torch.ones(2, 2).shape,
    lambda: (torch.ones(2).grad_fn, (torch.ones(1, requires_grad=True) + 1).grad_fn),
    lambda: torch.int8,
    lambda: 2**80,
    lambda: -0.0,
    lambda: "a 'quoted' <string>\n",
]


@pytest.mark.parametrize("make", TRUTHS, ids=[f"truth-{i}" for i in range(len(TRUTHS))])
def test_key_of_a_torch_truth_is_a_correct_answer(make) -> None:  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    truth = from_json(json.loads(json.dumps(to_json(describe(make())), allow_nan=False)))
    assert is_writable(truth)
    verdict = compare(parse_answer(render_answer(truth)), truth)
    assert verdict.correct, (render_answer(truth), verdict.feedback)


BAD_JSON = [
    ("not a dict", [1]),
    ("unknown type", {"type": "pickle"}),
    ("missing field", {"type": "scalar"}),
    ("extra field", {"type": "name", "ident": "x", "code": "os.system"}),
    ("ragged tensor", {"type": "tensor", "values": [[1], [2, 3]], "shape": [2, 2]}),
    ("values not matching shape", {"type": "tensor", "values": [1, 2], "shape": [3]}),
    ("string in tensor", {"type": "tensor", "values": ["a"], "shape": [1]}),
    ("negative dim", {"type": "size", "dims": [-1]}),
    ("grad_fn not a string", {"type": "tensor", "values": 1, "shape": [], "grad_fn": 3}),
    ("list as scalar", {"type": "scalar", "value": [1]}),
    ("bad float marker", {"type": "scalar", "value": {"float": "1e999"}}),
    ("unknown sequence kind", {"type": "sequence", "kind": "set", "items": []}),
    ("bad item", {"type": "sequence", "kind": "tuple", "items": [{"type": "x"}]}),
]


@pytest.mark.parametrize("data", [pytest.param(d, id=i) for i, d in BAD_JSON])
def test_from_json_refuses_malformed_data(data) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        from_json(data)
