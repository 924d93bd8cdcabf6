"""The keeper vets what a code exercise's sandbox child returns (``vet_returned``).

The child (``child/task.py``) ran learner code; what it wrote back is only a claim. This
module runs in the sandbox's keeper, a process that never runs learner code, and holds the
claim to the one shape the task writes (a ``status`` and its fields) and, for observations,
to the checker's ``Observations`` model. Anything else is a ``ValueError``, which the keeper
reports as a malformed result — never as a pass.

    Job(task="graders.kinds.code.child.task:run",
        check="graders.kinds.code.returned:vet_returned")
"""

from __future__ import annotations

import sys
from typing import Any

from ...checker.schema import validated
from .child.learner import REFUSED_KINDS

STATUSES: dict[str, dict[str, type]] = {
    "ok": {"observations": dict},
    "invalid": {},
    "error": {},
    "integrity": {"reasons": list},
}


def vet_returned(payload: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """Keeper side: ``result`` has the shape ``run`` writes and the checker's ``Observations``,
    or ``ValueError``. Runs in the keeper, which never ran learner code."""
    status = result.get("status")
    if status not in STATUSES:
        raise ValueError("the result has no status the checker writes")
    for key, kind in STATUSES[status].items():
        if type(result.get(key)) is not kind:
            raise ValueError(f"a {status} result must hold {key}")
    if status == "integrity" and not all(type(r) is str for r in result["reasons"]):
        raise ValueError("reasons must be text")
    if status == "error" and "refused" in result:
        _vet_refused(result["refused"])
    model = getattr(sys.modules[str(payload["checker"])], "Observations", None)
    if status == "ok" and model is not None:
        return {**result, "observations": validated(model, result["observations"])}
    return result


def _vet_refused(records: Any) -> None:
    if type(records) is not list or not 0 < len(records) <= 10:
        raise ValueError("refused must be a short list")
    for record in records:
        if (
            type(record) is not dict
            or set(record) != {"kind", "name", "line"}
            or record["kind"] not in REFUSED_KINDS
            or type(record["name"]) is not str
            or len(record["name"]) > 200
            or not (record["line"] is None or type(record["line"]) is int)
        ):
            raise ValueError("a refusal is {kind, name, line}")
