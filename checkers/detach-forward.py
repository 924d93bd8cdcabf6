"""``forward_b_only(A, B, x)`` (§5): z = B(A(x)) with gradients for B's parameters, none for A's.

The child builds seeded modules A (two linear layers) and B (one), calls the learner's
function and measures:

- the output, and whether any of A's parameters is in its graph (an ``AccumulateGrad``
  node of A reachable from ``z.grad_fn``): a hook that throws A's gradients away after
  they were computed still computes them;
- after ``z.backward(g)`` with a seeded upstream gradient: which of A's parameters got a
  ``.grad``, and B's gradients;
- what the call left behind: A's ``requires_grad`` flags, whether A's parameters are the
  same tensors with the same bits (zeroing A's weights after computing the output is not
  stopping a gradient), whether every module of A is still in the mode it was in (an
  ``A.eval()`` "since A is not trained here" changes what its Dropout or BatchNorm does for
  the code that trains A later, though this A, without either, computes the same), and
  the gradients a plain ``B(A(x)).sum().backward()`` gives A afterwards (a forward hook returning ``o.detach()`` would make A untrainable forever).
"""

from __future__ import annotations

from typing import Any, Mapping

from graders.checker import (
    PASS, Described, Flags, RaisedRecord, Schema, Verdict, bools, errored, explain_raised, fail, first_failure,
    flag, items, sentence, tensor_verdict,
)

CHECKS = ("output", "a-no-grads", "b-grads", "a-left-alone")
CALL = "`forward_b_only(A, B, x)`"
A_NAMES = ("A[0].weight", "A[0].bias", "A[2].weight", "A[2].bias")


