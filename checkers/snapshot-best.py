"""``snapshot(model) -> dict``: a copy of the model's state that later training leaves alone.

``model.state_dict()`` holds the very tensors of the parameters and buffers (it shares
their storage): a "best" checkpoint taken that way silently follows training. The child
builds a small model with a BatchNorm (so it has buffers), trains it one step, takes the
learner's snapshot, then trains three more steps with SGD and momentum, and measures, key
by key of the model's own ``state_dict()``: whether the snapshot holds the key with the
same bits at the moment it was taken, whether those bits are unchanged after training,
and whether ``model.load_state_dict(snapshot)`` then puts the model back exactly. Last, it
trains again and takes a second snapshot: the first must still hold what it held (one
dict or one set of tensors reused for every call makes the "best" snapshot follow the
latest one, which no single call shows).
"""

from __future__ import annotations

from typing import Annotated, Any, Mapping

from pydantic import Field

from graders.checker import (
    PASS, Flags, RaisedRecord, Schema, Verdict, bools, errored, explain_raised, fail, field, first_failure, sentence,
)

CHECKS = ("same-state", "buffers", "unchanged-after-training", "restores")
CALL = "`snapshot(model)`"
STEPS = 3
Key = Annotated[str, Field(max_length=80)]


class Observations(Schema):
    raised: RaisedRecord | None = None
    keys: Annotated[list[Key], Field(max_length=32)]
    buffer_keys: Annotated[list[Key], Field(max_length=32)]
    a_dict: bool | None = None
    extra_keys: Annotated[int, Field(ge=0)] | None = None
    present: Flags | None = None
    same_at_snapshot: Flags | None = None
    unchanged: Flags | None = None
    restore_raised: RaisedRecord | None = None
    restored: Flags | None = None
    # Per key: does the first snapshot still hold its bits after a second call of snapshot()?
    kept_after_second: Flags | None = None
    second_raised: RaisedRecord | None = None  # the second call of snapshot() raised


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: snapshot a trained model, train it further, restore the snapshot."""
    from collections import OrderedDict

    from torch import nn

    from graders.checker import measure as M

    M.seed_global(seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
    g = M.generator(seed)
    X, Y = M.randn(8, 3, generator=g), M.randn(8, 2, generator=g)
    opt = _optimizer(model)
    _train(model, opt, X, Y, 1, M)
    state = OrderedDict(model.state_dict())  # taken before any learner code runs on this model
    keys = list(state)
    buffer_keys = [k for k, _ in model.named_buffers()]
    at_snapshot = {k: M.bits(v) for k, v in state.items()}
    record: dict[str, Any] = {"keys": keys, "buffer_keys": buffer_keys}
    called = M.call(fn, model)
    if called.raised:
        return record | {"raised": called.raised.to_json()}
    snap = called.value
    record["a_dict"] = type(snap) in (dict, OrderedDict) and all(type(k) is str for k in dict.keys(snap))
    if not record["a_dict"]:
        return record
    copy = {k: dict.__getitem__(snap, k) for k in keys if dict.__contains__(snap, k)}
    record["extra_keys"] = len([k for k in dict.keys(snap) if k not in at_snapshot])
    record["present"] = [k in copy and M.kind_of(copy[k]) == "tensor" for k in keys]
    record["same_at_snapshot"] = [ok and M.bits(copy[k]) == at_snapshot[k] for k, ok in zip(keys, record["present"])]
    _train(model, opt, X, Y, STEPS, M)
    # A key the snapshot lacks is same-state's to report: here only what it holds counts.
    record["unchanged"] = [not ok or M.bits(copy[k]) == at_snapshot[k] for k, ok in zip(keys, record["present"])]
    loaded = M.call(model.load_state_dict, snap)
    if loaded.raised:
        return record | {"restore_raised": loaded.raised.to_json()}
    now = model.state_dict()
    record["restored"] = [M.bits(now[k]) == at_snapshot[k] for k in keys]
    return record | _second_snapshot(fn, model, opt, X, Y, snap, keys, at_snapshot, M)


def _second_snapshot(
    fn: Any, model: Any, opt: Any, X: Any, Y: Any, snap: Any, keys: list[str], at_snapshot: dict[str, bytes], M: Any
) -> dict[str, Any]:
    """Train on from the restored state and snapshot again: is the first snapshot, read anew
    from the dict the learner returned, still what it was?"""
    _train(model, opt, X, Y, STEPS, M)
    second = M.call(fn, model)
    if second.raised:
        return {"second_raised": second.raised.to_json()}
    kept = []
    for k in keys:
        value = dict.__getitem__(snap, k) if dict.__contains__(snap, k) else None
        kept.append(value is None or M.kind_of(value) != "tensor" or M.bits(value) == at_snapshot[k])
    return {"kept_after_second": kept}


def _optimizer(model: Any) -> Any:
    import torch

    return torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def _train(model: Any, opt: Any, X: Any, Y: Any, steps: int, M: Any) -> None:
    model.train()
    for _ in range(steps):
        opt.zero_grad()
        M.backward(((model(X) - Y) ** 2).mean())
        opt.step()


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    keys, buffers = field(ref, "keys", list), field(ref, "buffer_keys", list)
    if got.get("raised"):
        return dict.fromkeys(CHECKS, errored(got["raised"], CALL))
    if not got.get("a_dict"):
        return dict.fromkeys(CHECKS, fail(f"{CALL} must return a dict of tensors keyed by name, as `state_dict()` is."))
    present = dict(zip(keys, bools(got, "present", len(keys))))
    return {
        "same-state": _same_state(keys, got, present),
        "buffers": _buffers(buffers, got, present),
        "unchanged-after-training": first_failure([_unchanged(keys, got), _kept(keys, got)]),
        "restores": _restores(got, len(keys)),
    }


def _same_state(keys: list[str], got: Mapping[str, Any], present: dict[str, bool]) -> Verdict:
    missing = [k for k in keys if not present[k]]
    if missing:
        return fail(f"Your snapshot lacks `{missing[0]}` (or does not hold a tensor for it); expected every key of `state_dict()`.")
    if field(got, "extra_keys", int):
        return fail("Your snapshot holds keys that `state_dict()` does not; expected exactly its keys.")
    wrong = [k for k, ok in zip(keys, bools(got, "same_at_snapshot", len(keys))) if not ok]
    if wrong:
        return fail(f"Your snapshot's `{wrong[0]}` differs from the model's at the time of the snapshot; expected a copy.")
    return PASS


def _buffers(buffers: list[str], got: Mapping[str, Any], present: dict[str, bool]) -> Verdict:
    missing = [k for k in buffers if not present.get(k)]
    if missing:
        return fail(f"Your snapshot lacks the buffer `{missing[0]}`: a model's state is its parameters and its buffers "
                    "(a BatchNorm's running statistics); `named_parameters()` has only the former.")
    return PASS


def _unchanged(keys: list[str], got: Mapping[str, Any]) -> Verdict:
    moved = [k for k, ok in zip(keys, bools(got, "unchanged", len(keys))) if not ok]
    if moved:
        return fail(f"After {STEPS} more training steps, your snapshot's `{moved[0]}` has changed: it shares memory with the "
                    f"model ({len(moved)} of {len(keys)} entries do). `state_dict()` returns the model's own tensors; copy "
                    "them (`copy.deepcopy`, or `clone()` each one).")
    return PASS


def _kept(keys: list[str], got: Mapping[str, Any]) -> Verdict:
    if got.get("second_raised"):
        return fail(sentence(explain_raised(got["second_raised"], f"A second call of {CALL}, after more training,"))
                    + " Expected a snapshot on every call.")
    if got.get("kept_after_second") is None:
        return PASS
    moved = [k for k, ok in zip(keys, bools(got, "kept_after_second", len(keys))) if not ok]
    if moved:
        return fail(f"A second call of `snapshot(model)`, after more training, changed your first snapshot's "
                    f"`{moved[0]}`: both snapshots are one dict, or share its tensors. Expected each call to return "
                    "a snapshot of its own, which later calls leave alone.")
    return PASS


def _restores(got: Mapping[str, Any], count: int) -> Verdict:
    if got.get("restore_raised"):
        return fail(sentence(explain_raised(got["restore_raised"], "`model.load_state_dict(your_snapshot)` after training")))
    if not all(bools(got, "restored", count)):
        return fail("After training, `model.load_state_dict(your_snapshot)` did not put the model back as it was when "
                    "the snapshot was taken.")
    return PASS
