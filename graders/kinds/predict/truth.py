"""The truths of a predict exercise: computed by torch in a sandbox child, then typed.

The child (``graders.kinds.predict.child.task``) returns plain JSON, which is what the
caller's ``TruthStore`` keeps (grading's truth cache).
``Truths`` is that JSON decoded once per batch: every student's answers are compared with
the same truths, so decoding and rendering them once, not once per student and question,
is most of what grading a prediction would otherwise cost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...answers.render import render_answer
from ...answers.values import Value, from_json

if TYPE_CHECKING:
    from ...sandbox import Outcome
    from ..base import Context, TruthStore
    from .model import PredictExercise

TRUTH_TASK = "graders.kinds.predict.child.task:compute"


@dataclass(frozen=True)
class TorchWarning:
    """A warning torch emitted while computing a truth."""

    category: str
    message: str


@dataclass(frozen=True)
class Truth:
    """What one question gives in torch, and the literal that earns full marks."""

    value: Value
    literal: str
    warnings: tuple[TorchWarning, ...] = ()


@dataclass(frozen=True)
class Truths:
    """An exercise's truths: per question, or why there are none."""

    raw: Mapping[str, Any]  # as computed and cached (JSON): the grading key hashes it
    questions: Mapping[str, Truth]  # question id -> its truth (missing: not computable)
    error: str | None = None  # the child failed as a whole (crash, timeout)
    setup_error: str | None = None  # the setup raised: "Class: message"

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Truths:
        """Decode what the child returned (or the cache held)."""
        setup = raw.get("setup_error")
        setup_error = f"{setup['cls']}: {setup['message']}" if setup else None
        questions = {qid: _truth(entry) for qid, entry in raw.get("questions", {}).items()}
        return cls(raw, questions, raw.get("error"), setup_error)


def _truth(entry: Mapping[str, Any]) -> Truth:
    value = from_json(entry["value"])
    warnings = tuple(TorchWarning(w["category"], w["message"]) for w in entry.get("warnings", []))
    return Truth(value, render_answer(value), warnings)


def compute_truths(exercise: PredictExercise, ctx: Context, store: TruthStore) -> Truths:
    """Run the exercise through torch in a sandbox child (kept in ``store``, by the
    exercise's content hash). Never raises for torch errors: a child that failed as a whole
    gives ``Truths.error``, reported by ``validate``."""
    return compute_truths_many([exercise], ctx, store)[0]


def compute_truths_many(
    exercises: Sequence[PredictExercise], ctx: Context, store: TruthStore
) -> list[Truths]:
    """The truths of several exercises (the variants of one), each kept on its own; those
    ``store`` lacks are computed together, as the steps of one warm child (``run_all``)."""
    entries = [(e.id, e.content_hash()) for e in exercises]

    def run_in_torch(missing: list[int]) -> list[dict[str, Any]]:
        from ...sandbox import Job

        limits = ctx.limits
        jobs = [
            Job(task=TRUTH_TASK, payload=_payload(exercises[i], ctx.course.seed), limits=limits)
            for i in missing
        ]
        return [_result(outcome) for outcome in ctx.runner.run_all(jobs)]

    return [Truths.from_json(raw) for raw in store.cached_many(entries, run_in_torch)]


def _payload(exercise: PredictExercise, seed: int) -> dict[str, Any]:
    questions = [
        {"id": q.id, "expr": q.expr} if q.expr is not None else {"id": q.id, "run": q.run}
        for q in exercise.questions
    ]
    return {"seed": seed, "setup": exercise.setup, "questions": questions}


def _result(outcome: Outcome) -> dict[str, Any]:
    if outcome.status != "ok" or outcome.result is None:
        return {"error": f"computing the truth failed ({outcome.status}): {outcome.message}"}
    result: dict[str, Any] = outcome.result
    return result
