"""A child task that runs a learner's source the way a harness would.

Payload: ``{"source": str, "args": dict}``. The source runs in a fresh namespace where
``args`` is defined; whatever it leaves in ``result`` is returned as ``{"result": ...}``.
"""

from __future__ import annotations

from typing import Any


def task(payload: dict[str, Any]) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "__learner__", "args": payload.get("args", {})}
    exec(compile(payload["source"], "<learner>", "exec"), namespace)
    return {"result": namespace.get("result")}
