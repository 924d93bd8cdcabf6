"""``sgd_step(params, lr)`` (§4): ``p -= lr * p.grad`` in place, visible to autograd.

The exercise has parameters: each learner's step adds their own ``weight_decay * p`` to
the gradient (0 in the base variant: plain SGD), and the weight matrix has their
``shape`` (the bias has ``shape[1]``). The expected values are the reference solution's
in the same variant, so the checker itself needs only the shape.

Two calls, so that one missed case costs one check. In the first, every parameter has a
gradient: the child makes two leaf parameters with gradients from a loss, builds a
pending graph that saved both for backward, and calls the learner's step. It measures the
new values, whether they are still the same leaf objects that require grad, whether their
version counters moved, whether the pending backward notices the in-place change (as it
must: §4), and whether a fresh forward/backward after the step gives the reference's
gradients. In the second call one parameter's ``.grad`` is None: the step must skip it.
"""

from __future__ import annotations

from typing import Any, Mapping

from graders.checker import (
    PASS, Described, Flags, RaisedRecord, Schema, Verdict, bools, errored, explain_raised, fail, first_failure,
    flag, items, sentence, tensor_verdict, text,
)

CHECKS = ("values", "same-leaves", "autograd-safe", "backward-after", "skips-none")
CALL = "`sgd_step(params, lr)`"
NAMES = ("w", "b")
LR = 0.1
STALE = "modified by an inplace operation"
VALUES = ("shape", "dtype", "values")


class Observations(Schema):
    raised: RaisedRecord | None = None
    values: list[Described] | None = None
    leaves: Flags | None = None
    moved: Flags | None = None
    same_list: bool | None = None
    versions_moved: Flags | None = None
    pending_raised: RaisedRecord | None = None
    after_raised: RaisedRecord | None = None
    after_grads: list[Described] | None = None
    skip_raised: RaisedRecord | None = None
    skipped: Flags | None = None
    skip_values: list[Described] | None = None


def observe(fn: Any, seed: int, params: Mapping[str, Any]) -> dict[str, Any]:
    """Child side: a step with every gradient present, then one with a missing gradient."""
    from graders.checker import measure as M

    rows, cols = params["shape"]
    g = M.generator(seed)
    w, b = (M.randn(*shape, generator=g, requires_grad=True) for shape in ((rows, cols), (cols,)))
    x = M.randn(5, rows, generator=g)
    M.backward(((x @ w + b) ** 2).mean())
    pending = (w * w).sum() + (b * b).sum()  # saves w and b for its backward
    params, versions, bits = [w, b], (M.version(w), M.version(b)), (M.bits(w), M.bits(b))
    called = M.call(fn, params, LR)
    if called.raised:
        return {"raised": called.raised.to_json()} | _skipping(fn, g, M)
    record = {
        "values": [M.describe(p) for p in (w, b)],
        "leaves": [M.is_leaf(p) and M.requires_grad(p) for p in (w, b)],
        "moved": [M.bits(w) != bits[0], M.bits(b) != bits[1]],
        "same_list": len(params) == 2 and all(p is q for p, q in zip(params, (w, b))),
        "versions_moved": [M.version(w) > versions[0], M.version(b) > versions[1]],
    }
    stale = M.call(M.backward, pending)
    if stale.raised:
        record["pending_raised"] = stale.raised.to_json()
    return record | _backward_after(w, b, x, M) | _skipping(fn, g, M)


def _backward_after(w: Any, b: Any, x: Any, M: Any) -> dict[str, Any]:
    M.clear_grad(w)
    M.clear_grad(b)
    after = M.call(lambda: M.backward(((x @ w + b) ** 2).mean()))
    if after.raised:
        return {"after_raised": after.raised.to_json()}
    return {"after_grads": [M.describe(M.grad(w)), M.describe(M.grad(b))]}


def _skipping(fn: Any, g: Any, M: Any) -> dict[str, Any]:
    """The step on a list where one parameter has no gradient (never used in a loss)."""
    w, unused = M.randn(3, generator=g, requires_grad=True), M.randn(2, generator=g, requires_grad=True)
    M.backward((w * w).sum())
    before = M.bits(unused)
    called = M.call(fn, [w, unused], LR)
    if called.raised:
        return {"skip_raised": called.raised.to_json()}
    return {"skipped": [M.bits(unused) == before, M.grad(unused) is None], "skip_values": [M.describe(w)]}


def judge(got: Mapping[str, Any], ref: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    skips = _skips_none(got, ref)
    if got.get("raised"):
        return dict.fromkeys(CHECKS[:-1], errored(got["raised"], CALL)) | {"skips-none": skips}
    mine, theirs = items(got, "values", len(NAMES)), items(ref, "values", len(NAMES))
    rule = f"p - lr * (p.grad + {params['weight_decay']} * p)" if params["weight_decay"] else "p - lr * p.grad"
    return {
        "values": first_failure(tensor_verdict(m, r, VALUES, f"For `{n}` after the step (`{rule}`): ")
                                for n, m, r in zip(NAMES, mine, theirs)),
        "same-leaves": _same_leaves(got),
        "autograd-safe": _autograd_safe(got),
        "backward-after": _backward_verdict(got, ref),
        "skips-none": skips,
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
    if got.get("after_raised"):
        return fail(sentence(explain_raised(got["after_raised"], "A new forward and backward pass after your step")))
    mine, theirs = items(got, "after_grads", 2), items(ref, "after_grads", 2)
    return first_failure(tensor_verdict(m, r, VALUES, f"For `{n}.grad` after a new backward pass: ") for n, m, r in zip(NAMES, mine, theirs))


def _skips_none(got: Mapping[str, Any], ref: Mapping[str, Any]) -> Verdict:
    if got.get("skip_raised"):
        return errored(got["skip_raised"], f"{CALL} on a list where one parameter's `.grad` is None")
    unchanged, still_none = bools(got, "skipped", 2)
    if not (unchanged and still_none):
        return fail("A parameter whose `.grad` is None must be left as it is; your step changed it.")
    return tensor_verdict(items(got, "skip_values", 1)[0], items(ref, "skip_values", 1)[0], VALUES,
                          "For the parameter that has a gradient, on that list: ")
