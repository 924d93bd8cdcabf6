"""``log_cosh(x)``: log(cosh(x)) through a ``torch.autograd.Function`` of the learner's.

Inputs the learner never sees: a float32 vector (with 0 and a few values of either sign)
and a float64 matrix, both leaves that require grad. For each, the child measures the
output, whether the call changed ``x``, whether the output's ``grad_fn`` is the node of a
custom ``torch.autograd.Function`` (a ``BackwardCFunction``, read from the C type), and,
in ordinary use, ``x.grad`` after ``out.backward(g)`` for a seeded upstream gradient ``g``,
and whether ``g`` is as it was: the upstream gradient belongs to the caller (a ``backward``
that writes into ``grad_output`` in place overwrites it, and raises for the expanded
gradient of ``out.sum().backward()``), and ``x.grad`` alone cannot tell (it is that very
tensor, holding the right values).

Then, on a float64 vector: ``torch.autograd.gradcheck(log_cosh, (x,))``, which compares
the learner's backward with finite differences of the learner's forward, element by
element. A backward that ignores ``grad_output`` or uses the output instead of the input
fails it.

Last, what the Function saves. The forward and backward run under
``saved_tensors_hooks`` whose hooks count: ``forward`` must pass at least one tensor to
``ctx.save_for_backward`` (grad mode is off inside ``forward``, so nothing else there is
saved), and ``backward`` must read at least one back from ``ctx.saved_tensors``. Then,
outside the hooks, ``x`` (and, in another run, the output) is changed in place after the
forward pass: the backward must either raise autograd's version error or give the same
gradient as without the change. A tensor kept as an attribute of ``ctx`` gives a silently
wrong gradient there.
"""

from __future__ import annotations

from typing import Any, Mapping

from graders.checker import (
    PASS, Described, RaisedRecord, Schema, Verdict, errored, explain_raised, fail, field, first_failure, flag,
    items, sentence, tensor_verdict,
)

CHECKS = ("forward", "custom-function", "backward", "gradcheck", "saved-tensors")
CALL = "`log_cosh(x)`"
CASES = ("a float32 vector", "a float64 matrix")
FIXED = (0.0, -2.5, 4.0)  # a zero and values of either sign, in the float32 vector
STALE = "modified by an inplace operation"  # autograd's version error
GRADCHECK = "`torch.autograd.gradcheck(log_cosh, (x,))` on a float64 `x`"


class Case(Schema):
    raised: RaisedRecord | None = None
    out: Described | None = None
    input_changed: bool | None = None
    custom_node: bool | None = None
    backward_raised: RaisedRecord | None = None
    grad: Described | None = None
    upstream_changed: bool | None = None  # out.backward(g) changed the caller's g


class Gradcheck(Schema):
    raised: RaisedRecord | None = None
    passed: bool | None = None


class Changed(Schema):
    """A backward after an in-place change of a saved tensor: raised, or a gradient."""

    raised: RaisedRecord | None = None
    same_gradient: bool | None = None


class Saved(Schema):
    raised: RaisedRecord | None = None
    packed: int | None = None
    unpacked: int | None = None
    input_changed: Changed | None = None
    output_changed: Changed | None = None


class Observations(Schema):
    cases: list[Case]
    gradcheck: Gradcheck
    saved: Saved


def observe(fn: Any, seed: int) -> dict[str, Any]:
    """Child side: forward and ordinary backward per input, gradcheck, then the saved tensors."""
    import torch

    from graders.checker import measure as M

    g = M.generator(seed)
    # Everything drawn first, so that what the learner's code does changes no input.
    vector = torch.cat([torch.tensor(FIXED), M.randn(5, generator=g) * 3])
    matrix = M.randn(3, 4, generator=g, dtype=torch.float64) * 3
    inputs = [(vector, M.randn(8, generator=g)), (matrix, M.randn(3, 4, generator=g, dtype=torch.float64))]
    checked = M.randn(6, generator=g, dtype=torch.float64) * 2
    saved = M.randn(4, generator=g, dtype=torch.float64) * 2
    upstream = M.randn(4, generator=g, dtype=torch.float64)
    return {
        "cases": [_case(fn, values, up, M) for values, up in inputs],
        "gradcheck": _gradcheck(fn, checked, M),
        "saved": _saved(fn, saved, upstream, M),
    }


def _leaf(values: Any, M: Any) -> Any:
    return M.snapshot(values).requires_grad_(True)


