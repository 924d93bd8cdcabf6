"""A course opened for work: its validated files, a sandbox runner and a truth cache.

Every entry point that grades opens one ``Workspace``: the CLI commands, ``graders ci``
and the pytest plugin (``with open_workspace(...) as session``), and nbgrader's test cells
(one session per kernel, closed at exit). The runner (a warm fork server) starts on the
first job, so work that the cache answers never pays for it, and stops when the session
closes, whatever happened.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .course.load import find_course, load_course
from .course.loaded import LoadedCourse, get_assignment
from .kinds.base import Context, JobRunner
from .kinds.registry import sandbox_modules, task_modules

if TYPE_CHECKING:
    from .sandbox import Job, Outcome, Runner
    from .sandbox.modules import Sources
    from .sandbox.runner import ForkServerRunner

CACHE_DIR = ".graders-cache"


@dataclass(frozen=True)
class Workspace:
    """Everything a command needs to prepare truths and grade: the course and its context."""

    loaded: LoadedCourse
    ctx: Context

    @property
    def isolation(self) -> str | None:
        """The isolation level code ran under, or None when nothing had to run."""
        runner = self.ctx.runner
        return runner.isolation if not isinstance(runner, LazyRunner) or runner.started else None

    def warm_for(self, assignment: str) -> None:
        """Start the sandbox now, in the background, when ``assignment`` has an exercise that
        runs code: it warms while the truths are read and the rest is graded (one notebook,
        a kernel's test cells)."""
        loaded = self.loaded
        start_soon = getattr(self.ctx.runner, "start_soon", None)
        exercises = get_assignment(loaded, assignment).exercises
        if start_soon is not None and any(loaded.exercises[e.id].kind.runs_jobs for e in exercises):
            start_soon()

    def close(self) -> None:
        """Stop the sandbox, if it started."""
        self.ctx.runner.close()


class LazyRunner:
    """A ``Runner`` that starts the sandbox on the first job, so that cached work never
    pays the seconds of warm-up; or sooner (``start_soon``), even before the course's
    modules are known (``give_modules``): its servers then warm while the course is read."""

    def __init__(
        self, level: str, workers: int, hide: tuple[str, ...], modules: Sources | None = None
    ) -> None:
        self._args = (level, workers, hide)
        self._modules = modules  # None until the course is read
        self._starting: ForkServerRunner | None = None  # servers warming, modules not sent
        self._runner: Runner | None = None
        self._closed = False
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        return self._runner is not None

    def give_modules(self, modules: Sources) -> None:
        """The course's modules the servers install (``sandbox_modules``), once it is read."""
        self._modules = modules

    def start_soon(self) -> None:
        """Start the sandbox now, in a thread, while the caller does what needs no sandbox
        (one notebook: its course read, its truths read, its predictions graded); the first
        job waits for it only as long as it still takes."""
        threading.Thread(
            target=self._start_quietly, name="graders-sandbox-start", daemon=True
        ).start()

    def _start_quietly(self) -> None:
        try:
            if self._modules is None:
                self._begin()  # the rest when the first job comes, with the course's modules
            else:
                self._get()
        except Exception:  # noqa: BLE001 - the first job starts it again, and says why not
            return

    @property
    def isolation(self) -> str:
        return self._get().isolation

    def run(self, job: Job) -> Outcome:
        return self._get().run(job)

    def run_all(self, jobs: Sequence[Job]) -> list[Outcome]:
        return self._get().run_all(jobs)

    def close(self) -> None:
        # Under the lock: a start under way (``start_soon``'s thread) finishes first and is
        # stopped here, so nothing this runner started outlives its close.
        with self._lock:
            self._closed = True
            for runner in (self._runner, self._starting):
                if runner is not None:
                    runner.close()

    def _begin(self) -> None:
        with self._lock:
            if self._runner is None and self._starting is None and not self._closed:
                self._starting = self._warming()
                if self._closed:  # closed while it started: nobody else would stop it
                    self._starting.close()

    def _get(self) -> Runner:
        with self._lock:
            if self._runner is None:
                from .sandbox import SandboxError

                if self._closed:  # a late start_soon thread: nothing may start any more
                    raise SandboxError("the runner is closed")
                starting = self._starting or self._warming()
                self._starting = None
                self._runner = starting.finish_start(self._modules or {})
            return self._runner

    def _warming(self) -> ForkServerRunner:
        """Fork servers that start warming now, importing every kind's task modules."""
        from .sandbox.runner import begin_runner

        level, workers, hide = self._args
        return begin_runner(level, workers=workers, hide=hide, preload=task_modules())


def early_runner(course: Path | None, isolation: str = "auto") -> LazyRunner:
    """A sandbox that starts warming now, before its course is read (one notebook's grader:
    the seconds of torch's warm-up pass while the course loads); hand it to
    ``start_workspace(..., runner=...)``, which gives it the course's modules. Raises
    ``UsageError`` when there is no course there."""
    root = find_course(course).parent
    runner = LazyRunner(isolation, 1, (str(root.resolve()),))
    runner.start_soon()
    return runner


def load(course: Path | None) -> LoadedCourse:
    """Find and load the course (no torch, no sandbox): fast, for validation and help."""
    return load_course(find_course(course))


def start_workspace(
    course: Path | LoadedCourse | None,
    *,
    isolation: str = "auto",
    workers: int = 1,
    cache: bool = True,
    runner: JobRunner | None = None,
) -> Workspace:
    """Load the course and prepare a sandbox (started on first use); close it when done.

    ``course`` is a folder (None: found from here), or a course a command already loaded.
    ``runner`` replaces the sandbox (tests pass ``sandbox.InProcessRunner``, the fake,
    where nothing untrusted runs), or is one started before the course was read
    (``early_runner``).
    """
    loaded = course if isinstance(course, LoadedCourse) else load(course)
    # The course folder is hidden from learner code: it holds solutions and the gradebook.
    # The course's own code that runs in children (checkers) is installed in the warm servers.
    modules = sandbox_modules(loaded.exercises.values(), loaded.root)
    if isinstance(runner, LazyRunner):
        runner.give_modules(modules)  # an early sandbox (``early_runner``), warming already
    runner = runner or LazyRunner(isolation, workers, (str(loaded.root.resolve()),), modules)
    cache_dir = loaded.root / CACHE_DIR if cache else None
    return Workspace(loaded, Context(loaded.course, loaded.root, runner, cache_dir))


@contextmanager
def open_workspace(
    course: Path | LoadedCourse | None,
    *,
    isolation: str = "auto",
    workers: int = 1,
    cache: bool = True,
    runner: JobRunner | None = None,
) -> Iterator[Workspace]:
    """``start_workspace`` as a ``with`` block: the sandbox always stops on exit."""
    session = start_workspace(
        course, isolation=isolation, workers=workers, cache=cache, runner=runner
    )
    try:
        yield session
    finally:
        session.close()
