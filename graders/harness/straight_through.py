"""``round_ste(x)`` (supplement): round in the forward pass, pass the gradient straight through.

Inputs: a float32 vector and a float64 matrix that require grad. For each, the child
measures the output, whether the call changed ``x``, and then ``x.grad`` after
``out.backward(g)`` with a seeded upstream gradient ``g``: a straight-through estimator
gives ``x.grad == g``; plain ``torch.round`` gives zeros.
"""

from __future__ import annotations

from typing import Any, Mapping

from .verdicts import Verdict, errored, explain_raised, fail, sentence, first_failure, flag, items, tensor_verdict

CHECKS = ("forward", "gradient")
CALL = "`round_ste(x)`"
CASES = ("a float32 vector", "a float64 matrix")


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: call ``fn`` on each input, then backpropagate through its output."""
    import torch

    from . import pristine as P

    g = P.generator(seed)
    inputs = [
        _scaled(P.randn(8, generator=g), P),
        _scaled(P.randn(2, 3, generator=g, dtype=torch.float64), P),
    ]
    return {"cases": [_measure(fn, x, g, P) for x in inputs]}


def _scaled(t: Any, P: Any) -> Any:
    # Spread over several integers, as a leaf that requires grad.
    return (t * 3).detach().requires_grad_(True)


def _measure(fn: Any, x: Any, g: Any, P: Any) -> dict[str, Any]:
    from .calls import call

    before = P.bits(x)
    called = call(fn, x)
    if called.raised:
        return {"raised": called.raised.to_json()}
    out = called.value
    record: dict[str, Any] = {"out": P.describe(out), "input_changed": P.bits(x) != before}
    if P.kind_of(out) == "tensor":
        upstream = P.randn(*P.shape(out), generator=g, dtype=_dtype(out, P))
        backward = call(P.backward, out, upstream)
        record["backward_raised"] = backward.raised.to_json() if backward.raised else None
        record["x_grad"] = P.describe(P.grad(x))
    return record


def _dtype(t: Any, P: Any) -> Any:
    import torch

    # The upstream gradient must match the output's dtype; an integer output gets float.
    found = P.dtype(t)
    return found if found in (torch.float32, torch.float64) else torch.float32


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    pairs = list(zip(CASES, items(got, "cases", len(CASES)), items(ref, "cases", len(CASES))))
    for case, mine, _ in pairs:
        if "raised" in mine:
            return dict.fromkeys(CHECKS, errored(mine["raised"], f"With {case} as `x`: {CALL}"))
        if flag(mine, "input_changed"):
            changed = f"With {case} as `x`: {CALL} changed `x` in place. It must return a new tensor and leave `x` as it was."
            return dict.fromkeys(CHECKS, fail(changed))
    return {
        "forward": first_failure(tensor_verdict(m["out"], r["out"], ("shape", "dtype", "values"), f"With {c} as `x`: ") for c, m, r in pairs),
        "gradient": first_failure(_gradient(c, m, r) for c, m, r in pairs),
    }


def _gradient(case: str, mine: dict[str, Any], ref: dict[str, Any]) -> Verdict:
    where = f"With {case} as `x`: "
    connected = tensor_verdict(mine["out"], ref["out"], ("requires_grad",), where)
    if not connected.passed:
        return connected
    if mine.get("backward_raised") is not None:
        return fail(where + sentence(explain_raised(mine["backward_raised"], "`out.backward(g)`")))
    return tensor_verdict(mine["x_grad"], ref["x_grad"], ("shape", "dtype", "values"), f"{where}for `x.grad` after `out.backward(g)`: ")
