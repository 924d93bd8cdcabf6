"""``sgd_step(params, lr)`` (§4): ``p -= lr * p.grad`` in place, visible to autograd.

The child makes three leaf parameters (two with gradients from a loss, one whose grad is
None), then builds a pending graph that saved ``w`` and ``b`` for backward, and calls the
learner's step. It measures the parameters' values, whether they are still the same leaf
objects that require grad, whether their version counters moved, whether the pending
backward notices the in-place change (as it must: §4), and whether a fresh
forward/backward after the step works and gives the reference's gradients.
"""

from __future__ import annotations

from typing import Any, Mapping

from .verdicts import PASS, Verdict, bools, errored, explain_raised, fail, sentence, first_failure, flag, items, tensor_verdict, text

CHECKS = ("values", "same-leaves", "autograd-safe", "backward-after")
CALL = "`sgd_step(params, lr)`"
NAMES = ("w", "b", "unused")  # unused: its .grad is None, so the step must skip it
LR = 0.1
STALE = "modified by an inplace operation"
VALUES = ("shape", "dtype", "values")


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: one step by the learner, then the measurements."""
    from . import pristine as P
    from .calls import call

    g = P.generator(seed)
    w, b, unused = (P.randn(*shape, generator=g, requires_grad=True) for shape in ((3, 4), (4,), (2,)))
    x = P.randn(5, 3, generator=g)
    P.backward(((x @ w + b) ** 2).mean())
    pending = (w * w).sum() + (b * b).sum()  # saves w and b for its backward
    params, versions, bits = [w, b, unused], (P.version(w), P.version(b)), (P.bits(w), P.bits(b))
    called = call(fn, params, LR)
    if called.raised:
        return {"raised": called.raised.to_json()}
    record = {
        "values": [P.describe(p) for p in (w, b, unused)],
        "leaves": [P.is_leaf(p) and P.requires_grad(p) for p in (w, b, unused)],
        "moved": [P.bits(w) != bits[0], P.bits(b) != bits[1]],
        "same_list": len(params) == 3 and all(p is q for p, q in zip(params, (w, b, unused))),
        "versions_moved": [P.version(w) > versions[0], P.version(b) > versions[1]],
    }
    stale = call(P.backward, pending)
    record["pending_raised"] = stale.raised.to_json() if stale.raised else None
    return record | _backward_after(w, b, x, P)


def _backward_after(w: Any, b: Any, x: Any, P: Any) -> dict[str, Any]:
    from .calls import call

    P.clear_grad(w)
    P.clear_grad(b)
    after = call(lambda: P.backward(((x @ w + b) ** 2).mean()))
    if after.raised:
        return {"after_raised": after.raised.to_json()}
    return {"after_raised": None, "after_grads": [P.describe(P.grad(w)), P.describe(P.grad(b))]}


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    if "raised" in got:
        return dict.fromkeys(CHECKS, errored(got["raised"], CALL))
    mine, theirs = items(got, "values", len(NAMES)), items(ref, "values", len(NAMES))
    return {
        "values": first_failure(tensor_verdict(m, r, VALUES, f"For `{n}` after the step: ") for n, m, r in zip(NAMES, mine, theirs)),
        "same-leaves": _same_leaves(got),
        "autograd-safe": _autograd_safe(got),
        "backward-after": _backward_verdict(got, ref),
    }


def _same_leaves(got: Mapping[str, Any]) -> Verdict:
    leaves = bools(got, "leaves", len(NAMES))
    broken = [n for n, ok in zip(NAMES, leaves) if not ok]
    if broken:
        return fail(f"After the step, `{broken[0]}` is no longer a leaf that requires grad; expected the same parameters, updated in place.")
    if not flag(got, "same_list"):
        return fail("Your step put other tensors into `params`; expected the same parameter objects, updated in place.")
    still = [n for n, moved in zip(NAMES, bools(got, "moved", 2)) if not moved]
    if still:
        return fail(f"The tensor `{still[0]}` itself did not change: the new values went somewhere else (a new tensor bound to "
                    "a local name?). Expected the same parameter objects to hold the new values.")
    return PASS


def _autograd_safe(got: Mapping[str, Any]) -> Verdict:
    moved, raised = bools(got, "versions_moved", 2), got.get("pending_raised")
    if raised is not None and STALE in text(raised, "message") and all(moved):
        return PASS
    unseen = next((n for n, ok in zip(NAMES, moved) if not ok), None)
    why = f"the version counter of `{unseen}` did not move, so " if unseen else ""
    return fail(f"Autograd was not told about your update: {why}a backward pass through a graph that had saved `w` and `b` "
                "ran without error and silently used the new values. Changing a tensor through `.data` hides the change; "
                "under `torch.no_grad()`, `p -= lr * p.grad` (or `p.detach().sub_(...)`) keeps it visible (§4).")


def _backward_verdict(got: Mapping[str, Any], ref: Mapping[str, Any]) -> Verdict:
    if got.get("after_raised") is not None:
        return fail(sentence(explain_raised(got["after_raised"], "A new forward and backward pass after your step")))
    mine, theirs = items(got, "after_grads", 2), items(ref, "after_grads", 2)
    return first_failure(tensor_verdict(m, r, VALUES, f"For `{n}.grad` after a new backward pass: ") for n, m, r in zip(NAMES, mine, theirs))