def _case(fn: Any, values: Any, upstream: Any, M: Any) -> dict[str, Any]:
    x = _leaf(values, M)
    before = M.bits(x)
    called = M.call(fn, x)
    if called.raised:
        return {"raised": called.raised.to_json()}
    out = called.value
    record: dict[str, Any] = {"out": M.describe(out), "input_changed": M.bits(x) != before}
    if M.kind_of(out) != "tensor":
        return record
    record["custom_node"] = _custom_node(out)
    upstream_before = M.bits(upstream)
    done = M.call(M.backward, out, upstream)
    if done.raised:
        record["backward_raised"] = done.raised.to_json()
    else:
        record["grad"] = M.describe(M.grad(x))
        record["upstream_changed"] = M.bits(upstream) != upstream_before
    return record


def _custom_node(out: Any) -> bool:
    """Is ``out.grad_fn`` the backward node of a ``torch.autograd.Function``? (Read from the
    C getter and the node's type, which learner code cannot change.)"""
    import torch

    node = torch._C.TensorBase.__dict__["grad_fn"].__get__(out)
    return node is not None and torch.autograd.function.BackwardCFunction in type.__dict__["__mro__"].__get__(type(node))


def _gradcheck(fn: Any, values: Any, M: Any) -> dict[str, Any]:
    import torch

    x = _leaf(values, M)
    done = M.call(torch.autograd.gradcheck, fn, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
    if done.raised:
        return {"raised": done.raised.to_json()}
    return {"passed": done.value is True}


def _saved(fn: Any, values: Any, upstream: Any, M: Any) -> dict[str, Any]:
    """Count what forward saves and backward reads, then change a saved tensor in place."""
    import torch

    counts = {"packed": 0, "unpacked": 0}

    def pack(t: Any) -> Any:
        counts["packed"] += 1
        return t.detach()

    def unpack(t: Any) -> Any:
        counts["unpacked"] += 1
        return t

    x = _leaf(values, M)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        called = M.call(fn, x)
    if called.raised:
        return {"raised": called.raised.to_json()}
    if M.kind_of(called.value) != "tensor":
        return {"packed": counts["packed"], "unpacked": 0}
    packed = counts["packed"]
    done = M.call(M.gradient, called.value, (x,), upstream)
    if done.raised:
        return {"raised": done.raised.to_json()}
    record: dict[str, Any] = {"packed": packed, "unpacked": counts["unpacked"]}
    plain = _gradient_after(fn, values, upstream, None, M)
    if plain.get("raised") or plain.get("gradient") is None:
        return {"raised": plain["raised"]} if plain.get("raised") else record
    for which in ("input", "output"):
        changed = _gradient_after(fn, values, upstream, which, M)
        found = {"raised": changed["raised"]} if changed.get("raised") else {}
        if changed.get("gradient") is not None:
            found["same_gradient"] = M.same_values(changed["gradient"], plain["gradient"])
        record[f"{which}_changed"] = found
    return record


def _gradient_after(fn: Any, values: Any, upstream: Any, changed: str | None, M: Any) -> dict[str, Any]:
    """The gradient with respect to a fresh ``x``, after an in-place change of ``x`` or of the
    output between the forward and the backward pass (none when ``changed`` is None)."""
    x = _leaf(values, M)
    called = M.call(fn, x)
    if called.raised:
        return {"raised": called.raised.to_json()}
    out = called.value
    if M.kind_of(out) != "tensor":
        return {}
    if changed is not None:
        M.bump(x if changed == "input" else out)
    done = M.call(M.gradient, out, (x,), upstream)
    if done.raised:
        return {"raised": done.raised.to_json()}
    gradient = done.value[0]
    return {"gradient": gradient if M.kind_of(gradient) == "tensor" else None}


def judge(got: Mapping[str, Any], ref: Mapping[str, Any]) -> dict[str, Verdict]:
    """Parent side: one verdict per check."""
    pairs = list(zip(CASES, items(got, "cases", len(CASES)), items(ref, "cases", len(CASES))))
    for case, mine, _ in pairs:
        if mine.get("raised"):
            return dict.fromkeys(CHECKS, errored(mine["raised"], f"With {case} as `x`: {CALL}"))
        if flag(mine, "input_changed"):
            changed = f"With {case} as `x`: {CALL} changed `x`. It must return a new tensor and leave `x` as it was."
            return dict.fromkeys(CHECKS, fail(changed))
    custom = first_failure(_custom(c, m) for c, m, _ in pairs)
    return {
        "forward": first_failure(
            tensor_verdict(m["out"], r["out"], ("shape", "dtype", "values"), f"With {c} as `x`, against `torch.log(torch.cosh(x))`: ")
            for c, m, r in pairs
        ),
        "custom-function": custom,
        "backward": first_failure(_backward(c, m, r) for c, m, r in pairs),
        "gradcheck": _gradcheck_verdict(field(got, "gradcheck", dict)),
        "saved-tensors": custom if not custom.passed else _saved_verdict(field(got, "saved", dict)),
    }


def _tensor_out(case: str, mine: dict[str, Any]) -> Verdict | None:
    if mine["out"].get("type") != "tensor":
        return fail(f"With {case} as `x`: {CALL} returned no tensor. Return `LogCosh.apply(x)`.")
    return None


def _custom(case: str, mine: dict[str, Any]) -> Verdict:
    problem = _tensor_out(case, mine)
    if problem is not None:
        return problem
    if not flag(mine, "custom_node"):
        node = mine["out"].get("grad_fn")
        made = f"`grad_fn=<{node}>`, a node of torch's own operations" if node else "no `grad_fn`"
        return fail(f"With {case} as `x`: your output has {made}; expected the output of your "
                    "`torch.autograd.Function` itself (`return LogCosh.apply(x)`), whose `grad_fn` is the "
                    "Function's backward node.")
    return PASS


def _backward(case: str, mine: dict[str, Any], ref: dict[str, Any]) -> Verdict:
    problem = _tensor_out(case, mine)
    if problem is not None:
        return problem
    where = f"With {case} as `x`: "
    if mine.get("backward_raised"):
        return fail(where + sentence(explain_raised(mine["backward_raised"], "`out.backward(g)`")))
    if mine.get("upstream_changed") is True:
        return fail(f"{where}`out.backward(g)` changed `g`, the caller's tensor: your `backward` wrote into "
                    "`grad_output` in place. Return a new tensor (`grad_output * tanh(x)`) and leave "
                    "`grad_output` as it was.")
    return tensor_verdict(mine["grad"], ref["grad"], ("shape", "dtype", "values"),
                          f"{where}for `x.grad` after `out.backward(g)`, expected `g * tanh(x)`: ")


def _gradcheck_verdict(found: dict[str, Any]) -> Verdict:
    raised = found.get("raised")
    if raised and field(raised, "cls", str) == "GradcheckError":
        # Its message goes on with both Jacobians in full: the first line says what failed.
        what = field(raised, "message", str).splitlines()[0].strip().rstrip(",:")
        return fail(f"{GRADCHECK} failed: {what}. Your backward's gradient is not that of your forward, as "
                    "finite differences measure it: `backward` must return `grad_output * tanh(x)`.")
    if raised:
        return fail(sentence(explain_raised(raised, GRADCHECK)))
    if not flag(found, "passed"):
        return fail(f"{GRADCHECK} did not pass.")
    return PASS


def _saved_verdict(saved: dict[str, Any]) -> Verdict:
    if saved.get("raised"):
        return fail(sentence(explain_raised(saved["raised"], "Your Function, run forward and backward")))
    if field(saved, "packed", int) == 0:
        return fail("Your `forward` passed no tensor to `ctx.save_for_backward`. Save what `backward` needs "
                    "with it (not as an attribute of `ctx`), so that autograd checks it.")
    if field(saved, "unpacked", int) == 0:
        return fail("Your `backward` read nothing from `ctx.saved_tensors`. Read the tensors it needs from "
                    "there, where autograd has checked them.")
    for which, name in (("input", "`x`"), ("output", "the output")):
        changed = saved.get(f"{which}_changed")
        if not isinstance(changed, dict):
            continue
        raised = changed.get("raised")
        if raised:
            if STALE not in str(field(raised, "message", str)):
                return fail(sentence(explain_raised(raised, f"After an in-place change of {name} between the forward "
                                                            "and the backward pass, the backward")))
            continue
        if changed.get("same_gradient") is False:
            return fail(f"When {name} is changed in place between the forward and the backward pass, your "
                        "backward gives another gradient, without an error: it read a tensor that autograd "
                        "does not check. Save it with `ctx.save_for_backward` and read it from `ctx.saved_tensors`.")
    return PASS
