"""``round_ste(x)``: round in the forward pass, pass the gradient straight through.

Inputs: a float32 vector whose values include ties (``0.5, 1.5, 2.5, -0.5``: ``torch.round``
rounds half to even, ``floor(x + 0.5)`` does not) and a float64 matrix, both leaves that
require grad. For each, the child measures the output, whether the call changed ``x``,
whether ``x`` is in the output's graph, and the gradient of the output with respect to
``x`` for a seeded upstream gradient ``g``, computed by ``torch.autograd.grad`` (not read
from ``x.grad``, which a hook could write): a straight-through estimator gives exactly
``g``; plain ``torch.round`` gives zeros.

The exercise has parameters: each learner's forward pass is their own ``op`` (``round``,
``floor``, ``ceil`` or ``trunc``), and the matrix has their ``shape``. The expected
output is the reference solution's in the same variant; the checker builds the inputs.
"""

from __future__ import annotations

from typing import Any, Mapping

from graders.checker import (
    PASS, Described, RaisedRecord, Schema, Verdict, errored, explain_raised, fail, first_failure, flag, items,
    sentence, tensor_verdict,
)

CHECKS = ("forward", "gradient")
CALL = "`round_ste(x)`"
CASES = ("a float32 vector (with ties such as 0.5 and 2.5)", "a float64 matrix")
TIES = (0.5, 1.5, 2.5, -0.5, -1.5)


class Case(Schema):
    raised: RaisedRecord | None = None
    out: Described | None = None
    input_changed: bool | None = None
    x_in_graph: bool | None = None
    gradient_raised: RaisedRecord | None = None
    gradient: Described | None = None


class Observations(Schema):
    cases: list[Case]


def observe(fn: Any, seed: int, params: Mapping[str, Any]) -> dict[str, Any]:
    """Child side: call ``fn`` on each input, then differentiate its output."""
    import torch

    from graders.checker import measure as M

    g = M.generator(seed)
    ties = torch.tensor(TIES)
    inputs = [
        _leaf(torch.cat([ties, M.randn(6, generator=g) * 3]), M),
        _leaf(M.randn(*params["shape"], generator=g, dtype=torch.float64) * 3, M),
    ]
    return {"cases": [_measure(fn, x, g, M) for x in inputs]}


def _leaf(t: Any, M: Any) -> Any:
    return M.snapshot(t).requires_grad_(True)


def _measure(fn: Any, x: Any, g: Any, M: Any) -> dict[str, Any]:
    before = M.bits(x)
    called = M.call(fn, x)
    if called.raised:
        return {"raised": called.raised.to_json()}
    out = called.value
    record: dict[str, Any] = {"out": M.describe(out), "input_changed": M.bits(x) != before}
    if M.kind_of(out) == "tensor":
        record["x_in_graph"] = M.contains(M.graph_leaves(out), x)
        upstream = M.randn(*M.shape(out), generator=g, dtype=_dtype(out, M))
        found = M.call(M.gradient, out, (x,), upstream)
        if found.raised:
            record["gradient_raised"] = found.raised.to_json()
        else:
            record["gradient"] = M.describe(found.value[0])
    return record


def _dtype(t: Any, M: Any) -> Any:
    import torch

    # The upstream gradient must match the output's dtype; an integer output gets float.
    found = M.dtype(t)
    return found if found in (torch.float32, torch.float64) else torch.float32


def judge(got: Mapping[str, Any], ref: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    expected = f"`torch.{params['op']}(x)`"
    pairs = list(zip(CASES, items(got, "cases", len(CASES)), items(ref, "cases", len(CASES))))
    for case, mine, _ in pairs:
        if mine.get("raised"):
            return dict.fromkeys(CHECKS, errored(mine["raised"], f"With {case} as `x`: {CALL}"))
        if flag(mine, "input_changed"):
            changed = f"With {case} as `x`: {CALL} changed `x` in place. It must return a new tensor and leave `x` as it was."
            return dict.fromkeys(CHECKS, fail(changed))
    return {
        "forward": first_failure(tensor_verdict(m["out"], r["out"], ("shape", "dtype", "values"), f"With {c} as `x`, against {expected}: ")
                                 for c, m, r in pairs),
        "gradient": first_failure(_gradient(c, m, r) for c, m, r in pairs),
    }


def _gradient(case: str, mine: dict[str, Any], ref: dict[str, Any]) -> Verdict:
    where = f"With {case} as `x`: "
    if mine["out"].get("type") != "tensor" or not mine.get("x_in_graph"):
        return fail(f"{where}your output is not computed from `x` in autograd's graph, so no gradient can flow back to "
                    "`x` (writing `x.grad` yourself is not a gradient). Build the output from `x`.")
    if mine.get("gradient_raised"):
        return fail(where + sentence(explain_raised(mine["gradient_raised"], "`torch.autograd.grad(out, x, g)`")))
    verdict = tensor_verdict(mine["gradient"], ref["gradient"], ("shape", "dtype", "values"), f"{where}for the gradient with respect to `x`: ")
    return verdict if not verdict.passed else PASS
