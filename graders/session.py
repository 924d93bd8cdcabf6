"""A course opened for work: its validated files, a sandbox runner and a truth cache.

Every entry point that grades opens one ``Session``: the CLI commands, ``graders ci``
and the pytest plugin (``with open_session(...) as session``), and nbgrader's test cells
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

from .kinds.base import Context, JobRunner
from .kinds.load import LoadedCourse, find_course, load_course
from .kinds.registry import sandbox_modules

if TYPE_CHECKING:
    from .sandbox import Job, Outcome, Runner
    from .sandbox.modules import Sources

CACHE_DIR = ".graders-cache"


@dataclass(frozen=True)
class Session:
    """Everything a command needs to prepare truths and grade: the course and its context."""

    loaded: LoadedCourse
    ctx: Context

    @property
    def isolation(self) -> str | None:
        """The isolation level code ran under, or None when nothing had to run."""
        runner = self.ctx.runner
        return runner.isolation if not isinstance(runner, LazyRunner) or runner.started else None

    def close(self) -> None:
        """Stop the sandbox, if it started."""
        self.ctx.runner.close()


class LazyRunner:
    """A ``Runner`` that starts the sandbox on the first job, so that cached work never
    pays the ~3 s of warm-up."""

    def __init__(
        self, level: str, workers: int, hide: tuple[str, ...], modules: Sources | None = None
    ) -> None:
        self._args = (level, workers, hide)
        self._modules = modules or {}
        self._runner: Runner | None = None
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        return self._runner is not None

    def start_soon(self) -> None:
        """Start the sandbox now, in a thread, while the caller does what needs no sandbox
        (one notebook: its truths read, its predictions graded); the first job waits for it
        only as long as it still takes."""
        threading.Thread(
            target=self._start_quietly, name="graders-sandbox-start", daemon=True
        ).start()

    def _start_quietly(self) -> None:
        try:
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
        if self._runner is not None:
            self._runner.close()

    def _get(self) -> Runner:
        with self._lock:
            if self._runner is None:
                from .sandbox import open_runner

                level, workers, hide = self._args
                self._runner = open_runner(level, workers=workers, hide=hide, modules=self._modules)
            return self._runner


def load(course: Path | None) -> LoadedCourse:
    """Find and load the course (no torch, no sandbox): fast, for validation and help."""
    return load_course(find_course(course))


def start_session(
    course: Path | LoadedCourse | None,
    *,
    isolation: str = "auto",
    workers: int = 1,
    cache: bool = True,
    runner: JobRunner | None = None,
) -> Session:
    """Load the course and prepare a sandbox (started on first use); close it when done.

    ``course`` is a folder (None: found from here), or a course a command already loaded.
    ``runner`` replaces the sandbox (tests pass ``sandbox.InProcessRunner``, the fake,
    where nothing untrusted runs).
    """
    loaded = course if isinstance(course, LoadedCourse) else load(course)
    # The course folder is hidden from learner code: it holds solutions and the gradebook.
    # The course's own code that runs in children (checkers) is installed in the warm servers.
    modules = sandbox_modules(loaded.exercises.values(), loaded.root)
    runner = runner or LazyRunner(isolation, workers, (str(loaded.root.resolve()),), modules)
    cache_dir = loaded.root / CACHE_DIR if cache else None
    return Session(loaded, Context(loaded.course, loaded.root, runner, cache_dir))


@contextmanager
def open_session(
    course: Path | LoadedCourse | None,
    *,
    isolation: str = "auto",
    workers: int = 1,
    cache: bool = True,
    runner: JobRunner | None = None,
) -> Iterator[Session]:
    """``start_session`` as a ``with`` block: the sandbox always stops on exit."""
    session = start_session(
        course, isolation=isolation, workers=workers, cache=cache, runner=runner
    )
    try:
        yield session
    finally:
        session.close()
