"""Running a source through the exercise's checker in the sandbox, and judging what it saw.

The child returns plain JSON observations; the keeper has held them to the checker's
``Observations`` schema; here the checker's ``judge`` compares them with the reference's,
one verdict per check. Whatever goes wrong costs this exercise only: every check gets the
status and the message.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...results import QuestionResult, Status
from ...said import Told, authored, paragraphs, say
from ..base import Context
from .checker_file import Checker, digest
from .child.allowlist import DEFAULT_IMPORTS
from .model import Check, CodeExercise
from .outcome import FORGED, Judged, judge_outcome
from .reference import Reference
from .samples import mismatches
from .sources import read_source, variant_values

if TYPE_CHECKING:
    from ...sandbox import Job

TASK = "graders.kinds.code.child.task:run"
CHECK = "graders.kinds.code.returned:vet_returned"  # the keeper's check of what it returns
# The floor is for a busy machine: the reference's time was measured once, maybe on a quiet
# one, and a correct answer must not time out when the class is graded beside other work.
MIN_BUDGET_S, BUDGET_FACTOR = 2.0, 50.0
# CPU time is not stretched by a busy machine, so its floor can be lower: a busy loop is
# stopped after this much of a core rather than after the whole wall budget.
MIN_CPU_BUDGET_S = 1.0


def budget_s(exercise: CodeExercise, prepared: Reference, ctx: Context) -> float:
    """The exercise's time budget: its own, else a multiple of the reference's time."""
    cap = ctx.limits.timeout_s
    if exercise.timeout_s is not None:
        return min(exercise.timeout_s, cap)
    took = cap if prepared.took_s is None else prepared.took_s
    return min(cap, max(MIN_BUDGET_S, BUDGET_FACTOR * took))


def cpu_budget_s(exercise: CodeExercise, prepared: Reference, ctx: Context) -> float:
    """The exercise's CPU budget: its own ``timeout_s``, else a multiple of the reference's
    time with a lower floor than the wall budget's, and never more than the wall budget."""
    wall = budget_s(exercise, prepared, ctx)
    if exercise.timeout_s is not None or prepared.took_s is None:
        return wall
    return min(wall, max(MIN_CPU_BUDGET_S, BUDGET_FACTOR * prepared.took_s))


def grade_source(
    exercise: CodeExercise, checker: Checker, prepared: Reference, source: str, ctx: Context
) -> list[QuestionResult]:
    budget = budget_s(exercise, prepared, ctx)
    cpu = cpu_budget_s(exercise, prepared, ctx)
    judged, _took = run_checker(exercise, checker, source, ctx, budget, cpu)
    if judged.observations is None:
        message = judged.message
        if judged.status is Status.TIMEOUT and prepared.took_s is not None:
            message = say(
                "{reason} (the reference solution takes {ms} ms).",
                reason=message,
                ms=f"{prepared.took_s * 1000:.0f}",
            )
        return all_checks(exercise, judged.status, message)
    verdicts = judge_observations(exercise, checker, judged.observations, prepared)
    if verdicts is None:
        return all_checks(
            exercise,
            Status.INTEGRITY,
            say(FORGED),
        )
    checks = enumerate(exercise.checks)
    return [_result(exercise.id, i, c, verdicts[c.id]) for i, c in checks]


def run_checker(
    exercise: CodeExercise,
    checker: Checker,
    source: str,
    ctx: Context,
    timeout_s: float,
    cpu_s: float | None = None,
) -> tuple[Judged, float]:
    outcome = ctx.runner.run(checker_job(exercise, checker, source, ctx, timeout_s, cpu_s))
    return judge_outcome(outcome, exercise.entry, exercise.signature), outcome.duration_s


