"""``freeze(module)``: after it, training never changes the module, nor computes its gradients.

The child builds ``model = Sequential(U, A, B)`` and calls ``freeze(A)``, then trains with an
optimizer over ALL of the model's parameters, in four set-ups: SGD with momentum and
weight decay, the same with ``zero_grad(set_to_none=False)`` in the loop, AdamW, and SGD
on a model whose parameters already hold gradients from an earlier backward pass
(``requires_grad_(False)`` does not clear those). In each it measures whether A's
parameters are in the loss's graph (their gradients computed at all), whether they are
still A's and bit-identical, whether their ``.grad`` is None, and the parameters of U and
B after the first step. U is there because a frozen module is not always first: a
"freeze" that cuts the graph at A's output (a forward hook returning ``output.detach()``)
keeps A still and B training, and stops U, whose gradients all pass through A. A fifth set-up has a BatchNorm inside A: its running statistics must stay
fixed while the model trains (``A.eval()``; the loop does not call ``model.train()``), and
A, as the training loop runs it, must compute on a probe batch what it computed in
evaluation mode before the freeze: a BatchNorm told to stop tracking its statistics
(``track_running_stats = False``) keeps its buffers unchanged but, in training mode,
normalises with each batch's own statistics, so the "frozen" module computes something else.

A hook that zeroes or drops A's gradients is not a freeze: the gradients are still
computed, and a zero gradient is not None, so weight decay and momentum move A.
"""

from __future__ import annotations

from typing import Any, Mapping

from graders.checker import (
    PASS, Described, Flags, Malformed, RaisedRecord, Schema, Verdict, bools, errored, fail, field, first_failure,
    flag, items, tensor_verdict,
)

CHECKS = ("frozen-sgd", "frozen-adamw", "no-grads", "stale-grads", "stats-fixed", "rest-trains")
CALL = "`freeze(A)`"
SETUPS = ("sgd", "keep-grads", "adamw", "stale", "batchnorm")
STEPS = 3
REST_NAMES = ("U.weight", "U.bias", "B.weight", "B.bias")  # what must keep training


class Setup(Schema):
    raised: RaisedRecord | None = None
    a_same: bool | None = None
    a_in_graph: bool | None = None
    a_unchanged: Flags | None = None
    a_grads_none: Flags | None = None
    stats_unchanged: Flags | None = None
    computes_as_before: bool | None = None
    rest_after_first_step: list[Described] | None = None


