"""The batch: grade every student's notebook for an assignment into the gradebook.

    find notebooks -> key each one -> skip the unchanged -> grade the rest, ``workers`` at
    a time -> save each grade as soon as it is ready -> write the outputs from the gradebook

A grade is saved in its own transaction the moment it is ready, so a crash, ``kill -9``
or Ctrl-C loses nothing already graded, and the next run picks up where this one
stopped. Only students whose grading key changed are graded (``grading_key``): fix an
exercise or its solution and its submissions are graded again; nothing else is.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import replace
from pathlib import Path

from sqlalchemy.engine import Engine

from ..course.load import LoadedCourse
from ..errors import SubmissionError
from ..kinds.cache import torch_version
from ..notebook import collect
from ..results import StudentResult, SubmissionStatus
from ..session import Session
from . import gradebook
from .batch_sources import remember_source
from .exports import write_outputs
from .grading import INTERNAL_ERROR, PreparedAssignment, grade_submission, ungradable
from .plan import Plan, default_out_dir, plan_batch
from .progress import Reporter, Silent
from .roster import Roster
from .roster_check import apply_roster, record_missing
from .submission_archive import opened_submissions
from .submissions import Found
from .summary import Summary, Tally, summarize

__all__ = [
    "Plan",
    "Reporter",
    "Silent",
    "Summary",
    "autograde",
    "default_out_dir",
    "grade_found",
    "grade_plan",
    "plan_batch",
]

log = logging.getLogger(__name__)
STOP_POLL_S = 0.2  # how often a waiting batch looks whether it was asked to stop


def grade_plan(
    plan: Plan,
    session: Session,
    *,
    workers: int = 1,
    reporter: Reporter | None = None,
    stop: threading.Event | None = None,
) -> Summary:
    """Grade what the plan says, saving each grade as it comes, then write the outputs.

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
        batch.run(workers, stop or threading.Event())
        outcome = "interrupted" if batch.stopped else "finished"
    finally:
        # Written even when interrupted: the outputs always match what the gradebook holds.
        gradebook.finish_run(
            engine,
            batch.run_id,
            outcome,
            batch.graded,
            plan.skipped,
            batch.failed,
            session.isolation,
        )
        doc = apply_roster(
            gradebook.results_document(engine, plan.course, plan.assignment), plan.roster
        )
        write_outputs(doc, plan.out_dir, session.loaded.course.assignment(plan.assignment))
    tally = Tally(
        frozenset(f.student for f, _ in plan.keyed),
        batch.graded,
        plan.skipped,
        plan.untimed,
        sum(1 for f, _ in plan.keyed if f.path is not None),
        plan.dropped,
        tuple(batch.internal),
        plan.roster_check.missing,
        plan.roster_check.unlisted,
    )
    return summarize(doc, tally, (plan.out_dir, plan.db_url), outcome == "interrupted")


def autograde(
    session: Session,
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
) -> Summary:
    """Grade the notebooks in ``submissions`` (a folder, or a .zip of one) into the gradebook
    and write the outputs."""
    with opened_submissions(submissions) as folder:
        plan = plan_batch(
            session,
            assignment,
            folder,
            db_url=db_url,
            out_dir=out_dir,
            force=force,
            times=times,
            roster=roster,
        )
        if plan.source is not None:  # a later regrade reads the zip, not where it was opened
            plan = replace(plan, source=replace(plan.source, folder=submissions.resolve()))
        return grade_plan(plan, session, workers=workers, reporter=reporter, stop=stop)


class _Batch:
    """Grades submissions on worker threads; saves each grade from the calling thread."""

    def __init__(self, plan: Plan, session: Session, engine: Engine, reporter: Reporter) -> None:
        self.plan, self.session, self.engine, self.reporter = plan, session, engine, reporter
        self.run_id = gradebook.start_run(
            engine, plan.course, plan.assignment, torch_version(), session.isolation
        )
        self.graded = self.failed = 0
        self.internal: list[tuple[str, str]] = []  # grader bugs met this run
        self.stopped = False

    def run(self, workers: int, stop: threading.Event) -> None:
        self.reporter.start(len(self.plan.todo), self.plan.skipped)
        if not self.plan.todo:
            return
        pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="autograde")
        try:
            futures: dict[Future[tuple[StudentResult, bool]], tuple[Found, str]] = {
                pool.submit(
                    grade_found, self.plan.prep_for(found.student), self.session.loaded, found
                ): (found, key)
                for found, key in self.plan.todo
            }
            pending = set(futures)
            while pending and not stop.is_set():
                done, pending = wait(pending, timeout=STOP_POLL_S, return_when=FIRST_COMPLETED)
                for future in done:
                    self._save(*futures[future], *future.result())
            self.stopped = bool(pending)
        finally:
            # On Ctrl-C, drop what has not started; the runner's shutdown ends what has.
            pool.shutdown(wait=False, cancel_futures=True)

    def _save(self, found: Found, key: str, result: StudentResult, retry: bool) -> None:
        gradebook.record(
            self.engine,
            self.plan.course,
            self.plan.assignment,
            gradebook.Graded(
                result,
                key=key,
                run_id=self.run_id,
                source=found.source,
                submitted_at=found.submitted_at,
                torch_version=torch_version(),
                isolation=self.session.isolation,
                retry=retry,
            ),
        )
        self.graded += 1
        self.failed += result.status is SubmissionStatus.UNGRADABLE
        if retry:  # the grader failed, not the learner
            self.internal.append((result.student, result.error or ""))
        self.reporter.done(result)


def grade_found(
    prep: PreparedAssignment, loaded: LoadedCourse, found: Found
) -> tuple[StudentResult, bool]:
    """Read and grade one student's notebook; also says whether to retry it next run.

    Never raises: a notebook that cannot be read is that student's ``ungradable`` result.
    """
    if found.error is not None or found.path is None:
        return ungradable(found.student, found.error or "no notebook"), False
    try:
        sub = collect.read_submission(found.path, prep.assignment.id, loaded, found.student)
    except SubmissionError as exc:
        return ungradable(found.student, str(exc).replace(str(found.path), found.source)), False
    except Exception as exc:  # noqa: BLE001 - a reader bug costs this student, and is retried
        log.error("internal error while reading %s", found.source, exc_info=True)
        return ungradable(
            found.student,
            f"{INTERNAL_ERROR} reading {found.source}: {type(exc).__name__}: {exc}",
        ), True
    result = grade_submission(
        prep, replace(sub, student=found.student, submitted_at=found.submitted_at)
    )
    # grade_submission reports only grader failures as ungradable: worth another try.
    return result, result.status is SubmissionStatus.UNGRADABLE