def checker_job(
    exercise: CodeExercise,
    checker: Checker,
    source: str,
    ctx: Context,
    timeout_s: float,
    cpu_s: float | None = None,
) -> Job:
    """The sandbox job that runs ``source`` through the exercise's checker, with a wall
    budget and a CPU budget (the wall one unless given)."""
    from ...sandbox import Job

    # One process: learner code may not fork or exec (the keeper counts one process's CPU).
    limits = replace(ctx.limits, timeout_s=timeout_s, cpu_s=cpu_s or timeout_s, may_fork=False)
    payload = {
        "checker": checker.name,
        "source": source,
        "entry": exercise.entry,
        "seed": ctx.course.seed,
        "imports": list(allowed_imports(ctx)),
    }
    if exercise.params:  # the checker builds this variant's inputs (its shapes, its modules)
        payload["params"] = variant_values(exercise)
    return Job(task=TASK, payload=payload, limits=limits, check=CHECK)


def judge_observations(
    exercise: CodeExercise, checker: Checker, observations: Any, prepared: Reference
) -> dict[str, Any] | None:
    """Verdicts per check id, or None when the observations are not the checker's."""
    params = variant_values(exercise) if exercise.params else None
    try:
        return checker.judge(observations, prepared.observations, params)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None


def own_failures(exercise: CodeExercise, checker: Checker, prepared: Reference) -> list[str]:
    """How the reference solution fails its own checks (it must not)."""
    verdicts = judge_observations(exercise, checker, prepared.observations, prepared)
    if verdicts is None:
        return [f"wrote observations {exercise.checker} cannot read"]
    return [
        f"fails its own check '{c}': {v.feedback}"
        for c, v in verdicts.items()
        if c in check_ids(exercise) and not v.passed
    ]


def sample_outcomes(
    exercise: CodeExercise, checker: Checker, prepared: Reference, ctx: Context
) -> list[list[str]]:
    """For each sample, what went otherwise than it expects (empty when it got its outcome)."""
    found = []
    for sample in exercise.samples:
        source = read_source(exercise, ctx.root / sample.file)  # in this variant
        results = grade_source(exercise, checker, prepared, source, ctx)
        found.append(mismatches(sample, check_ids(exercise), results))
    return found


def allowed_imports(ctx: Context) -> tuple[str, ...]:
    """The modules a code answer may import: the course's list, else the default one."""
    return tuple(ctx.course.code_imports or DEFAULT_IMPORTS)


def check_ids(exercise: CodeExercise) -> list[str]:
    return [c.id for c in exercise.checks]


def _result(exercise_id: str, index: int, check: Check, verdict: Any) -> QuestionResult:
    item = f"{exercise_id}/{check.id}"
    said = paragraphs(authored(exercise_id, ("checks", index, "explain"), check.explain))
    if verdict.passed:
        return QuestionResult(
            item, Status.CORRECT, check.points, check.points, feedback=said, explain=said
        )
    status = Status.ERROR if verdict.errored else Status.WRONG
    # The checker's verdict may show the reference's values: it is left out of `explain`.
    return QuestionResult(
        item, status, 0.0, check.points, feedback=paragraphs(said, verdict.feedback), explain=said
    )


def all_checks(exercise: CodeExercise, status: Status, message: Told) -> list[QuestionResult]:
    said = paragraphs(message)
    return [
        QuestionResult(f"{exercise.id}/{c.id}", status, 0.0, c.points, feedback=said, explain=said)
        for c in exercise.checks
    ]


def content_hash(exercise: CodeExercise, source: str, checker: Checker, ctx: Context) -> str:
    # The cached observations depend on the exercise, the solution, the checker and the
    # toolkit it runs on, and the course's allowlist.
    h = hashlib.sha256(
        exercise.content_hash().encode() + source.encode() + digest(checker).encode()
    )
    h.update(repr(sorted(allowed_imports(ctx))).encode())
    return h.hexdigest()[:16]


def samples_hash(exercise: CodeExercise, ctx: Context) -> str:
    h = hashlib.sha256()
    for sample in exercise.samples:
        h.update((ctx.root / sample.file).read_bytes())
    return h.hexdigest()[:8]
