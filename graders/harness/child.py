"""The sandbox task of code exercises: run learner source, call its function, return observations.

    Job(task="graders.harness.child:run",
        payload={"harness": "freeze_module", "source": "...", "entry": "freeze",
                 "seed": 0, "token": "<random, from the parent>"})

Order matters: the guard is armed (audit hook; the snapshot of torch and the grader's
modules was taken at import, in the warm process) before the learner's source is even
compiled; after the top level and after each call of the learner's function, a
checkpoint puts back whatever was replaced, so the harness goes on measuring with the
real torch; observations are made with ``pristine`` references; the final verdict comes
after the last line of learner-influenced code (hooks the learner left can run during our
backward passes). Any violation makes the whole result ``integrity``, whatever was measured.

The result is plain JSON with one ``status``:
``ok`` (+ ``observations``), ``invalid`` (+ ``syntax`` or ``missing`` or ``not_callable``),
``error`` (+ ``raised``: the top level of the learner's code raised; or ``unmeasurable``:
what the learner's function left behind broke the measurement), ``integrity``
(+ ``reasons``). ``token`` is echoed so the parent can tell this result from one forged by
learner code, which can reach neither the payload nor the frames that hold it.

``run`` installs an audit hook that lasts as long as the process: it belongs in a forked
child. Do not run it through ``InProcessRunner`` inside a process that lives on (a test
session); the tests use the real runner.
"""

from __future__ import annotations

from typing import Any

from . import HARNESSES, guard, pristine, snapshot
from . import detach_forward, freeze_module, independent_copy, safe_sgd_step, straight_through  # noqa: F401 - loaded before the fork
from .calls import compile_source, run_source

_MODULES = {name: globals()[name] for name in HARNESSES}


def _checked(fn: Any, checkpoint: Any) -> Any:
    """The learner's function, followed each time by a guard checkpoint."""

    def learner_function(*args: Any) -> Any:
        try:
            return fn(*args)
        finally:
            checkpoint()

    return learner_function


def _warm_up() -> None:
    """Use once what torch sets up lazily: an optimizer's first construction patches its
    class's ``step`` and imports dynamo (which wraps ``torch.manual_seed``). Done here, at
    import (in the warm process, before any fork), torch's own patches precede the guard's
    snapshot instead of looking like a learner's, and children skip the cost."""
    import torch

    p = torch.zeros(2, requires_grad=True)
    (p * 2).sum().backward(gradient=torch.ones(()))
    for cls in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        opt = cls([p], lr=0.1, weight_decay=0.01)
        opt.step()
        opt.zero_grad()
    torch.manual_seed(0)


_warm_up()
# What torch, builtins and the grader's modules look like before any learner code: taken
# once here, in the warm process, and compared in each child after its learner code ran.
_BEFORE = snapshot.snapshot(snapshot.namespaces())


def run(payload: dict[str, Any]) -> dict[str, Any]:
    """Payload: {harness, source, entry, seed, token} -> observations (see the module docstring)."""
    armed = guard.arm(_BEFORE)
    token, harness = str(payload["token"]), _MODULES[payload["harness"]]
    result = _observe(harness, str(payload["source"]), str(payload["entry"]), int(payload["seed"]), armed.checkpoint)
    found = armed.violations()
    if found:
        result = {"status": "integrity", "reasons": found[:10]}
    return {"token": token, **result}


def _observe(harness: Any, source: str, entry: str, seed: int, checkpoint: Any) -> dict[str, Any]:
    try:
        code = compile_source(source)
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes in the source
        line = getattr(exc, "lineno", None)
        return {"status": "invalid", "syntax": {"message": str(getattr(exc, "msg", exc))[:200], "line": line if type(line) is int else None}}
    namespace, raised = run_source(code)
    checkpoint()
    if raised is not None:
        return {"status": "error", "raised": raised.to_json()}
    fn = namespace.get(entry)
    if fn is None:
        return {"status": "invalid", "missing": entry}
    if not callable(fn):
        return {"status": "invalid", "not_callable": pristine.type_name(fn)}
    try:
        # Grad mode on, whatever the learner's top level left behind: the harness's own
        # forward passes must build graphs (the learner's function may still switch it).
        with pristine.grad_enabled(True):
            return {"status": "ok", "observations": harness.observe(_checked(fn, checkpoint), seed)}
    except pristine.Tampered as exc:
        return {"status": "integrity", "reasons": [str(exc)]}
    except BaseException as exc:  # noqa: BLE001 - e.g. a hook the learner left raised in our backward
        return {"status": "error", "unmeasurable": f"{type(exc).__name__}: {str(exc)[:200]}"}
