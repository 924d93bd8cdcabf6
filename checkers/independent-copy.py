"""``independent_copy(t)`` (§3): a copy with the same values, unrelated in memory and in the graph.

Inputs cover what breaks half-right answers: a leaf that requires grad, a view into a
larger tensor (its data starts inside another tensor's storage), a non-leaf, a 0-dim
tensor, an integer tensor, and tensors of other floating dtypes (float64, float16, and a
0-dim float64): a copy rebuilt from Python numbers, ``torch.tensor(t.tolist())``, comes
back float32 whatever ``t`` was. Per input, the child measures the returned value, whether
it shares the input's storage (``untyped_storage().data_ptr()``), whether the input was
changed by the call, and whether writing into either one shows up in the other (or what
the write raised: an inference-mode tensor, say, cannot be written outside that mode).
Last, two calls on inputs of one shape and dtype: a function that copies into one cached
buffer returns the same memory twice, and the second call overwrites the first copy, which
no single call shows.
"""

from __future__ import annotations

from typing import Any, Mapping

from graders.checker import (
    PASS, Described, RaisedRecord, Schema, Verdict, errored, explain_raised, fail, first_failure, flag, items,
    sentence, tensor_verdict,
)

CHECKS = ("values", "own-memory", "detached", "independent-writes")
CALL = "`independent_copy(t)`"
CASES = (
    ("leaf", "a leaf that requires grad"),
    ("view", "a view into a larger tensor"),
    ("non-leaf", "a non-leaf (computed from a tensor that requires grad)"),
    ("0-dim", "a 0-dim tensor"),
    ("integer", "an integer tensor"),
    ("float64", "a float64 tensor"),
    ("float16", "a float16 tensor"),
    ("0-dim float64", "a 0-dim float64 tensor"),
)


class Case(Schema):
    raised: RaisedRecord | None = None
    out: Described | None = None
    input_changed: bool | None = None
    shares_storage: bool | None = None
    writes_leak: bool | None = None
    write_raised: RaisedRecord | None = None


class Observations(Schema):
    cases: list[Case]
    calls_share: bool | None = None  # two calls returned tensors over one memory
    second_call_wrote_first: bool | None = None  # the second call changed the first copy


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: call ``fn`` on each input and measure the copy it returns."""
    from graders.checker import measure as M

    g = M.generator(seed)
    cases = [_measure(fn, t, M) for t in _inputs(g, M)]
    return {"cases": cases, **_two_calls(fn, g, M)}


def _inputs(g: Any, M: Any) -> list[Any]:
    import torch

    base = M.randn(4, 5, generator=g)
    weights = M.randn(3, generator=g, requires_grad=True)
    return [
        M.randn(3, 4, generator=g, requires_grad=True),
        base[1:3, 2:],
        weights * 2,
        M.randn(generator=g),
        torch.arange(6).reshape(2, 3),
        M.randn(2, 3, generator=g, dtype=torch.float64),
        M.randn(4, generator=g, dtype=torch.float16),
        M.randn(generator=g, dtype=torch.float64),
    ]


def _two_calls(fn: Any, g: Any, M: Any) -> dict[str, Any]:
    """Two calls on inputs of one shape and dtype: do the copies share memory, and did the
    second call change the first copy? Nothing when a call did not give a tensor (the cases
    above say why)."""
    first = M.call(fn, M.randn(2, 2, generator=g))
    if first.raised or M.kind_of(first.value) != "tensor":
        return {}
    seen = M.bits(first.value)
    second = M.call(fn, M.randn(2, 2, generator=g))
    if second.raised or M.kind_of(second.value) != "tensor":
        return {}
    return {
        "calls_share": bool(M.storage_ptr(first.value) == M.storage_ptr(second.value)),
        "second_call_wrote_first": bool(M.bits(first.value) != seen),
    }


def _measure(fn: Any, t: Any, M: Any) -> dict[str, Any]:
    before, wanted_grad = M.bits(t), M.requires_grad(t)
    called = M.call(fn, t)
    if called.raised:
        return {"raised": called.raised.to_json()}
    out = called.value
    record: dict[str, Any] = {"out": M.describe(out), "input_changed": M.bits(t) != before or M.requires_grad(t) != wanted_grad}
    if M.kind_of(out) == "tensor":
        record["shares_storage"] = M.storage_ptr(out) == M.storage_ptr(t)
        record |= _writes(out, t, M)
    return record


def _writes(out: Any, t: Any, M: Any) -> dict[str, Any]:
    """Does writing into one of ``out`` and ``t`` change the other? Or did the write raise?"""
    seen_t = M.bits(t)
    wrote = M.call(M.bump, out)
    if wrote.raised:
        return {"write_raised": wrote.raised.to_json()}
    leaked = M.bits(t) != seen_t
    seen_out = M.bits(out)
    M.bump(t)
    return {"writes_leak": leaked or M.bits(out) != seen_out}


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    mine, theirs = items(got, "cases", len(CASES)), items(ref, "cases", len(CASES))
    pairs = list(zip(CASES, mine, theirs))
    problem = _broken(pairs)
    if problem is not None:
        return dict.fromkeys(CHECKS, problem)
    return {
        "values": first_failure(tensor_verdict(m["out"], r["out"], ("shape", "dtype", "values"), _for(c)) for c, m, r in pairs),
        "own-memory": first_failure([*(_own_memory(c, m) for c, m, _ in pairs), _separate_calls(got)]),
        "detached": first_failure(_detached(c, m, r) for c, m, r in pairs),
        "independent-writes": first_failure([*(_writes_verdict(c, m) for c, m, _ in pairs), _later_calls(got)]),
    }


def _broken(pairs: list[tuple[tuple[str, str], dict[str, Any], dict[str, Any]]]) -> Verdict | None:
    """A failure that costs every check: the function raised, returned no tensor, or changed ``t``."""
    for case, mine, _ in pairs:
        if mine.get("raised"):
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


def _separate_calls(got: Mapping[str, Any]) -> Verdict:
    if got.get("calls_share") is True:
        return fail("Two calls of `independent_copy` on tensors of one shape and dtype returned copies that share "
                    "memory. Expected each call to return memory of its own.")
    return PASS


def _later_calls(got: Mapping[str, Any]) -> Verdict:
    if got.get("second_call_wrote_first") is True:
        return fail("A second call of `independent_copy` changed the copy the first call returned. Expected a copy "
                    "that no later call writes into.")
    return PASS


def _detached(case: tuple[str, str], mine: dict[str, Any], ref: dict[str, Any]) -> Verdict:
    verdict = tensor_verdict(mine["out"], ref["out"], ("requires_grad",), _for(case))
    if verdict.passed and mine["out"].get("grad_fn") is not None:
        return fail(f"{_for(case)}your copy has grad_fn=<{mine['out']['grad_fn']}>; expected no grad_fn (outside the graph).")
    return verdict


def _writes_verdict(case: tuple[str, str], mine: dict[str, Any]) -> Verdict:
    if mine.get("write_raised"):
        return fail(sentence(explain_raised(mine["write_raised"], f"{_for(case)}writing into your copy (`copy += 1`)"))
                    + " A copy must be an ordinary tensor that can be written.")
    if flag(mine, "writes_leak"):
        return fail(f"{_for(case)}writing into your copy changed `t` (or the other way round); expected them to be independent.")
    return PASS


def _for(case: tuple[str, str]) -> str:
    return f"With {case[1]} as `t`: "
