"""The worker's half of grading on a Dask cluster: a plugin holding a warm session, and the task.

    GradingPlugin(course files, {assignment: Shipment(prepared states, course key)}, isolation)
        setup     writes the course into the worker's own folder and opens a session there:
                  its own sandbox (fork servers, started on the first job, at the best
                  isolation level this machine offers, or the one asked for), kept warm for
                  the run; then checks that this worker grades as the batch would (the same
                  course key: the same course, truths, torch and graders)
        teardown  closes the session (its fork servers stop) and removes the folder
    grade_batch(plugin name, course key, submissions) -> Reply
    warm(plugin name)   the sandbox started now (a service's first learner does not wait)

A batch ships one assignment; ``graders serve --cluster`` ships every assignment of the
course, and each task names the one it grades by its course key.

Only the course and what the batch prepared (truths, reference observations: computed once
by the batch, never by a worker) come with the plugin; notebooks come as their bytes, so no
worker needs the batch's file systems, and are graded from them (``grading.handed_in``:
read as their files would be, never written to disk). What goes back is plain data: each
student's results as JSON, which the batch parses and validates before saving it. Learner
code runs only in this worker's sandbox children, which hand back validated JSON, as in a
run on one machine.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, TypedDict

from distributed import WorkerPlugin, get_worker

from .. import __version__
from ..course.files import COURSE_FILE, EXERCISES_DIR
from ..course.loaded import LoadedCourse
from ..grading.handed_in import HandedIn, grade_notebook
from ..grading.key import course_key
from ..grading.pipeline import PreparedAssignment, prepare_assignment
from ..grading.torch_side import torch_version
from ..workspace import Workspace, start_workspace

if TYPE_CHECKING:
    from distributed import Worker


# (student, source, submitted_at and the student's own due date as ISO 8601 or None, the
# notebook's bytes)
Shipped = tuple[str, str, str | None, str | None, bytes]


class Reply(TypedDict):
    """What a worker sends back for one batch: plain data only."""

    isolation: str | None  # the level learner code ran under here (None: none ran)
    busy_s: float  # time spent grading the batch, for the batch's figures
    results: list[tuple[str, str, bool]]  # (student, StudentResult as JSON, retry next run)


@dataclass(frozen=True)
class Shipment:
    """What a worker grades one assignment against, prepared where the grading was asked."""

    prepared: Mapping[str, tuple[Any, ...]]  # exercise id -> each variant's state
    course_key: str  # the key the asker computed: the worker's must be the same


def shipment(prep: PreparedAssignment) -> Shipment:
    """An assignment prepared here, as a worker takes it: every variant's state (the worker
    chooses each learner's, as here) and the course key."""
    prepared = {ex.loaded.exercise.id: ex.variants or (ex.prepared,) for ex in prep.exercises}
    return Shipment(prepared, course_key(prep))


class WorkerSetupError(Exception):
    """This worker cannot grade for the batch (setup failed, or it would grade differently)."""


def course_files(loaded: LoadedCourse) -> dict[str, bytes]:
    """The files a worker needs to load the course and grade: relative path -> bytes.

    ``course.yml``, every exercise file, and what each kind says its exercises need (a
    code exercise's checker and reference solution); samples and docs stay behind.
    """
    root = loaded.root
    names = [COURSE_FILE] + [
        p.relative_to(root).as_posix() for p in sorted((root / EXERCISES_DIR).glob("*.y*ml"))
    ]
    for ex in loaded.exercises.values():
        names += ex.kind.files(ex.exercise)
    return {name: (root / name).read_bytes() for name in dict.fromkeys(names)}


