"""``trainable_copy(t)``: a new leaf to optimize, starting from ``t``'s values.

Inputs cover what breaks half-right answers: a non-leaf (computed from a tensor that
requires grad, so a recorded ``clone()`` stays in its graph), a leaf that requires grad, a
view into a larger tensor, a tensor that requires no grad, a float64 tensor (a copy
keeps the dtype), and a 0-dim tensor that requires grad (``out[:] = t`` cannot index it, a
scalar loss's parameter is one). Per input, the child measures
the returned value and its flags, whether it shares the input's storage, whether an update
of it under ``no_grad`` (what an optimizer does) shows in ``t``, and, after a backward from
it with a known upstream gradient, its own ``.grad`` and whether any gradient reached ``t``
or the leaf ``t`` was computed from. An update that raises (an inference tensor, made
under ``inference_mode``, cannot be updated outside it) is a copy no optimizer can train,
not a copy that leaks. Last, two calls on inputs of one shape: a function that copies into
one buffer each time returns tensors that share memory, and the second call overwrites
the first copy.
"""

from __future__ import annotations

from typing import Any, Mapping

from graders.checker import (
    PASS, Described, RaisedRecord, Schema, Verdict, errored, explain_raised, fail, first_failure, flag, items,
    sentence, tensor_verdict,
)

CHECKS = ("values", "new-leaf", "own-memory", "own-gradient")
CALL = "`trainable_copy(t)`"
CASES = (
    ("non-leaf", "a non-leaf (computed from a tensor that requires grad)"),
    ("leaf", "a leaf that requires grad"),
    ("view", "a view into a larger tensor"),
    ("plain", "a tensor that requires no grad"),
    ("float64", "a float64 tensor"),
    ("0-dim", "a 0-dim tensor that requires grad"),
)


class Case(Schema):
    raised: RaisedRecord | None = None
    out: Described | None = None
    input_changed: bool | None = None
    shares_storage: bool | None = None
    update_leaks: bool | None = None
    update_raised: RaisedRecord | None = None
    backward_raised: RaisedRecord | None = None
    own_grad_right: bool | None = None
    reached_t: bool | None = None


class Observations(Schema):
    cases: list[Case]
    calls_share: bool | None = None  # two calls returned tensors over one memory


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: call ``fn`` on each input and measure the leaf it returns."""
    from graders.checker import measure as M

    g = M.generator(seed)
    cases = [_measure(fn, t, sources, M, g) for t, sources in _inputs(g, M)]
    return {"cases": cases, "calls_share": _calls_share(fn, g, M)}


def _inputs(g: Any, M: Any) -> list[tuple[Any, tuple[Any, ...]]]:
    """Each input ``t``, and the leaves a gradient through ``t`` would reach."""
    import torch

    weights = M.randn(3, generator=g, requires_grad=True)
    leaf = M.randn(2, 3, generator=g, requires_grad=True)
    base = M.randn(4, 5, generator=g)
    wide = M.randn(3, generator=g, dtype=torch.float64, requires_grad=True)
    scalar = M.randn(generator=g, requires_grad=True)
    return [(weights * 2, (weights,)), (leaf, (leaf,)), (base[1:3, 2:], ()), (M.randn(4, generator=g), ()),
            (wide * 3, (wide,)), (scalar, (scalar,))]


def _calls_share(fn: Any, g: Any, M: Any) -> bool | None:
    """Two calls on inputs of one shape: do the results share memory, or did the second
    call change the first result? None when a call did not give a tensor."""
    first = M.call(fn, M.randn(2, 2, generator=g))
    if first.raised or M.kind_of(first.value) != "tensor":
        return None
    seen = M.bits(first.value)
    second = M.call(fn, M.randn(2, 2, generator=g))
    if second.raised or M.kind_of(second.value) != "tensor":
        return None
    return bool(M.storage_ptr(first.value) == M.storage_ptr(second.value) or M.bits(first.value) != seen)


def _measure(fn: Any, t: Any, sources: tuple[Any, ...], M: Any, g: Any) -> dict[str, Any]:
    before, wanted_grad = M.bits(t), M.requires_grad(t)
    called = M.call(fn, t)
    if called.raised:
        return {"raised": called.raised.to_json()}
    out = called.value
    record: dict[str, Any] = {"out": M.describe(out), "input_changed": M.bits(t) != before or M.requires_grad(t) != wanted_grad}
    if M.kind_of(out) != "tensor":
        return record
    record["shares_storage"] = M.storage_ptr(out) == M.storage_ptr(t)
    return record | _backward(out, t, sources, M, g) | _update(out, t, M)


def _backward(out: Any, t: Any, sources: tuple[Any, ...], M: Any, g: Any) -> dict[str, Any]:
    """Backward from ``out`` with a known upstream gradient: where does it land?"""
    upstream = M.randn(*M.shape(out), generator=g)
    done = M.call(M.backward, out, upstream)
    if done.raised:
        return {"backward_raised": done.raised.to_json()}
    mine = M.grad(out) if M.is_leaf(out) else None
    reached = [s for s in (t, *sources) if M.kind_of(s) == "tensor" and M.requires_grad(s) and M.is_leaf(s)]
    return {
        "own_grad_right": mine is not None and M.same_values(mine, upstream),
        "reached_t": any(M.grad(s) is not None for s in reached),
    }


def _update(out: Any, t: Any, M: Any) -> dict[str, Any]:
    """An optimizer's update of ``out`` (in place, under no_grad): does ``t`` change?"""
    seen = M.bits(t)
    wrote = M.call(M.bump, out)
    if wrote.raised:
        return {"update_raised": wrote.raised.to_json()}
    return {"update_leaks": bool(M.bits(t) != seen)}


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    mine, theirs = items(got, "cases", len(CASES)), items(ref, "cases", len(CASES))
    pairs = list(zip(CASES, mine, theirs))
    problem = _broken(pairs)
    if problem is not None:
        return dict.fromkeys(CHECKS, problem)
    return {
        "values": first_failure(tensor_verdict(m["out"], r["out"], ("shape", "dtype", "values"), _for(c)) for c, m, r in pairs),
        "new-leaf": first_failure(_new_leaf(c, m, r) for c, m, r in pairs),
        "own-memory": first_failure([*(_own_memory(c, m) for c, m, _ in pairs), _separate_calls(got)]),
        "own-gradient": first_failure(_own_gradient(c, m) for c, m, _ in pairs),
    }


