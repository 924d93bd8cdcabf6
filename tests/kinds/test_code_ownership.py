"""What is the learner's own (``learner.made_here``): what was made since its namespace was,
whoever made it; what existed before stays the grader's, whatever learner code calls it.

In this process, not in the sandbox: the guards' rules alone (no audit hook is armed here).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
import torch  # noqa: F401 - imported before any namespace, as in the sandbox's warm process

from graders.kinds.code.child.learner import (
    NotAllowed,
    compile_learner,
    forget_refusals,
    learners,
    made_here,
    own_from_now,
    tampering,
)
from graders.kinds.code.child.namespace import namespace


@pytest.fixture(autouse=True)
def _thawed() -> Iterator[None]:
    forget_refusals()
    yield
    gc.unfreeze()  # the namespace froze this (test) process's heap: give it back


def run(source: str) -> dict[str, Any]:
    globals_, _guards = namespace()
    exec(compile_learner(source), globals_)
    return globals_


class Before:
    pass


def test_an_object_is_new_iff_made_after_the_namespace_and_the_answer_stays() -> None:
    old = Before()
    own_from_now()

    class After:
        pass

    assert made_here(After) and made_here(After)  # the second answer from the cache
    assert not made_here(Before) and not made_here(old) and not made_here(Before)
    assert learners(After()) and not learners(old)


@pytest.mark.parametrize(
    "source",
    [
        # Classes library code makes for the learner: written by the learner afterwards.
        "import collections\nP = collections.namedtuple('P', 'a')\nP.__doc__ += '!'\nP.n = 1",
        "import dataclasses\nD = dataclasses.make_dataclass('D', ['x'])\nD.count = 0",
        "from dataclasses import dataclass\n@dataclass(slots=True)\nclass S:\n    x: int\nS.n = 1",
        # A class written by its metaclass before the class statement returned.
        "class M(type):\n    def __new__(m, n, b, ns):\n        c = super().__new__(m, n, b, ns)\n"
        "        c.tag = n\n        return c\nclass C(metaclass=M):\n    pass\nC.tag = 'x'",
        # A class hook called through super(), with a keyword called like build_class's own.
        "class A:\n    def __init_subclass__(cls, /, func=None, **kw):\n"
        "        super().__init_subclass__(**kw)\n        cls.func = func\n"
        "class B(A, func=1):\n    pass\nassert B.func == 1",
    ],
)
def test_what_library_code_makes_on_the_learners_behalf_is_its_own(source: str) -> None:
    run(source)
    assert tampering() == []


@pytest.mark.parametrize(
    "source",
    [
        # A metaclass (a function) handing back a class that existed before.
        "import torch\ndef adopt(n, b, ns):\n    return torch.nn.Linear\n"
        "class A(metaclass=adopt):\n    pass\nA.forward = None",
        "import collections\ncollections.OrderedDict.extra = 1",
    ],
)
def test_a_class_that_existed_before_stays_the_graders(source: str) -> None:
    with pytest.raises(NotAllowed):
        run(source)
    assert tampering()


def test_a_class_hook_of_a_class_not_the_learners_is_not_available() -> None:
    with pytest.raises(AttributeError):
        run("import typing\ntyping.Generic.__init_subclass__()")
    assert tampering() == []
