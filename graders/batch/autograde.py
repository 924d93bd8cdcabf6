"""The batch: grade every student's notebook for an assignment into the gradebook.

    find notebooks -> key each one -> skip the unchanged -> grade the rest, ``workers`` at
    a time -> save each grade as soon as it is ready -> write the outputs from the gradebook

A grade is saved in its own transaction the moment it is ready, so a crash, ``kill -9``
or Ctrl-C loses nothing already graded, and the next run picks up where this one
stopped. Only students whose grading key changed are graded (``grading_key``): fix an
exercise or its solution and its submissions are graded again; nothing else is.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from sqlalchemy.engine import Engine

from ..course.load import LoadedCourse, get_assignment
from ..kinds.cache import torch_version
from ..results import CRASHED, ResultsDocument, StudentResult, SubmissionStatus
from ..session import Session
from . import gradebook
from .executor import Ended, Executor, ThreadExecutor
from .executor import grade_found as grade_found  # where CI and the benchmarks find it
from .exports import write_outputs
from .grading import PreparedAssignment, prepare_assignment
from .grading_key import course_key, keyed_submission
from .submissions import Found, find_submissions

OUT_DIR = "autograded"


class Reporter(Protocol):
    """Told about the batch as it goes (a progress bar, log lines)."""

    def start(self, total: int, skipped: int) -> None:
        """``total`` submissions are about to be graded; ``skipped`` are unchanged."""

    def done(self, result: StudentResult) -> None:
        """One submission was graded and saved."""


class Silent:
    """A reporter that says nothing."""

    def start(self, total: int, skipped: int) -> None:
        """Nothing to show."""

    def done(self, result: StudentResult) -> None:
        """Nothing to show."""


@dataclass(frozen=True)
class Summary:
    """What a batch did, and where its outputs are."""

    assignment: str
    found: int  # students in the submissions folder
    graded: int  # graded by this run
    skipped: int  # unchanged since their saved grade
    ungradable: tuple[
        tuple[str, str], ...
    ]  # (student, reason) of this folder, graded now or before
    late: int  # graded with a late penalty or past the cutoff
    crashed: tuple[
        tuple[str, tuple[str, ...]], ...
    ]  # (student, exercises whose code failed, timed out or tampered)
    interrupted: bool  # stopped before everything was graded; running again goes on
    out_dir: Path
    db_url: str
    lost: str | None = None  # why the cluster grading it went away (then ``interrupted``)

    @property
    def all_graded(self) -> bool:
        return not self.ungradable


def default_out_dir(loaded: LoadedCourse, assignment: str) -> Path:
    """Where outputs go unless ``--out`` says otherwise: ``autograded/<assignment>/``."""
    return loaded.root / OUT_DIR / assignment


@dataclass(frozen=True)
class Plan:
    """What a batch will do: everyone in the folder with their grading key, and who to grade."""

    prep: PreparedAssignment
    db_url: str
    out_dir: Path
    keyed: tuple[tuple[Found, str], ...]  # every student in the folder, with their grading key
    todo: tuple[tuple[Found, str], ...]  # those whose saved grade is missing or out of date

    @property
    def course(self) -> str:
        return self.prep.ctx.course.id

    @property
    def assignment(self) -> str:
        return self.prep.assignment.id

    @property
    def skipped(self) -> int:
        return len(self.keyed) - len(self.todo)


def plan_batch(
    session: Session,
    assignment: str,
    submissions: Path,
    *,
    db_url: str | None = None,
    out_dir: Path | None = None,
    force: bool = False,
) -> Plan:
    """Find the notebooks, prepare the assignment, key each notebook, compare with the gradebook.

    Cached truths need no sandbox, so a run with nothing new to grade starts none.
    """
    get_assignment(
        session.loaded, assignment
    )  # an unknown assignment or a wrong folder fail before torch runs
    found = find_submissions(submissions, assignment)
    prep = prepare_assignment(session.loaded, assignment, session.ctx)
    url = db_url or gradebook.default_url(session.loaded.root)
    course_hash = course_key(prep)
    keyed = tuple(keyed_submission(f, course_hash) for f in found)
    saved = gradebook.grading_keys(
        gradebook.open_gradebook(url), session.loaded.course.id, assignment
    )
    todo = tuple((f, key) for f, key in keyed if force or saved.get(f.student) != key)
    return Plan(prep, url, out_dir or default_out_dir(session.loaded, assignment), keyed, todo)


def grade_plan(
    plan: Plan,
    session: Session,
    *,
    workers: int = 1,
    reporter: Reporter | None = None,
    stop: threading.Event | None = None,
    executor: Executor | None = None,
) -> Summary:
    """Grade what the plan says, saving each grade as it comes, then write the outputs.

    Grading happens on ``workers`` threads here unless ``executor`` says where (a Dask
    cluster: ``distributed.ClusterExecutor``); the grades are saved here either way.
    Setting ``stop`` (from a Ctrl-C handler) ends the batch after the grades in hand are saved.
    """
    engine = gradebook.open_gradebook(plan.db_url)
    batch = _Batch(plan, session, engine, reporter or Silent())
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
        doc = gradebook.results_document(engine, plan.course, plan.assignment)
        write_outputs(doc, plan.out_dir)
    return _summary(doc, plan, batch.graded, outcome == "interrupted", batch.ended.lost)


def autograde(
    session: Session,
    assignment: str,
    submissions: Path,
    *,
    db_url: str | None = None,
    out_dir: Path | None = None,
    workers: int = 1,
    force: bool = False,
    reporter: Reporter | None = None,
    stop: threading.Event | None = None,
    executor: Executor | None = None,
) -> Summary:
    """Grade the notebooks in ``submissions`` into the gradebook and write the outputs."""
    plan = plan_batch(session, assignment, submissions, db_url=db_url, out_dir=out_dir, force=force)
    return grade_plan(
        plan, session, workers=workers, reporter=reporter, stop=stop, executor=executor
    )


class _Batch:
    """Has an executor grade the plan; saves each grade it hands back, in this thread."""

    def __init__(self, plan: Plan, session: Session, engine: Engine, reporter: Reporter) -> None:
        self.plan, self.session, self.engine, self.reporter = plan, session, engine, reporter
        self.run_id = gradebook.start_run(
            engine, plan.course, plan.assignment, torch_version(), session.isolation
        )
        self.graded = self.failed = 0
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

    def _save(
        self, found: Found, key: str, result: StudentResult, retry: bool, isolation: str | None
    ) -> None:
        isolation = isolation or self.session.isolation
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
                isolation=isolation,
                retry=retry,
            ),
        )
        self.graded += 1
        self.failed += result.status is SubmissionStatus.UNGRADABLE
        if isolation:
            self.levels.add(isolation)
        self.reporter.done(result)


def _summary(
    doc: ResultsDocument, plan: Plan, graded: int, interrupted: bool, lost: str | None
) -> Summary:
    present = {f.student for f, _ in plan.keyed}
    mine = [s for s in doc.students if s.student in present]
    failed = tuple(
        (s.student, s.error or "") for s in mine if s.status is SubmissionStatus.UNGRADABLE
    )
    late = sum(1 for s in mine if s.status is SubmissionStatus.LATE_CUTOFF or s.late_factor < 1)
    crashed = tuple((s.student, items) for s in mine if (items := _crashed_items(s)))
    return Summary(
        plan.assignment,
        len(plan.keyed),
        graded,
        plan.skipped,
        failed,
        late,
        crashed,
        interrupted,
        plan.out_dir,
        plan.db_url,
        lost,
    )


def _crashed_items(student: StudentResult) -> tuple[str, ...]:
    """``exercise: status (n checks)`` for each exercise whose code failed, timed out or
    tampered."""
    counts: dict[tuple[str, str], int] = {}
    for q in student.questions:
        if q.status in CRASHED:
            key = (q.exercise, q.status.value)
            counts[key] = counts.get(key, 0) + 1
    return tuple(
        f"{ex}: {status}" + (f" ({n} checks)" if n > 1 else "")
        for (ex, status), n in counts.items()
    )