def _broken(pairs: list[tuple[tuple[str, str], dict[str, Any], dict[str, Any]]]) -> Verdict | None:
    """A failure that costs every check: the function raised, returned no tensor, or changed ``t``."""
    for case, mine, _ in pairs:
        if mine.get("raised"):
            return errored(mine["raised"], f"{_for(case)}{CALL}")
        if flag(mine, "input_changed"):
            return fail(f"{_for(case)}{CALL} changed its input `t`. Leave the original as it was.")
    for case, mine, theirs in pairs:
        shape = tensor_verdict(mine["out"], theirs["out"], (), _for(case))
        if not shape.passed:
            return shape
    return None


def _new_leaf(case: tuple[str, str], mine: dict[str, Any], ref: dict[str, Any]) -> Verdict:
    verdict = tensor_verdict(mine["out"], ref["out"], ("requires_grad", "is_leaf"), _for(case))
    if verdict.passed and mine["out"].get("grad_fn") is not None:
        return fail(f"{_for(case)}your tensor has grad_fn=<{mine['out']['grad_fn']}>; expected a leaf, with no grad_fn.")
    return verdict


def _own_memory(case: tuple[str, str], mine: dict[str, Any]) -> Verdict:
    if mine.get("update_raised"):
        return fail(sentence(explain_raised(mine["update_raised"], f"{_for(case)}an in-place update of your tensor (what an "
                                            "optimizer does, under `no_grad`)"))
                    + " Expected a tensor an optimizer can train: an inference tensor, made under `inference_mode`, "
                      "cannot be updated outside it.")
    if flag(mine, "shares_storage") or mine.get("update_leaks"):
        return fail(f"{_for(case)}your tensor shares its memory with `t`: updating it (as an optimizer does, in place) changes `t`. Expected memory of its own.")
    return PASS


def _separate_calls(got: Mapping[str, Any]) -> Verdict:
    if got.get("calls_share") is True:
        return fail("Two calls of `trainable_copy` returned tensors that share memory: the second call overwrote the "
                    "first copy. Expected each call to return memory of its own.")
    return PASS


def _own_gradient(case: tuple[str, str], mine: dict[str, Any]) -> Verdict:
    if mine.get("backward_raised"):
        return fail(sentence(explain_raised(mine["backward_raised"], f"{_for(case)}a backward from your tensor"))
                    + " Expected a tensor that requires grad.")
    if mine.get("reached_t"):
        return fail(f"{_for(case)}a backward from your tensor sent a gradient into `t`'s graph; expected it to stop at your tensor.")
    if not mine.get("own_grad_right"):
        return fail(f"{_for(case)}after a backward from your tensor, its `.grad` does not hold the gradient; expected a leaf that keeps it.")
    return PASS


def _for(case: tuple[str, str]) -> str:
    return f"With {case[1]} as `t`: "
