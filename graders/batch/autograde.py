"""The batch: grade every student's notebook for an assignment into the gradebook.

    find notebooks -> key each one -> skip the unchanged -> grade the rest, ``workers`` at
    a time -> save each grade as soon as it is ready -> write the outputs from the gradebook

A grade is saved the moment it is ready (grades ready together, in one transaction), so
a crash, ``kill -9`` or Ctrl-C loses nothing already graded, and the next run picks up
where this one stopped. Only students whose grading key changed are graded
(``grading.key``): fix an exercise or its solution and its submissions are graded again;
nothing else is.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from sqlalchemy.engine import Engine

from ..exports.results_files import default_out_dir, write_outputs
from ..gradebook import store as gradebook
from ..gradebook.batch_sources import remember_source
from ..gradebook.roster_check import on_roster, record_missing
from ..grading.torch_side import torch_version
from ..intake.roster import Roster
from ..results import NOT_GRADED
from ..submissions.archive import opened_submissions
from ..workspace import Workspace
from .executor import Ended, Executor, Ready, ThreadExecutor
from .plan import Plan, plan_batch
from .progress import Reporter, Silent
from .run_summary import RunTally, Summary, summarize

__all__ = [
    "Plan",
    "Reporter",
    "Silent",
    "Summary",
    "autograde",
    "default_out_dir",
    "grade_plan",
    "plan_batch",
]


def grade_plan(
    plan: Plan,
    session: Workspace,
    *,
    workers: int = 1,
    reporter: Reporter | None = None,
    stop: threading.Event | None = None,
    executor: Executor | None = None,
) -> Summary:
    """Grade what the plan says, saving each grade as it comes, then write the outputs.

    Grading happens on ``workers`` threads here unless ``executor`` says where (a Dask
    cluster: ``cluster.ClusterExecutor``); the grades are saved here either way.
    Setting ``stop`` (from a Ctrl-C handler) ends the batch after the grades in hand are saved.
    """
    engine = gradebook.open_gradebook(plan.db_url)
    if plan.source is not None:
        remember_source(engine, plan.course, plan.assignment, plan.source)
    batch = _Batch(plan, session, engine, reporter or Silent())
    if plan.source is not None:  # a whole class: who is missing is known (not in a regrade)
        record_missing(
            engine, plan.course, plan.assignment, plan.roster_check.missing, batch.run_id
        )
    outcome = "interrupted"
    try:
        batch.run(executor or ThreadExecutor(workers), stop or threading.Event())
        outcome = "interrupted" if batch.ended.stopped else "finished"
    finally:
        # Written even when interrupted: the outputs always match what the gradebook holds.
        gradebook.finish_run(
            engine,
            batch.run_id,
            outcome,
            batch.graded,
            plan.skipped,
            batch.failed,
            batch.isolation,
        )
        results = on_roster(
            gradebook.class_results(engine, plan.course, plan.assignment, session.loaded.renamed),
            plan.roster,
        )
        write_outputs(results, plan.out_dir, session.loaded)
    tally = RunTally(
        frozenset(f.student for f, _ in plan.keyed),
        batch.graded,
        plan.skipped,
        plan.untimed,
        sum(1 for f, _ in plan.keyed if f.path is not None),
        plan.dropped,
        tuple(batch.internal),
        plan.roster_check.missing,
        plan.roster_check.unlisted,
        plan.ignored_times,
        plan.lookalikes,
    )
    summary = summarize(results, tally, (plan.out_dir, plan.db_url), outcome == "interrupted")
    return replace(summary, lost=batch.ended.lost)


def autograde(
    session: Workspace,
    assignment: str,
    submissions: Path,
    *,
    db_url: str | None = None,
    out_dir: Path | None = None,
    workers: int = 1,
    force: bool = False,
    times: Path | None = None,
    reporter: Reporter | None = None,
    stop: threading.Event | None = None,
    roster: Roster | None = None,
    executor: Executor | None = None,
    layout: str = "auto",
) -> Summary:
    """Grade the notebooks in ``submissions`` (a folder, or a .zip of one) into the gradebook
    and write the outputs. ``layout``: ``--layout`` (``auto``: by the folder's structure)."""
    with opened_submissions(submissions, assignment) as folder:
        plan = plan_batch(
            session,
            assignment,
            folder,
            db_url=db_url,
            out_dir=out_dir,
            force=force,
            times=times,
            roster=roster,
            layout=layout,
            archive=not submissions.is_dir(),
        )
        if plan.source is not None:  # a later regrade reads the zip, not where it was opened
            plan = replace(plan, source=replace(plan.source, folder=submissions.resolve()))
        return grade_plan(
            plan, session, workers=workers, reporter=reporter, stop=stop, executor=executor
        )


class _Batch:
    """Has an executor grade the plan; saves each grade it hands back, in this thread."""

    def __init__(self, plan: Plan, session: Workspace, engine: Engine, reporter: Reporter) -> None:
        self.plan, self.session, self.engine, self.reporter = plan, session, engine, reporter
        self.run_id = gradebook.start_run(
            engine, plan.course, plan.assignment, torch_version(), session.isolation
        )
        self.graded = self.failed = 0
        self.internal: list[tuple[str, str]] = []  # grader bugs met this run
        self.ended = Ended()
        self.levels: set[str] = set()  # isolation levels code ran under, where it ran

    @property
    def isolation(self) -> str | None:
        """The run's isolation: the one level code ran under (``mixed`` if several)."""
        if not self.levels:
            return self.session.isolation
        return next(iter(self.levels)) if len(self.levels) == 1 else "mixed"

    def run(self, executor: Executor, stop: threading.Event) -> None:
        self.reporter.start(len(self.plan.todo), self.plan.skipped)
        if self.plan.todo:
            self.ended = executor.grade(self.plan, self.session, self._save, stop)

    def _save(self, ready: list[Ready]) -> None:
        graded = [
            gradebook.Graded(
                r.result,
                key=r.key,
                run_id=self.run_id,
                source=r.found.source,
                submitted_at=r.found.submitted_at,
                torch_version=torch_version(),
                isolation=r.isolation or self.session.isolation,
                retry=r.retry,
            )
            for r in ready
        ]
        saved = gradebook.record_all(
            self.engine,
            self.plan.course,
            self.plan.assignment,
            graded,
            self.session.loaded.renamed,
        )
        for g in saved:  # a grade the gradebook could not hold is saved as its ungradable
            self.graded += 1
            self.failed += g.result.status in NOT_GRADED
            if g.retry:  # the grader failed, not the learner
                self.internal.append((g.result.student, str(g.result.error or "")))
            if g.isolation:
                self.levels.add(g.isolation)
            self.reporter.done(g.result)
