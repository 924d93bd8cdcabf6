"""``unfreeze(model, optimizer, module, lr)``: a frozen module starts training, nothing else is reset.

The child builds ``model = Sequential(A, Tanh(), B)`` with A frozen (``requires_grad_(False)``)
and left out of the optimizer (SGD with momentum over B only), trains two steps (B's
momentum buffers fill up), calls the learner's function with ``lr=0.05``, then trains two
more steps with the same optimizer object. Each check is measured on its own, so that
one mistake costs one check: whether A's parameters require grad and move; A's values
after the first step (which depend only on the gradient and A's learning rate); whether
B's momentum buffers are the same bits after the call as before it; and the optimizer's
parameter groups (A's parameters in exactly one group, with the learning rate asked for,
B's group untouched).
"""

from __future__ import annotations

from typing import Annotated, Any, Mapping

from pydantic import Field

from graders.checker import (
    PASS, Described, Flags, RaisedRecord, Schema, Verdict, bools, errored, fail, first_failure, items,
    tensor_verdict,
)

CHECKS = ("a-trains", "a-learning-rate", "b-keeps-momentum", "one-optimizer")
CALL = "`unfreeze(model, optimizer, A, lr)`"
LR_A, LR_B = 0.05, 0.1
A_NAMES, B_NAMES = ("A.weight", "A.bias"), ("B.weight", "B.bias")
VALUES = ("shape", "dtype", "values")


class Observations(Schema):
    raised: RaisedRecord | None = None
    a_flags: Flags | None = None
    a_moved: Flags | None = None
    a_after_first: list[Described] | None = None
    b_momentum_kept: Flags | None = None
    groups_with_a: Annotated[int, Field(ge=0, le=64)] | None = None
    a_group_lr: float | None = None
    b_group_lr: float | None = None


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: train with A frozen, unfreeze it, train again, measure."""
    import torch
    from torch import nn

    from graders.checker import measure as M

    M.seed_global(seed)
    A, B = nn.Linear(4, 6), nn.Linear(6, 2)
    model = nn.Sequential(A, nn.Tanh(), B)
    A.requires_grad_(False)
    opt = torch.optim.SGD(B.parameters(), lr=LR_B, momentum=0.9)
    g = M.generator(seed)
    X, Y = M.randn(8, 4, generator=g), M.randn(8, 2, generator=g)
    _train(model, opt, X, Y, M)
    a_params, b_params = M.parameters(A), M.parameters(B)
    a_bits = [M.bits(p) for p in a_params]
    momentum = [M.bits(_buffer(opt, p)) for p in b_params]
    called = M.call(fn, model, opt, A, LR_A)
    if called.raised:
        return {"raised": called.raised.to_json()}
    record: dict[str, Any] = {"a_flags": [M.requires_grad(p) for p in a_params]}
    record["b_momentum_kept"] = [_kept(opt, p, bits, M) for p, bits in zip(b_params, momentum)]
    record |= _groups(opt, a_params, b_params)
    first = M.call(_train, model, opt, X, Y, M, 1)
    if first.raised:
        return {"raised": first.raised.to_json()}
    record["a_after_first"] = [M.describe(p) for p in a_params]
    more = M.call(_train, model, opt, X, Y, M, 1)
    if more.raised:
        return {"raised": more.raised.to_json()}
    record["a_moved"] = [M.bits(p) != bits for p, bits in zip(a_params, a_bits)]
    return record


def _buffer(opt: Any, p: Any) -> Any:
    return opt.state[p]["momentum_buffer"]


def _kept(opt: Any, p: Any, bits: bytes, M: Any) -> bool:
    state = opt.state.get(p) if isinstance(opt.state, dict) else None
    buffer = state.get("momentum_buffer") if isinstance(state, dict) else None
    return M.kind_of(buffer) == "tensor" and M.bits(buffer) == bits


def _train(model: Any, opt: Any, X: Any, Y: Any, M: Any, steps: int = 2) -> None:
    for _ in range(steps):
        opt.zero_grad()
        M.backward(((model(X) - Y) ** 2).mean())
        opt.step()


def _groups(opt: Any, a_params: tuple[Any, ...], b_params: tuple[Any, ...]) -> dict[str, Any]:
    groups = [g for g in opt.param_groups if isinstance(g, dict) and isinstance(g.get("params"), list)]
    with_a = [g for g in groups if any(p is a for p in g["params"] for a in a_params)]
    with_b = [g for g in groups if any(p is b for p in g["params"] for b in b_params)]
    record: dict[str, Any] = {"groups_with_a": len(with_a)}
    if len(with_a) == 1 and type(with_a[0].get("lr")) is float:
        record["a_group_lr"] = with_a[0]["lr"]
    if len(with_b) == 1 and type(with_b[0].get("lr")) is float:
        record["b_group_lr"] = with_b[0]["lr"]
    return record


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    if got.get("raised"):
        return dict.fromkeys(CHECKS, errored(got["raised"], f"{CALL}, or training after it,"))
    return {
        "a-trains": _a_trains(got),
        "a-learning-rate": first_failure(_values(got, ref, "a_after_first", A_NAMES)),
        "b-keeps-momentum": _b_momentum(got),
        "one-optimizer": _one_optimizer(got),
    }


def _a_trains(got: Mapping[str, Any]) -> Verdict:
    if not all(bools(got, "a_flags", 2)):
        return fail("After your function, A's parameters still have requires_grad=False: nothing computes their gradients.")
    if not all(bools(got, "a_moved", 2)):
        return fail("A's parameters did not change while the model trained: the optimizer does not know about them "
                    "(`optimizer.add_param_group({'params': ..., 'lr': lr})`).")
    return PASS


def _values(got: Mapping[str, Any], ref: Mapping[str, Any], key: str, names: tuple[str, ...]) -> list[Verdict]:
    pairs = zip(names, items(got, key, len(names)), items(ref, key, len(names)))
    return [tensor_verdict(m, r, VALUES, f"For `{n}` after the first step: ") for n, m, r in pairs]


def _b_momentum(got: Mapping[str, Any]) -> Verdict:
    if all(bools(got, "b_momentum_kept", len(B_NAMES))):
        return PASS
    return fail("After your function, B's momentum buffers are gone or changed: the optimizer state of the parameters "
                "that were already training must be kept. Add A to the existing optimizer; a new optimizer, or a "
                "cleared state, starts B's momentum from zero.")


def _one_optimizer(got: Mapping[str, Any]) -> Verdict:
    count = got.get("groups_with_a")
    if count != 1:
        return fail(f"A's parameters are in {count} of the optimizer's parameter groups; expected exactly one group of its own.")
    if got.get("a_group_lr") != LR_A:
        return fail(f"A's parameter group has lr={got.get('a_group_lr')}; expected the lr you were given ({LR_A}).")
    if got.get("b_group_lr") != LR_B:
        return fail(f"B's parameter group now has lr={got.get('b_group_lr')}; expected it unchanged ({LR_B}).")
    return PASS