class Observations(Schema):
    setups: dict[str, Setup]


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: freeze and train in each set-up, then the measurements."""
    from graders.checker import measure as M

    return {"setups": {name: _train(fn, seed, name, M) for name in SETUPS}}


def _train(fn: Any, seed: int, setup: str, M: Any) -> dict[str, Any]:
    model, A, X, Y = _model(seed, setup == "batchnorm", M)
    if setup == "stale":
        M.backward(_loss(model, X, Y))
    rest = M.parameters(model[0]) + M.parameters(model[2])
    a_params, a_buffers = M.parameters(A), M.buffers(A)
    a_bits, stats = [M.bits(p) for p in a_params], [M.bits(b) for b in a_buffers]
    probe = M.randn(5, 4, generator=M.generator(seed + 1))
    before = _output(A, probe, M, evaluate=True)
    called = M.call(fn, A)
    if called.raised:
        return {"raised": called.raised.to_json()}
    after = M.parameters(A)
    record: dict[str, Any] = {"a_same": len(after) == len(a_params) and all(p is q for p, q in zip(after, a_params))}
    opt = _optimizer(setup, model)
    for step in range(STEPS):
        trained = M.call(_step, model, X, Y, opt, setup, M)
        if trained.raised:
            return {"raised": trained.raised.to_json()}
        if step == 0:
            record["a_in_graph"] = trained.value
            record["rest_after_first_step"] = [M.describe(p) for p in rest]
    record["a_unchanged"] = [M.bits(p) == bits for p, bits in zip(a_params, a_bits)]
    record["a_grads_none"] = [M.grad(p) is None for p in a_params]
    record["stats_unchanged"] = [M.bits(b) == bits for b, bits in zip(a_buffers, stats)]
    now = M.call(_output, A, probe, M, evaluate=False)
    if now.raised:
        return {"raised": now.raised.to_json()}
    record["computes_as_before"] = now.value == before
    return record


def _output(A: Any, probe: Any, M: Any, evaluate: bool) -> bytes:
    """A's output on ``probe``, without a gradient: in evaluation mode (A's modes restored
    after) or in the modes A is in."""
    modes = [(m, M.training(m)) for m in A.modules()]
    if evaluate:
        A.eval()
    try:
        with M.no_grad():
            return M.bits(A(probe))
    finally:
        for m, mode in modes:
            m.training = mode


def _model(seed: int, batchnorm: bool, M: Any) -> tuple[Any, Any, Any, Any]:
    from torch import nn

    M.seed_global(seed)  # module initialisation draws from the global generator
    inner = [nn.Linear(4, 6), nn.BatchNorm1d(6)] if batchnorm else [nn.Linear(4, 6)]
    A = nn.Sequential(*inner, nn.Tanh(), nn.Linear(6, 6))
    model = nn.Sequential(nn.Linear(4, 4), A, nn.Linear(6, 2))  # U, A, B
    g = M.generator(seed)
    return model, A, M.randn(16, 4, generator=g), M.randn(16, 2, generator=g)


def _loss(model: Any, X: Any, Y: Any) -> Any:
    return ((model(X) - Y) ** 2).mean()


def _optimizer(setup: str, model: Any) -> Any:
    import torch

    if setup == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
    return torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)


def _step(model: Any, X: Any, Y: Any, opt: Any, setup: str, M: Any) -> bool:
    """One training step; whether A's parameters were in the loss's graph."""
    # The stale set-up clears gradients after the step, so the first step uses the old ones.
    if setup == "keep-grads":
        opt.zero_grad(set_to_none=False)
    elif setup != "stale":
        opt.zero_grad()
    loss = _loss(model, X, Y)
    leaves = M.graph_leaves(loss)
    in_graph = any(M.contains(leaves, p) for p in M.parameters(model[1]))
    M.backward(loss)
    opt.step()
    if setup == "stale":
        opt.zero_grad()
    return in_graph


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    mine, theirs = _setups(got), _setups(ref)
    raised = next((mine[s]["raised"] for s in SETUPS if mine[s].get("raised")), None)
    if raised is not None:
        return dict.fromkeys(CHECKS, errored(raised, f"{CALL}, or training the model after it,"))
    return {
        "frozen-sgd": first_failure([_frozen(mine["sgd"], "SGD with momentum and weight decay"),
                                     _frozen(mine["keep-grads"], "SGD with `zero_grad(set_to_none=False)` in the loop")]),
        "frozen-adamw": _frozen(mine["adamw"], "AdamW"),
        "no-grads": first_failure(_no_grads(mine[s], s) for s in ("sgd", "keep-grads", "adamw")),
        "stale-grads": _frozen(mine["stale"], "SGD, on a model whose parameters already had gradients,"),
        "stats-fixed": _stats(mine["batchnorm"]),
        "rest-trains": first_failure(_rest(mine[s], theirs[s], s) for s in ("sgd", "adamw")),
    }


def _setups(data: Mapping[str, Any]) -> dict[str, Any]:
    setups = field(data, "setups", dict)
    if not all(isinstance(setups.get(name), dict) for name in SETUPS):
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
    if flag(record, "a_in_graph"):
        return fail(f"In training ({setup}), A's parameters are in the loss's graph: their gradients are computed at full "
                    "cost, whatever happens to them afterwards. Switch them off with `requires_grad_(False)`.")
    none = bools(record, "a_grads_none")
    if not all(none):
        return fail(f"After training ({setup}), {none.count(False)} of A's parameters have a .grad; expected None. "
                    "A zero gradient is still a gradient: weight decay and momentum move the parameter.")
    return PASS


def _stats(record: dict[str, Any]) -> Verdict:
    # Parameters that moved change the outputs too: that is frozen-sgd's failure, not this one.
    if record.get("computes_as_before") is False and all(bools(record, "a_unchanged")):
        return fail(f"As the model trains, the frozen module does not compute what it computed before {CALL}: a "
                    "BatchNorm that stops tracking its running statistics (`track_running_stats = False`) normalises "
                    "with each batch's own statistics instead. Keep the statistics, fixed, and use them: "
                    "`module.eval()`.")
    unchanged = bools(record, "stats_unchanged")
    if not all(unchanged):
        return fail(f"A BatchNorm inside the frozen module updated {unchanged.count(False)} of its {len(unchanged)} running "
                    "statistics while the model trained: no way of stopping gradients stops them. Put the module in "
                    "evaluation mode (`module.eval()`); and note that a later `model.train()` switches it back.")
    return PASS


def _rest(mine: dict[str, Any], theirs: dict[str, Any], setup: str) -> Verdict:
    count = len(REST_NAMES)
    pairs = zip(REST_NAMES, items(mine, "rest_after_first_step", count), items(theirs, "rest_after_first_step", count))
    return first_failure(tensor_verdict(m, r, ("shape", "dtype", "values"), f"For `{n}` after the first {setup} step: ") for n, m, r in pairs)
