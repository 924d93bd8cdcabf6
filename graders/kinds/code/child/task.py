"""The sandbox task of code exercises: run learner source, call its function through the
course's checker, return observations (the keeper checks them: ``code/returned.py``).

    Job(task="graders.kinds.code.child.task:run",
        check="graders.kinds.code.returned:vet_returned",
        payload={"checker": "<module name>", "source": "...", "entry": "freeze", "seed": 0,
                 "imports": [...], "params": {...}})

``params``, the variant's values, is there only for an exercise with parameters: the
checker's ``observe`` then takes them as its third argument.

The checker is a module of the course, registered in the warm fork server before it
forks (``checker_file.sandbox_module``), so children find it in ``sys.modules`` already
imported. Order matters: the guard is armed (audit hook; the snapshot of torch and the
grader's modules was taken at import, in the warm process) before the learner's source is
even compiled, and the source is compiled under the allowlist (``learner``); after the top
level and after each call of the learner's function, a checkpoint puts back whatever was
replaced, so the checker goes on measuring with the real torch; the final verdict comes
after the last line of learner-influenced code (hooks the learner left can run during the
checker's backward passes). Evidence of tampering makes the whole result ``integrity``;
what was merely not available (an import, a private name) is an ``error`` that names it,
when the code failed for it, and nothing at all when the code went on without it.

The result is plain JSON with one ``status``:
``ok`` (+ ``observations``), ``invalid`` (+ ``syntax`` or ``missing`` or ``not_callable``),
``error`` (+ ``raised``: the top level of the learner's code raised; or ``unmeasurable``:
what the learner's function left behind broke the measurement; or ``refused``: what it used
that graded code may not, ``[{kind, name, line}]``), ``integrity`` (+ ``reasons``).
``returned.vet_returned`` holds that shape, and the checker's ``Observations``, in the sandbox's
keeper, a process that never runs learner code.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from ....checker import measure
from . import guard, snapshot
from .allowlist import DEFAULT_IMPORTS
from .learner import NotAllowed, compile_learner, refused, tampering
from .namespace import namespace


def _checked(fn: Any, armed: guard.Armed) -> Any:
    """The learner's function, each return from it a boundary: a guard checkpoint before the
    checker measures anything (global state the learner's call left is evidence; the
    checker's own, there before the call, is not)."""

    def learner_function(*args: Any, **kwargs: Any) -> Any:
        had = tuple(armed.global_state())
        # Before the call as after it: since the last return only the checker's code ran,
        # and learner finalizers it set off; what they replaced or left is evidence too.
        armed.checkpoint(had)
        try:
            return fn(*args, **kwargs)
        finally:
            armed.checkpoint(had)

    return learner_function


def _warm_up() -> None:
    """Use once what torch sets up lazily: an optimizer's first construction patches its
    class's ``step`` and imports dynamo (which wraps ``torch.manual_seed``); the first
    ``torch.compile`` wraps more. Done here, at import (in the warm process, before any
    fork), torch's own patches precede the guard's snapshot instead of looking like a
    learner's, and children skip the cost."""
    import torch

    p = torch.zeros(2, requires_grad=True)
    (p * 2).sum().backward(gradient=torch.ones(()))  # type: ignore[no-untyped-call]
    for cls in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        opt = cls([p], lr=0.1, weight_decay=0.01)
        opt.step()
        opt.zero_grad()
    torch.manual_seed(0)
    # torch.compile wraps optimizer and module internals the first time it runs (and takes
    # ~1.5 s to import): done here, it is torch's own set-up, paid once per fork server.
    torch.compile(lambda x: x * 2, backend="eager")(torch.ones(2))
    # Every module the default list allows, imported here: what a first import makes during
    # a job would count as made for the learner (``ownership.made_here``), its classes the
    # learner's to change.
    for name in DEFAULT_IMPORTS:
        importlib.import_module(name.removesuffix(".*"))


_warm_up()
# What torch, builtins and the grader's modules look like before any learner code: taken
# once here, in the warm process, and compared in each child after its learner code ran.
_BEFORE = snapshot.snapshot(snapshot.namespaces())
_TAKEN_IN = os.getpid()


def _before() -> snapshot.Snapshot:
    """What learner code is judged against: ``_BEFORE`` in a sandbox child, forked from the
    warm process that took it, where nothing but the job runs. Where the process lives on
    (the in-process fake, inside a test runner), its grader side changes between jobs
    (pytest sets assertion and warning hooks for each test): the state when the job starts.
    The tables' contents are the warm record still: each check moves its baseline on, and
    what it judges is who an entry binds, not whether anything changed."""
    if os.getpid() != _TAKEN_IN:
        return _BEFORE
    return snapshot.snapshot(snapshot.namespaces(), _BEFORE.contents)


def run(payload: dict[str, Any]) -> dict[str, Any]:
    """Payload: {checker, source, entry, seed, imports?, params?} -> observations (module
    docstring)."""
    armed = guard.arm(_before())
    try:
        return _judged(payload, armed)
    except NotAllowed:  # raised where no try of the learner's could catch it (a handler)
        return {"status": "integrity", "reasons": tampering()[:10] or ["tampered"]}
    finally:
        guard.job_over()


def _judged(payload: dict[str, Any], armed: guard.Armed) -> dict[str, Any]:
    checker = sys.modules[str(payload["checker"])]
    allowed = tuple(payload.get("imports") or DEFAULT_IMPORTS)
    result = _observe(
        checker,
        str(payload["source"]),
        str(payload["entry"]),
        int(payload["seed"]),
        armed,
        allowed,
        payload.get("params"),
    )
    found = armed.violations()
    if found:
        return {"status": "integrity", "reasons": found[:10]}
    not_available = refused()
    if (
        not_available
        and result["status"] in ("error", "ok")
        and (result["status"] == "error" or _left_running(not_available))
    ):
        return {"status": "error", "refused": not_available}
    return result


def _left_running(not_available: list[dict[str, Any]]) -> bool:
    # Noticed only after the code returned: whatever it measured, the thread could change.
    return any(r["kind"] == "thread" for r in not_available)


def _observe(
    checker: Any,
    source: str,
    entry: str,
    seed: int,
    armed: guard.Armed,
    allowed: tuple[str, ...],
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    try:
        code = compile_learner(source, "exec", allowed)
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes, or learner.InvalidSource
        line = getattr(exc, "lineno", None)
        return {
            "status": "invalid",
            "syntax": {
                "message": str(getattr(exc, "msg", exc))[:200],
                "line": line if type(line) is int else None,
            },
        }
    globals_, _guards = namespace(allowed)
    raised = measure.call(exec, code, globals_).raised
    armed.checkpoint()
    if raised is not None:
        return {"status": "error", "raised": raised.to_json()}
    fn = globals_.get(entry)
    if fn is None:
        return {"status": "invalid", "missing": entry}
    if not callable(fn):
        return {"status": "invalid", "not_callable": measure.type_name(fn)}
    try:
        # Grad mode on, whatever the learner's top level left behind: the checker's own
        # forward passes must build graphs (the learner's function may still switch it).
        learner = _checked(fn, armed)
        with measure.grad_enabled(True):
            if params is None:
                return {"status": "ok", "observations": checker.observe(learner, seed)}
            return {"status": "ok", "observations": checker.observe(learner, seed, params)}
    except measure.Tampered as exc:
        return {"status": "integrity", "reasons": [measure.raised_by(exc).message]}
    except NotAllowed:
        return {"status": "integrity", "reasons": tampering()[:10]}
    except BaseException as exc:  # noqa: BLE001 - e.g. a hook the learner left raised in the checker's backward
        return {"status": "error", "unmeasurable": measure.raised_by(exc).described(200)}
