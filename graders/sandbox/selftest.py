"""A small real task for smoke checks and the latency benchmark: one autograd step.

``Job("graders.sandbox.selftest:autograd", {"values": [1.0, 2.0]})`` returns the gradient
of ``sum(x * x)``, i.e. ``2 * x``, computed by torch in the child.
"""

from __future__ import annotations

from typing import Any


def autograd(payload: dict[str, Any]) -> dict[str, Any]:
    """``{"grad": [...]}`` for ``x = tensor(payload["values"])`` and ``y = (x * x).sum()``."""
    import torch

    x = torch.tensor(payload["values"], requires_grad=True)
    (x * x).sum().backward()  # type: ignore[no-untyped-call]
    assert x.grad is not None
    return {"grad": x.grad.tolist()}
