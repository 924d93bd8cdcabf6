"""``independent_copy(t)`` (§3): a copy with the same values, unrelated in memory and in the graph.

Inputs cover what breaks half-right answers: a leaf that requires grad, a view into a
larger tensor (its data starts inside another tensor's storage), a non-leaf, a 0-dim
tensor and an integer tensor. Per input, the child measures the returned value, whether
it shares the input's storage (``untyped_storage().data_ptr()``), whether the input was
changed by the call, and whether writing into either one shows up in the other.
"""

from __future__ import annotations

from typing import Any, Mapping

from .verdicts import PASS, Verdict, errored, fail, first_failure, flag, items, tensor_verdict

CHECKS = ("values", "own-memory", "detached", "independent-writes")
CALL = "`independent_copy(t)`"
CASES = (
    ("leaf", "a leaf that requires grad"),
    ("view", "a view into a larger tensor"),
    ("non-leaf", "a non-leaf (computed from a tensor that requires grad)"),
    ("0-dim", "a 0-dim tensor"),
    ("integer", "an integer tensor"),
)


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: call ``fn`` on each input and measure the copy it returns."""
    from . import pristine as P

    g = P.generator(seed)
    return {"cases": [_measure(fn, t, P) for t in _inputs(g, P)]}


def _inputs(g: Any, P: Any) -> list[Any]:
    import torch

    base = P.randn(4, 5, generator=g)
    weights = P.randn(3, generator=g, requires_grad=True)
    return [
        P.randn(3, 4, generator=g, requires_grad=True),
        base[1:3, 2:],
        weights * 2,
        P.randn(generator=g),
        torch.arange(6).reshape(2, 3),
    ]


def _measure(fn: Any, t: Any, P: Any) -> dict[str, Any]:
    from .calls import call

    before, wanted_grad = P.bits(t), P.requires_grad(t)
    called = call(fn, t)
    if called.raised:
        return {"raised": called.raised.to_json()}
    out = called.value
    record = {"out": P.describe(out), "input_changed": P.bits(t) != before or P.requires_grad(t) != wanted_grad}
    if P.kind_of(out) == "tensor":
        record["shares_storage"] = P.storage_ptr(out) == P.storage_ptr(t)
        record["writes_leak"] = _writes_leak(out, t, P)
    return record


def _writes_leak(out: Any, t: Any, P: Any) -> bool:
    """Does writing into one of ``out`` and ``t`` change the other?"""
    seen_t, seen_out = P.bits(t), P.bits(out)
    try:
        P.bump(out)
        leaked = P.bits(t) != seen_t
        seen_out = P.bits(out)
        P.bump(t)
        return leaked or P.bits(out) != seen_out
    except RuntimeError:
        return True  # an expanded view cannot even be written: it overlaps its input


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    mine, theirs = items(got, "cases", len(CASES)), items(ref, "cases", len(CASES))
    pairs = list(zip(CASES, mine, theirs))
    problem = _broken(pairs)
    if problem is not None:
        return dict.fromkeys(CHECKS, problem)
    return {
        "values": first_failure(tensor_verdict(m["out"], r["out"], ("shape", "dtype", "values"), _for(c)) for c, m, r in pairs),
        "own-memory": first_failure(_own_memory(c, m) for c, m, _ in pairs),
        "detached": first_failure(_detached(c, m, r) for c, m, r in pairs),
        "independent-writes": first_failure(_writes(c, m) for c, m, _ in pairs),
    }


def _broken(pairs: list[tuple[tuple[str, str], dict[str, Any], dict[str, Any]]]) -> Verdict | None:
    """A failure that costs every check: the function raised, returned no tensor, or changed ``t``."""
    for case, mine, _ in pairs:
        if "raised" in mine:
            return errored(mine["raised"], f"{_for(case)}{CALL}")
        if flag(mine, "input_changed"):
            return fail(f"{_for(case)}{CALL} changed its input `t`. A copy must leave the original as it was.")
    for case, mine, theirs in pairs:
        shape = tensor_verdict(mine["out"], theirs["out"], (), _for(case))
        if not shape.passed:
            return shape
    return None


def _own_memory(case: tuple[str, str], mine: dict[str, Any]) -> Verdict:
    if flag(mine, "shares_storage"):
        return fail(f"{_for(case)}your copy shares its storage with `t` (same `untyped_storage().data_ptr()`); expected new memory.")
    return PASS


def _detached(case: tuple[str, str], mine: dict[str, Any], ref: dict[str, Any]) -> Verdict:
    verdict = tensor_verdict(mine["out"], ref["out"], ("requires_grad",), _for(case))
    if verdict.passed and mine["out"].get("grad_fn") is not None:
        return fail(f"{_for(case)}your copy has grad_fn=<{mine['out']['grad_fn']}>; expected no grad_fn (outside the graph).")
    return verdict


def _writes(case: tuple[str, str], mine: dict[str, Any]) -> Verdict:
    if flag(mine, "writes_leak"):
        return fail(f"{_for(case)}writing into your copy changed `t` (or the other way round); expected them to be independent.")
    return PASS


def _for(case: tuple[str, str]) -> str:
    return f"With {case[1]} as `t`: "
