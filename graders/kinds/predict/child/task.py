"""Child-side task: run an exercise's setup and questions in torch, describe the outcomes.

This module runs inside a sandbox child
(``Job(task="graders.kinds.predict.child.task:compute")``), never in the grader's process:
a setup that crashes the interpreter only kills the child. Questions run in order in one
namespace, so a ``run`` can prepare the next ``expr``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ....answers.from_torch import describe, describe_exception
from ....answers.values import NoError, to_json

MAX_WARNINGS = 5


def compute(payload: dict[str, Any]) -> dict[str, Any]:
    """Payload: {seed, setup, questions: [{id, expr} | {id, run}]} -> truths per question."""
    import torch

    with _defaults_kept(torch):
        torch.manual_seed(int(payload.get("seed", 0)))
        namespace: dict[str, Any] = {"__name__": "__exercise__"}
        setup_error = _run_setup(payload.get("setup", ""), namespace)
        if setup_error is not None:
            return {"setup_error": setup_error, "questions": {}}
        return {
            "setup_error": None,
            "questions": {q["id"]: _truth_of(q, namespace) for q in payload["questions"]},
        }


@contextmanager
def _defaults_kept(torch: Any) -> Iterator[None]:
    """Put back torch's global modes after the exercise ran.

    The variants of an exercise run as the steps of one child: a setup that changes the
    default dtype or turns off grad mode must not change the next variant's truths.
    """
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    anomaly, deterministic = (
        torch.is_anomaly_enabled(),
        torch.are_deterministic_algorithms_enabled(),
    )
    try:
        yield
    finally:
        torch.set_default_dtype(dtype)
        torch.set_grad_enabled(grad)
        torch.set_anomaly_enabled(anomaly)
        torch.use_deterministic_algorithms(deterministic)


def _run_setup(source: str, namespace: dict[str, Any]) -> dict[str, Any] | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(source, "<setup>", "exec"), namespace)
        except BaseException as exc:  # noqa: BLE001 - SystemExit in setup is the author's bug too
            return to_json(describe_exception(exc))
    return None


def _truth_of(question: dict[str, Any], namespace: dict[str, Any]) -> dict[str, Any]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if "expr" in question:
                value = describe(eval(compile(question["expr"], "<expr>", "eval"), namespace))
            else:
                exec(compile(question["run"], "<run>", "exec"), namespace)
                value = NoError()
        except Exception as exc:  # the exception IS the truth ("which error is raised")
            value = describe_exception(exc)
    return {"value": to_json(value), "warnings": _warnings(caught)}


def _warnings(caught: list[warnings.WarningMessage]) -> list[dict[str, str]]:
    seen: list[dict[str, str]] = []
    for w in caught:
        item = {"category": w.category.__name__, "message": str(w.message)[:500]}
        if item not in seen:
            seen.append(item)
    return seen[:MAX_WARNINGS]