class GradingPlugin(WorkerPlugin):
    """A worker's graders session for one batch (or one service): set up on every worker,
    late joiners too."""

    def __init__(
        self,
        files: Mapping[str, bytes],
        assignments: Mapping[str, Shipment],
        isolation: str,
        *,
        ignore_interrupts: bool = False,
    ) -> None:
        self.files = dict(files)
        self.ignore_interrupts = ignore_interrupts  # a worker process of the asker's own
        self.assignments = dict(assignments)
        self.isolation = isolation
        self.error: str | None = None
        self._folder: Path | None = None
        self._session: Workspace | None = None
        self._preps: dict[str, PreparedAssignment] = {}  # course key -> its assignment

    def setup(self, worker: Worker) -> None:
        if self.ignore_interrupts and threading.current_thread() is threading.main_thread():
            # Ctrl-C reaches the whole process group: the batch stops its own workers (after
            # saving the grades in hand), they do not die under it.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        # Never raises: a worker that cannot grade says why to the batch, on its first task.
        try:
            self._open(Path(worker.local_directory), worker.state.nthreads)
        except WorkerSetupError as exc:
            self.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - reported by every task sent here
            self.error = f"{type(exc).__name__}: {exc}"

    def teardown(self, worker: Worker) -> None:
        if self._session is not None:
            self._session.close()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    def grade(self, expected_key: str, shipped: list[Shipped]) -> Reply:
        """Grade each submission of a batch, one after the other, in this worker's session."""
        if self.error is not None or self._session is None or not self._preps:
            raise WorkerSetupError(self.error or "this worker's graders session is not open")
        prep = self._preps.get(expected_key)
        if prep is None:
            raise WorkerSetupError("this worker holds another batch's course (a newer run?)")
        started = time.perf_counter()
        results = [self._grade_one(prep, self._session.loaded, item) for item in shipped]
        return Reply(
            isolation=self._session.isolation,
            busy_s=time.perf_counter() - started,
            results=results,
        )

    def warm(self) -> str:
        """Start this worker's sandbox now: the isolation level it runs at."""
        if self.error is not None or self._session is None:
            raise WorkerSetupError(self.error or "this worker's graders session is not open")
        return self._session.ctx.runner.isolation

    def _open(self, base: Path, threads: int) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="graders-", dir=base))
        root = self._folder / "course"
        _write_files(root, self.files)
        self._session = start_workspace(
            root / COURSE_FILE, isolation=self.isolation, workers=max(1, threads), cache=False
        )
        for assignment, shipped in self.assignments.items():
            prep = prepare_assignment(
                self._session.loaded, assignment, self._session.ctx, shipped.prepared
            )
            if course_key(prep) != shipped.course_key:
                raise WorkerSetupError(
                    f"this worker would grade differently from the batch (here: torch "
                    f"{torch_version()}, graders {__version__}); every worker needs the torch "
                    "and graders versions of the machine that runs `graders autograde` or "
                    "`graders serve`"
                )
            self._preps[shipped.course_key] = prep

    def _grade_one(
        self, prep: PreparedAssignment, loaded: LoadedCourse, item: Shipped
    ) -> tuple[str, str, bool]:
        student, source, submitted_at, due, raw = item
        when = datetime.fromisoformat(submitted_at) if submitted_at else None
        mine = prep.due_on(datetime.fromisoformat(due) if due else None)  # an extension
        # Its bytes are read as its file would be, on the batch's machine: nothing is spooled.
        result, retry = grade_notebook(mine, loaded, HandedIn(student, raw, source, when))
        return student, result.dumps(), retry


def grade_batch(plugin: str, expected_key: str, shipped: list[Shipped]) -> Reply:
    """The task: grade ``shipped`` with this worker's plugin named ``plugin``."""
    return _plugin(get_worker(), plugin).grade(expected_key, shipped)


def warm(plugin: str, dask_worker: Worker) -> str:
    """Start the sandbox of this worker's plugin ``plugin`` now, not on its first notebook
    (``Client.run`` calls it on every worker): the isolation level it runs at."""
    return _plugin(dask_worker, plugin).warm()


def _plugin(worker: Worker, plugin: str) -> GradingPlugin:
    mine = worker.plugins.get(plugin)
    if not isinstance(mine, GradingPlugin):
        raise WorkerSetupError(f"this worker has no {plugin} plugin: its set-up did not run")
    return mine


def _write_files(root: Path, files: Mapping[str, bytes]) -> None:
    for name, content in files.items():
        relative = PurePosixPath(name)
        if relative.is_absolute() or ".." in relative.parts:
            raise WorkerSetupError(f"course file outside the course folder: {name}")
        target = root.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        target.write_bytes(content)
