"""``forward_b_only(A, B, x)`` (§5): z = B(A(x)) with gradients for B's parameters, none for A's.

The child builds seeded modules A (two linear layers) and B (one), calls the learner's
function, runs ``z.backward(g)`` with a seeded upstream gradient, and measures the output,
which of A's parameters got a ``.grad``, B's gradients, and A's ``requires_grad`` flags
(the learner must not switch them: other code may still want to train A).
"""

from __future__ import annotations

from typing import Any, Mapping

from .verdicts import PASS, Verdict, bools, errored, explain_raised, fail, sentence, first_failure, items, tensor_verdict

CHECKS = ("output", "a-no-grads", "b-grads", "a-flags-untouched")
CALL = "`forward_b_only(A, B, x)`"


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: one call, one backward pass, then the measurements."""
    from torch import nn

    from . import pristine as P
    from .calls import call

    g = P.generator(seed)
    P.seed_global(seed)  # module initialisation draws from the global generator
    A = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 5))
    B = nn.Linear(5, 3)
    x = P.randn(8, 4, generator=g)
    a_params, b_params = tuple(A.parameters()), tuple(B.parameters())
    called = call(fn, A, B, x)
    if called.raised:
        return {"raised": called.raised.to_json()}
    out = called.value
    record: dict[str, Any] = {"out": P.describe(out), "backward_raised": None}
    if P.kind_of(out) == "tensor":
        backward = call(P.backward, out, P.randn(*P.shape(out), generator=g))
        record["backward_raised"] = backward.raised.to_json() if backward.raised else None
    record["a_grads"] = [P.grad(p) is not None for p in a_params]
    record["b_grads"] = [P.describe(P.grad(p)) for p in b_params]
    record["a_flags"] = [P.requires_grad(p) for p in a_params]
    return record


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    if "raised" in got:
        return dict.fromkeys(CHECKS, errored(got["raised"], CALL))
    backward = _backward_failed(got)
    return {
        "output": tensor_verdict(got["out"], ref["out"]),
        "a-no-grads": backward or _a_no_grads(got),
        "b-grads": backward or _b_grads(got, ref),
        "a-flags-untouched": _a_flags(got) if got["out"].get("type") == "tensor" else tensor_verdict(got["out"], ref["out"]),
    }


def _backward_failed(got: Mapping[str, Any]) -> Verdict | None:
    raised = got.get("backward_raised")
    if raised is None and got["out"].get("type") == "tensor":
        return None
    if raised is None:
        return fail(f"{CALL} did not return a tensor, so nothing could be backpropagated.")
    return fail(sentence(explain_raised(raised, "`z.backward(g)` on your output")) + " B's parameters must still get gradients.")


def _a_no_grads(got: Mapping[str, Any]) -> Verdict:
    grads = bools(got, "a_grads")
    if any(grads):
        return fail(f"After `z.backward(g)`, {sum(grads)} of A's {len(grads)} parameters have a .grad; expected None for all of them: "
                    "the gradient must stop between A and B.")
    return PASS


def _b_grads(got: Mapping[str, Any], ref: Mapping[str, Any]) -> Verdict:
    names = ("B.weight.grad", "B.bias.grad")
    mine, theirs = items(got, "b_grads", len(names)), items(ref, "b_grads", len(names))
    return first_failure(tensor_verdict(m, r, ("shape", "dtype", "values"), f"For `{n}`: ") for n, m, r in zip(names, mine, theirs))


def _a_flags(got: Mapping[str, Any]) -> Verdict:
    flags = bools(got, "a_flags")
    if not all(flags):
        return fail(f"{len(flags) - sum(flags)} of A's parameters now have requires_grad=False; expected A's flags untouched "
                    "(stop the gradient in the forward pass instead, §5).")
    return PASS
