"""``freeze(module)`` (supplement): after it, training never changes the module, nor gives it grads.

The child builds ``model = Sequential(A, B)`` and calls ``freeze(A)``, then trains with an
optimizer over ALL of the model's parameters, in three set-ups: SGD with momentum and
weight decay, AdamW, and SGD on a model whose parameters already hold gradients from an
earlier backward pass (``requires_grad_(False)`` does not clear those). It measures
whether A's original parameters are still in A and bit-identical, whether their ``.grad``
is None, and B's parameters after the first step.

A hook that zeroes A's gradients is not a freeze: the gradients are zero tensors, not None,
so the optimizer still applies weight decay and momentum to A.
"""

from __future__ import annotations

from typing import Any, Mapping

from .verdicts import PASS, Malformed, Verdict, bools, errored, fail, first_failure, flag, items, tensor_verdict

CHECKS = ("frozen-sgd", "frozen-adamw", "no-grads", "stale-grads", "rest-trains")
CALL = "`freeze(A)`"
SETUPS = ("sgd", "adamw", "stale")
STEPS = 3
B_NAMES = ("B.weight", "B.bias")


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: freeze and train in each set-up, then the measurements."""
    setups = {}
    for name in SETUPS:
        record = _train(fn, seed, name)
        if "raised" in record:
            return record
        setups[name] = record
    return {"setups": setups}


def _train(fn: Any, seed: int, setup: str) -> dict[str, Any]:
    from . import pristine as P
    from .calls import call

    model, A, X, Y = _model(seed, P)
    if setup == "stale":
        P.backward(_loss(model, X, Y))
    a_params, b_params = P.parameters(A), P.parameters(model[1])
    a_bits = tuple(P.bits(p) for p in a_params)
    called = call(fn, A)
    if called.raised:
        return {"raised": called.raised.to_json()}
    after = P.parameters(A)
    record: dict[str, Any] = {"a_same": len(after) == len(a_params) and all(p is q for p, q in zip(after, a_params))}
    opt = _optimizer(setup, model)
    for step in range(STEPS):
        trained = call(_step, model, X, Y, opt, setup)
        if trained.raised:
            return {"raised": trained.raised.to_json()}
        if step == 0:
            record["b_after_first_step"] = [P.describe(p) for p in b_params]
    record["a_unchanged"] = [P.bits(p) == bits for p, bits in zip(a_params, a_bits)]
    record["a_grads_none"] = [P.grad(p) is None for p in a_params]
    return record


def _model(seed: int, P: Any) -> tuple[Any, Any, Any, Any]:
    from torch import nn

    P.seed_global(seed)  # module initialisation draws from the global generator
    A = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 6))
    model = nn.Sequential(A, nn.Linear(6, 2))
    g = P.generator(seed)
    return model, A, P.randn(16, 4, generator=g), P.randn(16, 2, generator=g)


def _loss(model: Any, X: Any, Y: Any) -> Any:
    return ((model(X) - Y) ** 2).mean()


def _optimizer(setup: str, model: Any) -> Any:
    import torch

    if setup == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
    return torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)


def _step(model: Any, X: Any, Y: Any, opt: Any, setup: str) -> None:
    from . import pristine as P

    # The stale set-up clears gradients after the step, so the first step uses the old ones.
    if setup != "stale":
        opt.zero_grad()
    P.backward(_loss(model, X, Y))
    opt.step()
    if setup == "stale":
        opt.zero_grad()


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    if "raised" in got:
        return dict.fromkeys(CHECKS, errored(got["raised"], f"{CALL}, or training the model after it,"))
    mine, theirs = _setups(got), _setups(ref)
    return {
        "frozen-sgd": _frozen(mine["sgd"], "SGD with momentum and weight decay"),
        "frozen-adamw": _frozen(mine["adamw"], "AdamW"),
        "no-grads": first_failure(_no_grads(mine[s], s) for s in ("sgd", "adamw")),
        "stale-grads": _frozen(mine["stale"], "SGD, on a model whose parameters already had gradients,"),
        "rest-trains": first_failure(_rest(mine[s], theirs[s], s) for s in ("sgd", "adamw")),
    }


def _setups(data: Mapping[str, Any]) -> dict[str, Any]:
    setups = data.get("setups")
    if not isinstance(setups, dict) or not all(isinstance(setups.get(s), dict) for s in SETUPS):
        raise Malformed("setups")
    return setups


def _frozen(record: dict[str, Any], how: str) -> Verdict:
    if not flag(record, "a_same"):
        return fail(f"{CALL} replaced A's parameters with other tensors; expected the same parameters, frozen in place.")
    unchanged = bools(record, "a_unchanged")
    if not all(unchanged):
        return fail(f"After {STEPS} steps of {how} over all parameters, {unchanged.count(False)} of A's {len(unchanged)} "
                    "parameters changed; expected them bit-identical.")
    return PASS


def _no_grads(record: dict[str, Any], setup: str) -> Verdict:
    if not flag(record, "a_same"):
        return fail(f"{CALL} replaced A's parameters with other tensors; expected A's own parameters to get no gradient.")
    none = bools(record, "a_grads_none")
    if not all(none):
        return fail(f"After training ({setup}), {none.count(False)} of A's parameters have a .grad; expected None. "
                    "A zero gradient is still a gradient: weight decay and momentum move the parameter.")
    return PASS


def _rest(mine: dict[str, Any], theirs: dict[str, Any], setup: str) -> Verdict:
    pairs = zip(B_NAMES, items(mine, "b_after_first_step", 2), items(theirs, "b_after_first_step", 2))
    return first_failure(tensor_verdict(m, r, ("shape", "dtype", "values"), f"For `{n}` after the first {setup} step: ") for n, m, r in pairs)
