"""A course opened for work: its validated files, a sandbox runner and a truth cache.

Every entry point that grades opens one ``Workspace``: the CLI commands, ``graders ci``
and the pytest plugin (``with open_workspace(...) as session``), and nbgrader's test cells
(one session per kernel, closed at exit). The runner (a warm fork server) starts on the
first job, so work that the cache answers never pays for it, and stops when the session
closes, whatever happened.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .course.files import find_course
from .course.load import load_course
from .course.loaded import LoadedCourse, get_assignment
from .kinds.base import Context, JobRunner
from .kinds.registry import sandbox_modules, task_modules
from .sandbox.runner import LazyRunner

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
    hide = (str(loaded.root.resolve()),)
    runner = runner or LazyRunner(isolation, workers, hide, task_modules(), modules)
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