class Observations(Schema):
    raised: RaisedRecord | None = None
    out: Described | None = None
    a_in_graph: bool | None = None
    backward_raised: RaisedRecord | None = None
    a_grads: Flags | None = None
    b_grads: list[Described] | None = None
    a_flags: Flags | None = None
    a_same: bool | None = None
    a_unchanged: Flags | None = None
    a_modes_kept: Flags | None = None  # per module of A: still in the training mode it was in
    plain_raised: RaisedRecord | None = None
    a_grads_plain: list[Described] | None = None


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: one call, one backward pass, then a plain pass to see what was left behind."""
    from torch import nn

    from graders.checker import measure as M

    g = M.generator(seed)
    M.seed_global(seed)  # module initialisation draws from the global generator
    A = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 5))
    B = nn.Linear(5, 3)
    x = M.randn(8, 4, generator=g)
    a_params, b_params = M.parameters(A), M.parameters(B)
    a_bits = [M.bits(p) for p in a_params]
    a_modes = [(m, M.training(m)) for m in A.modules()]
    called = M.call(fn, A, B, x)
    if called.raised:
        return {"raised": called.raised.to_json()}
    out = called.value
    record: dict[str, Any] = {"out": M.describe(out)}
    if M.kind_of(out) == "tensor":
        leaves = M.graph_leaves(out)
        record["a_in_graph"] = any(M.contains(leaves, p) for p in a_params)
        backward = M.call(M.backward, out, M.randn(*M.shape(out), generator=g))
        if backward.raised:
            record["backward_raised"] = backward.raised.to_json()
    record["a_grads"] = [M.grad(p) is not None for p in a_params]
    record["b_grads"] = [M.describe(M.grad(p)) for p in b_params]
    record["a_flags"] = [M.requires_grad(p) for p in a_params]
    after = M.parameters(A)
    record["a_same"] = len(after) == len(a_params) and all(p is q for p, q in zip(after, a_params))
    record["a_unchanged"] = [M.bits(p) == bits for p, bits in zip(a_params, a_bits)]
    record["a_modes_kept"] = [M.training(m) == mode for m, mode in a_modes]
    return record | _plain_pass(A, B, x, a_params, b_params, M)


def _plain_pass(A: Any, B: Any, x: Any, a_params: Any, b_params: Any, M: Any) -> dict[str, Any]:
    """A plain forward and backward through A and B after the call: A must still learn."""
    for p in (*a_params, *b_params):
        M.clear_grad(p)
    plain = M.call(lambda: M.backward(B(A(x)).sum()))
    if plain.raised:
        return {"plain_raised": plain.raised.to_json()}
    return {"a_grads_plain": [M.describe(M.grad(p)) for p in a_params]}


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    if got.get("raised"):
        return dict.fromkeys(CHECKS, errored(got["raised"], CALL))
    backward = _backward_failed(got)
    return {
        "output": tensor_verdict(got["out"], ref["out"]),
        "a-no-grads": backward or _a_no_grads(got),
        "b-grads": backward or _b_grads(got, ref),
        "a-left-alone": _left_alone(got, ref),
    }


def _backward_failed(got: Mapping[str, Any]) -> Verdict | None:
    raised = got.get("backward_raised")
    if raised is None and got["out"].get("type") == "tensor":
        return None
    if raised is None:
        return fail(f"{CALL} did not return a tensor, so nothing could be backpropagated.")
    return fail(sentence(explain_raised(raised, "`z.backward(g)` on your output")) + " B's parameters must still get gradients.")


def _a_no_grads(got: Mapping[str, Any]) -> Verdict:
    if flag(got, "a_in_graph"):
        return fail("A's parameters are in the graph of your output, so `z.backward(g)` computes their gradients (even if "
                    "something throws them away afterwards). Cut the graph between A and B, as `B(A(x).detach())` does (§5).")
    grads = bools(got, "a_grads")
    if any(grads):
        return fail(f"After `z.backward(g)`, {sum(grads)} of A's {len(grads)} parameters have a .grad; expected None for all of them: "
                    "the gradient must stop between A and B.")
    return PASS


def _b_grads(got: Mapping[str, Any], ref: Mapping[str, Any]) -> Verdict:
    names = ("B.weight.grad", "B.bias.grad")
    mine, theirs = items(got, "b_grads", len(names)), items(ref, "b_grads", len(names))
    return first_failure(tensor_verdict(m, r, ("shape", "dtype", "values"), f"For `{n}`: ") for n, m, r in zip(names, mine, theirs))


def _left_alone(got: Mapping[str, Any], ref: Mapping[str, Any]) -> Verdict:
    flags = bools(got, "a_flags")
    if not all(flags):
        return fail(f"{len(flags) - sum(flags)} of A's parameters now have requires_grad=False; expected A's flags untouched "
                    "(stop the gradient in the forward pass instead, §5).")
    if not flag(got, "a_same") or not all(bools(got, "a_unchanged")):
        return fail(f"{CALL} changed A's parameters; expected them to be the same tensors with the same values "
                    "(stopping a gradient must not touch the module).")
    if got.get("a_modes_kept") is not None and not all(bools(got, "a_modes_kept")):
        return fail(f"{CALL} switched A (or a module inside it) out of training mode; expected A left in the mode it "
                    "was in: `A.eval()` changes what a Dropout or a BatchNorm in A does for the code that trains A "
                    "later, and `detach()` alone already stops the gradient.")
    if got.get("plain_raised"):
        return fail(sentence(explain_raised(got["plain_raised"], "A plain `B(A(x)).sum().backward()` after your function")))
    pairs = zip(A_NAMES, items(got, "a_grads_plain", len(A_NAMES)), items(ref, "a_grads_plain", len(A_NAMES)))
    left = first_failure(tensor_verdict(m, r, ("shape", "dtype", "values"), f"For `{n}.grad`: ") for n, m, r in pairs)
    if left.passed:
        return PASS
    return fail("After your function, a plain `B(A(x)).sum().backward()` no longer gives A its gradients: something was "
                f"left behind (a hook?), and A could never be trained again. {left.feedback}")
