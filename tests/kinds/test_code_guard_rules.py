"""The guard's rules one by one, in this process, not in the sandbox (no audit hook is armed
here): what is the learner's own (``ownership.made_here``: what was made since its namespace
was, whoever made it; what existed before stays the grader's, whatever learner code calls
it); annotations library code may evaluate; what the snapshot watches.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch  # noqa: F401 - imported before any namespace, as in the sandbox's warm process

from graders.kinds.code.child.learner import (
    InvalidSource,
    NotAllowed,
    compile_learner,
    forget_refusals,
    tampering,
)
from graders.kinds.code.child.namespace import namespace
from graders.kinds.code.child.ownership import learners, made_here, own_from_now


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


@pytest.mark.parametrize(
    "source",
    [
        'def f(x: "int", y: "list[torch.Tensor] | None") -> "dict[str, Callable[[int], int]]":\n'
        "    pass",
        "from __future__ import annotations\ndef f(x: torch.Tensor) -> Literal['a b']:\n    pass",
        'x: "int.real" = 1',
    ],
)
def test_an_annotation_that_is_a_type_compiles(source: str) -> None:
    compile_learner(source)


@pytest.mark.parametrize(
    "source",
    [
        'def f(x: "[1][0]"):\n    pass',  # evaluated by typing.get_type_hints: not a type
        'def f(x: list["a.__class__"]):\n    pass',  # nested strings are evaluated too
        "x: \"Optional['T']\" = 1",  # a string in a string is evaluated unrewritten
        'x: "g()" = 1',
        "from __future__ import annotations\ndef f(x: g()):\n    pass",
    ],
)
def test_an_annotation_library_code_may_evaluate_must_be_a_type(source: str) -> None:
    with pytest.raises(InvalidSource) as refused:
        compile_learner(source)
    assert refused.value.lineno is not None


def test_a_string_annotation_is_evaluated_through_the_guards() -> None:
    import typing

    found = run('import torch\ndef f(x: "torch.Tensor", y: "torch.sys"):\n    pass')
    assert found["f"].__annotations__["x"] == "__graders_attr__(torch, 'Tensor')"
    with pytest.raises(ImportError):  # torch.sys: not available, as in learner code
        typing.get_type_hints(found["f"])


def test_a_key_added_to_builtins_is_reported_and_removed() -> None:
    import builtins

    from graders.kinds.code.child import snapshot

    before = tuple(vars(builtins))
    builtins._graders_test_kept = 1  # type: ignore[attr-defined]
    assert snapshot.added_builtins(before) == ["added builtins._graders_test_kept"]
    assert not hasattr(builtins, "_graders_test_kept")


def test_every_module_is_watched_not_only_the_listed_ones() -> None:
    import sys

    from graders.kinds.code.child import snapshot

    spaces = snapshot.namespaces()
    assert all(m in spaces for m in list(sys.modules.values()) if type(m) is type(sys))


def _where_a_new_thread_runs(start: Callable[[Callable[[], None]], None]) -> bool:
    """Arm the guard as a job does, start a thread with ``start``, and say whether code that
    thread runs (no learner frame on its stack) is judged learner context."""
    from graders.kinds.code.child import audit, guard, task

    judged: list[bool] = []
    guard.arm(task._BEFORE)
    try:
        start(lambda: judged.append(audit.learner_on_stack(sys._getframe())))
    finally:
        guard.job_over()
    return judged[0]


def _thread_started_here(target: Callable[[], None]) -> None:
    thread = threading.Thread(target=target)
    thread.start()
    thread.join()


def test_a_thread_the_grader_starts_while_a_job_runs_is_the_graders() -> None:
    # Where the process lives on (the in-process fake), a batch's pool starts a thread while
    # another thread's job runs: its reads are not the job's learner's.
    assert _where_a_new_thread_runs(_thread_started_here) is False


def test_a_thread_learner_code_starts_is_the_learners_whatever_its_stack_shows() -> None:
    from graders.kinds.code.child.learner import LEARNER_FILE

    def from_learner_code(target: Callable[[], None]) -> None:
        starts = compile("start(target)", LEARNER_FILE, "exec")
        exec(starts, {"start": _thread_started_here, "target": target})

    assert _where_a_new_thread_runs(from_learner_code) is True


def test_one_threads_check_does_not_switch_the_hook_off_for_another() -> None:
    from graders.kinds.code.child import audit
    from graders.kinds.code.child.learner import LEARNER_FILE

    events: list[str] = []
    # Another thread is inside the hook (its own event being checked) when this one's comes.
    hook = audit.audit_hook(events, busy={threading.get_ident() + 1})
    with pytest.raises(RuntimeError, match="gc.get_referrers is not allowed"):
        exec(compile("hook('gc.get_referrers', ())", LEARNER_FILE, "exec"), {"hook": hook})
    assert events == ["used gc.get_referrers"]


def test_where_the_process_lives_on_a_job_is_judged_against_the_state_it_starts_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The in-process fake runs jobs inside a test runner, which swaps module attributes of
    # its own for each test (pytest: warnings' and assertions' hooks): after the warm
    # snapshot was taken, that is not the job's doing.
    import warnings

    from graders.kinds.code.child import guard, task

    monkeypatch.setattr(warnings, "_showwarnmsg_impl", lambda message: None)
    armed = guard.arm(task._before())
    try:
        assert armed.violations() == []
    finally:
        guard.job_over()


def test_a_type_typing_compiles_while_learner_code_runs_is_one_the_compiler_wrote() -> None:
    # The audit hook's gate at typing.ForwardRef's compile (audit.forward_reference_typed)
    # holds text made at run time to what the compiler leaves of a checked annotation.
    from graders.kinds.code.child.annotations import compiled_type

    found = run('import torch\ndef f(x: "list[torch.Tensor] | None", y: "int"):\n    pass')
    for written in found["f"].__annotations__.values():
        assert compiled_type(written, "__graders_attr__")
    for made in [
        "torch.sys.modules",  # plain, but read unguarded
        "__graders_attr__(torch, '_C')",  # a private name, guarded or not
        "__graders_attr__(g(), 'x')",
        "[found.append(1), int][-1]",
        "__builtins__",
        "Optional['torch.Tensor']",
    ]:
        assert not compiled_type(made, "__graders_attr__"), made
    assert compiled_type("Node", "__graders_attr__")
    assert compiled_type("List[Node]", "__graders_attr__")


@pytest.mark.parametrize(
    "source",
    [
        # A generator's own frame, named in a template: read through the guards.
        "def walk():\n    yield '{0.gi_frame.f_back}'.format(steps)\nsteps = walk()\nnext(steps)",
        # A traceback handed to an exit callback (no name reached it): the same read.
        "import contextlib\nwith contextlib.ExitStack() as stack:\n"
        "    stack.push(lambda kind, exc, tb: '{0.tb_frame}'.format(tb) and False)\n"
        "    raise KeyError('x')",
        "def walk():\n    yield '{frame.gi_frame}'.format_map({'frame': steps})\n"
        "steps = walk()\nnext(steps)",
    ],
)
def test_a_format_template_reads_through_the_guards(source: str) -> None:
    with pytest.raises((NotAllowed, KeyError)):
        run(source)
    assert tampering()


def test_a_format_template_reads_what_an_attribute_read_may() -> None:
    found = run(
        "import torch\nt = torch.zeros(2)\n"
        "text = '{0.shape} {0.dtype!r:>14} {1[a]}'.format(t, {'a': 1})\n"
        "mapped = '{t.shape}'.format_map({'t': t})\n"
        "plain = str.format('{0.real}', 3)"
    )
    assert found["text"] == "torch.Size([2])  torch.float32 1"
    assert found["mapped"] == "torch.Size([2])" and found["plain"] == "3"
    assert tampering() == []


@pytest.mark.parametrize("name", ["gi_frame", "f_back", "tb_frame", "cr_frame", "f_locals"])
def test_a_class_pattern_may_not_read_an_attribute_of_a_frame_or_generator(name: str) -> None:
    with pytest.raises(InvalidSource):
        compile_learner(f"match x:\n    case object(a=object({name}=found)):\n        pass")
