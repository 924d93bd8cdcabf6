"""The checkpoint's comparison of what modules' containers hold (``child/contents.py``), in
this process: a registry nobody told the guard about is compared like copy's dispatch
table; what binds something of the grader's to learner code is evidence and is put back;
what library code fills by use, and what the learner registers for its own types, is left.
"""

from __future__ import annotations

import abc
import functools
import gc
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
import torch

from graders.kinds.code.child import contents, snapshot
from graders.kinds.code.child.learner import compile_learner, forget_refusals
from graders.kinds.code.child.namespace import namespace

MODULE = "graders_test_registries"


class Shape(abc.ABC):  # noqa: B024 - an abstract base class of the grader's, empty
    pass


@pytest.fixture
def registries() -> Iterator[types.ModuleType]:
    """A module of tables that no list in graders names, recorded as the warm process does."""
    module = types.ModuleType(MODULE)
    module.TABLE = {}  # type: ignore[attr-defined]
    module.HOOKS = ["kept"]  # type: ignore[attr-defined]
    module.SEEN = set()  # type: ignore[attr-defined]

    class Holder:
        registry: dict[Any, Any] = {}

    @functools.singledispatch
    def describe(x: object) -> str:
        return "object"

    module.Holder, module.describe, module.Shape = Holder, describe, Shape  # type: ignore[attr-defined]
    Holder.__module__, Holder.__qualname__ = MODULE, "Holder"
    sys.modules[MODULE] = module
    forget_refusals()
    try:
        yield module
    finally:
        del sys.modules[MODULE]
        gc.unfreeze()


def recorded() -> contents.Contents:
    return snapshot.snapshot(snapshot.namespaces()).contents


def run(source: str, module: types.ModuleType) -> dict[str, Any]:
    globals_, _guards = namespace()
    # Handed over by name: graded code may not read a module the course does not allow.
    globals_.update({k: v for k, v in vars(module).items() if not k.startswith("_")})
    exec(compile_learner(source), globals_)
    return globals_


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (
            "TABLE[torch.Tensor] = lambda t: t",
            f"registered {MODULE}.TABLE[torch.Tensor]",
        ),
        (
            "def f(t):\n    return t\nTABLE['copy'] = (1, f)",
            f"registered {MODULE}.TABLE['copy']",
        ),
        ("HOOKS.append(lambda: None)", f"added its own code to {MODULE}.HOOKS"),
        ("HOOKS[0] = lambda: None", f"added its own code to {MODULE}.HOOKS"),
        ("SEEN.add(lambda: 1)", f"added its own code to {MODULE}.SEEN"),
        (
            "Holder.registry[torch.nn.Linear] = 1",
            f"registered {MODULE}.Holder.registry[torch.nn.modules.linear.Linear]",
        ),
        (
            "describe.register(torch.Tensor)(lambda t: 'mine')",
            f"registered {MODULE}.describe[torch.Tensor]",
        ),
        (
            "Shape.register(torch.Tensor)",
            f"registered torch.Tensor with {Shape.__module__}.Shape",
        ),
    ],
    ids=[
        "type-key",
        "code-in-tuple",
        "append",
        "in-place",
        "set",
        "class-dict",
        "singledispatch",
        "abc",
    ],
)
def test_a_registration_in_a_table_nobody_named_is_evidence_and_put_back(
    registries: types.ModuleType, source: str, said: str
) -> None:
    before = recorded()
    run(f"import torch\n{source}", registries)
    found = contents.changed(before)
    assert said in found
    assert registries.TABLE == {}
    assert registries.HOOKS == ["kept"]
    assert registries.SEEN == set()
    assert registries.Holder.registry == {}
    assert registries.describe.dispatch(torch.Tensor) is registries.describe.dispatch(object)
    assert not issubclass(torch.Tensor, Shape)
    assert contents.changed(before) == []  # put back, and the baseline moved on


def test_what_library_code_fills_and_the_learners_own_registrations_are_left(
    registries: types.ModuleType,
) -> None:
    before = recorded()
    mine = run(
        "import torch, warnings, logging, functools, collections.abc\n"
        "class Mine:\n    pass\n"
        "def reduce_mine(m):\n    return Mine, ()\n"
        "TABLE['cached'] = functools.partial(max, 1)\n"  # data made by library code
        "TABLE[Mine] = reduce_mine\n"  # its own type: as a method of Mine would
        "HOOKS.append(('ignore', Mine))\n"  # a filter naming its own class
        "SEEN.add('a name')\n"
        "describe.register(Mine)(lambda m: 'mine')\n"
        "Shape.register(Mine)\n"
        "collections.abc.Mapping.register(Mine)\n"
        "warnings.simplefilter('ignore')\n"
        "logging.basicConfig(level=logging.INFO)\n",
        registries,
    )
    assert contents.changed(before) == []
    assert (
        len(registries.TABLE) == 2 and len(registries.HOOKS) == 2 and registries.SEEN == {"a name"}
    )
    assert registries.describe(mine["Mine"]()) == "mine"
    assert issubclass(mine["Mine"], Shape)
