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
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path

from sqlalchemy.engine import Engine

from ..course.load import LoadedCourse, get_assignment
from ..errors import SubmissionError
from ..kinds.cache import torch_version
from ..notebook import collect
from ..results import CRASHED, ResultsDocument, StudentResult, SubmissionStatus
from ..session import Session
from . import gradebook
from .exports import write_outputs
from .grading import PreparedAssignment, grade_submission, prepare_assignment, ungradable
from .grading_key import course_key, keyed_submission
from .progress import Reporter, Silent
from .roster import Roster
from .roster_check import RosterCheck, apply_roster, check_roster, record_missing
from .submission_archive import opened_submissions
from .submissions import Found, find_submissions

OUT_DIR = "autograded"
STOP_POLL_S = 0.2  # how often a waiting batch looks whether it was asked to stop


@dataclass(frozen=True)
class Summary:
    """What a batch did, and where its outputs are."""

    assignment: str
    found: int  # students in the submissions folder
    graded: int  # graded by this run
    skipped: int  # unchanged since their saved grade
    # (student, reason) of this folder, graded now or before
    ungradable: tuple[tuple[str, str], ...]
    late: int  # graded with a late penalty or past the cutoff
    # (student, exercises whose code failed, timed out or tampered)
    crashed: tuple[tuple[str, tuple[str, ...]], ...]
    interrupted: bool  # stopped before everything was graded; running again goes on
    out_dir: Path
    db_url: str
    missing: tuple[str, ...] = ()  # on the roster, nothing handed in (score 0)
    unlisted: tuple[str, ...] = ()  # handed in, not on the roster (graded, flagged)

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
    roster: Roster | None = None
    roster_check: RosterCheck = RosterCheck()

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
    roster: Roster | None = None,
) -> Plan:
    """Find the notebooks, prepare the assignment, key each notebook, compare with the gradebook.

    Cached truths need no sandbox, so a run with nothing new to grade starts none.
    """
    get_assignment(
        session.loaded, assignment
    )  # an unknown assignment or a wrong folder fail before torch runs
    others = [a.id for a in session.loaded.course.assignments if a.id != assignment]
    found = find_submissions(submissions, assignment, roster=roster, others=others)
    prep = prepare_assignment(session.loaded, assignment, session.ctx)
    url = db_url or gradebook.default_url(session.loaded.root)
    course_hash = course_key(prep)
    keyed = tuple(keyed_submission(f, course_hash) for f in found)
    saved = gradebook.grading_keys(
        gradebook.open_gradebook(url), session.loaded.course.id, assignment
    )
    todo = tuple((f, key) for f, key in keyed if force or saved.get(f.student) != key)
    check = check_roster(roster, [f.student for f in found], saved)
    out = out_dir or default_out_dir(session.loaded, assignment)
    return Plan(prep, url, out, keyed, todo, roster, check)


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
    batch = _Batch(plan, session, engine, reporter or Silent())
    record_missing(engine, plan.course, plan.assignment, plan.roster_check.missing, batch.run_id)
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
    return _summary(doc, plan, batch.graded, outcome == "interrupted")


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
    roster: Roster | None = None,
) -> Summary:
    """Grade the notebooks in ``submissions`` (a folder, or a .zip of one) into the gradebook
    and write the outputs."""
    with opened_submissions(submissions) as folder:
        plan = plan_batch(
            session, assignment, folder, db_url=db_url, out_dir=out_dir, force=force, roster=roster
        )
        return grade_plan(plan, session, workers=workers, reporter=reporter, stop=stop)


class _Batch:
    """Grades submissions on worker threads; saves each grade from the calling thread."""

    def __init__(self, plan: Plan, session: Session, engine: Engine, reporter: Reporter) -> None:
        self.plan, self.session, self.engine, self.reporter = plan, session, engine, reporter
        self.run_id = gradebook.start_run(
            engine, plan.course, plan.assignment, torch_version(), session.isolation
        )
        self.graded = self.failed = 0
        self.stopped = False

    def run(self, workers: int, stop: threading.Event) -> None:
        self.reporter.start(len(self.plan.todo), self.plan.skipped)
        if not self.plan.todo:
            return
        pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="autograde")
        try:
            futures: dict[Future[tuple[StudentResult, bool]], tuple[Found, str]] = {
                pool.submit(grade_found, self.plan.prep, self.session.loaded, found): (found, key)
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
        return ungradable(
            found.student,
            f"internal error while reading {found.source}: {type(exc).__name__}: {exc}",
        ), True
    result = grade_submission(
        prep, replace(sub, student=found.student, submitted_at=found.submitted_at)
    )
    # grade_submission reports only grader failures as ungradable: worth another try.
    return result, result.status is SubmissionStatus.UNGRADABLE


def _summary(doc: ResultsDocument, plan: Plan, graded: int, interrupted: bool) -> Summary:
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
        plan.roster_check.missing,
        plan.roster_check.unlisted,
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
