"""A submission's sandbox jobs, run together before its exercises are graded.

Grading a learner's three code exercises one by one would pay three forks, three keepers
and three sets of set-up. Instead the pipeline asks every kind which jobs its grading will
run (``Kind.jobs``), runs them with one ``run_all`` (one child runs them in order, each
under its own budget; after a step that fails, the rest run in a fresh child), and grades
each exercise against a runner that already holds its outcome. A kind that finds its job
there gets the outcome; anything else runs as it always did, so grading is the same with
or without this, only faster.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..kinds.base import Context, JobRunner
    from ..sandbox import Job, Outcome


class Prefetched:
    """A runner that answers jobs already run with their outcomes (each once), else runs them."""

    def __init__(self, runner: JobRunner, ran: Sequence[tuple[Job, Outcome]]) -> None:
        self._runner = runner
        self._ran = list(ran)

    @property
    def isolation(self) -> str:
        return self._runner.isolation

    def run(self, job: Job) -> Outcome:
        for i, (done, outcome) in enumerate(self._ran):
            if done == job:
                del self._ran[i]
                return outcome
        return self._runner.run(job)

    def run_all(self, jobs: Sequence[Job]) -> list[Outcome]:
        return [self.run(job) for job in jobs]

    def close(self) -> None:
        """Nothing to close: the session owns the real runner."""


def run_ahead(ctx: Context, jobs: Sequence[Job]) -> Context:
    """``ctx`` with a runner that already holds the outcomes of ``jobs``, run in one go."""
    if len(jobs) < 2:
        return ctx  # one job gains nothing from running early
    from ..sandbox import SandboxError  # here: loading a course never imports the sandbox

    try:
        outcomes = ctx.runner.run_all(jobs)
    except SandboxError:
        return ctx  # each exercise runs its own job again and reports its own failure
    return replace(ctx, runner=Prefetched(ctx.runner, list(zip(jobs, outcomes, strict=True))))
