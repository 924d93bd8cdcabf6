"""The sandbox task of code exercises: run learner source, call its function, return observations.

    Job(task="graders.harness.child:run", check="graders.harness.child:check",
        payload={"harness": "freeze_module", "source": "...", "entry": "freeze", "seed": 0})

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
(+ ``reasons``). ``check`` holds that shape in the sandbox's keeper, a process that never
runs learner code: a result that does not have it is ``integrity`` there.

``run`` installs an audit hook that lasts as long as the process: it belongs in a forked
child. Do not run it through ``InProcessRunner`` inside a process that lives on (a test
session); the tests use the real runner.
"""

from __future__ import annotations

from typing import Any

from . import HARNESSES, guard, pristine, snapshot
from . import detach_forward, freeze_module, independent_copy, safe_sgd_step, straight_through  # noqa: F401 - loaded before the fork
from .calls import compile_source, run_source
from .learner import DEFAULT_IMPORTS, NotAllowed, refusals

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
    class's ``step`` and imports dynamo (which wraps ``torch.manual_seed``); the first
    ``torch.compile`` wraps more. Done here, at import (in the warm process, before any
    fork), torch's own patches precede the guard's snapshot instead of looking like a
    learner's, and children skip the cost."""
    import torch

    p = torch.zeros(2, requires_grad=True)
    (p * 2).sum().backward(gradient=torch.ones(()))
    for cls in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        opt = cls([p], lr=0.1, weight_decay=0.01)
        opt.step()
        opt.zero_grad()
    torch.manual_seed(0)
    # torch.compile wraps optimizer and module internals the first time it runs (and takes
    # ~1.5 s to import): done here, it is torch's own set-up, paid once per fork server.
    torch.compile(lambda x: x * 2, backend="eager")(torch.ones(2))


_warm_up()
# What torch, builtins and the grader's modules look like before any learner code: taken
# once here, in the warm process, and compared in each child after its learner code ran.
_BEFORE = snapshot.snapshot(snapshot.namespaces())


def run(payload: dict[str, Any]) -> dict[str, Any]:
    """Payload: {harness, source, entry, seed, imports?} -> observations (see the module docstring)."""
    armed = guard.arm(_BEFORE)
    harness = _MODULES[payload["harness"]]
    allowed = tuple(payload.get("imports") or DEFAULT_IMPORTS)
    result = _observe(harness, str(payload["source"]), str(payload["entry"]), int(payload["seed"]), armed.checkpoint, allowed)
    found = armed.violations()
    if found:
        result = {"status": "integrity", "reasons": found[:10]}
    return result


def _observe(harness: Any, source: str, entry: str, seed: int, checkpoint: Any, allowed: tuple[str, ...]) -> dict[str, Any]:
    try:
        code = compile_source(source, allowed)
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes, or learner.InvalidSource
        line = getattr(exc, "lineno", None)
        return {"status": "invalid", "syntax": {"message": str(getattr(exc, "msg", exc))[:200], "line": line if type(line) is int else None}}
    namespace, raised = run_source(code, allowed)
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
    except NotAllowed:
        return {"status": "integrity", "reasons": refusals()[:10]}
    except BaseException as exc:  # noqa: BLE001 - e.g. a hook the learner left raised in our backward
        return {"status": "error", "unmeasurable": f"{type(exc).__name__}: {str(exc)[:200]}"}


STATUSES = {"ok": {"observations": dict}, "invalid": None, "error": None, "integrity": {"reasons": list}}


def check(payload: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """Keeper side: ``result`` has the shape ``run`` writes, or ``ValueError``."""
    status = result.get("status")
    if status not in STATUSES:
        raise ValueError("the result has no status the harness writes")
    for key, kind in (STATUSES[status] or {}).items():
        if type(result.get(key)) is not kind:
            raise ValueError(f"a {status} result must hold {key}")
    if status == "integrity" and not all(type(r) is str for r in result["reasons"]):
        raise ValueError("reasons must be text")
    return result
