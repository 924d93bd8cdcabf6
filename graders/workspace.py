"""A course opened for work: its validated files, a sandbox runner and a truth cache.

Every command that needs torch goes through ``open_workspace``; the runner (a warm fork
server) starts once and is shut down when the ``with`` block ends, whatever happens.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from .load import LoadedCourse, find_course, load_course
from .registry import Context, sandbox_modules

CACHE_DIR = ".graders-cache"


@dataclass(frozen=True)
class Workspace:
    """Everything a command needs to prepare truths and grade."""

    loaded: LoadedCourse
    ctx: Context

    @property
    def isolation(self) -> str | None:
        """The isolation level code ran under, or None when nothing had to run."""
        runner = self.ctx.runner
        return runner.isolation if not isinstance(runner, LazyRunner) or runner.started else None


class LazyRunner:
    """Starts the sandbox on the first job, so that cached work never pays ~3 s of warm-up."""

    def __init__(self, level: str, workers: int, hide: tuple[str, ...], modules: dict[str, tuple[str, str]] | None = None) -> None:
        self._args = (level, workers, hide)
        self._modules = modules or {}
        self._runner: Any = None
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        return self._runner is not None

    @property
    def isolation(self) -> str:
        return self._get().isolation

    def run(self, job: Any) -> Any:
        return self._get().run(job)

    def run_all(self, jobs: Any) -> Any:
        return self._get().run_all(jobs)

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()

    def _get(self) -> Any:
        with self._lock:
            if self._runner is None:
                from .sandbox import open_runner

                level, workers, hide = self._args
                self._runner = open_runner(level, workers=workers, hide=hide, modules=self._modules)
            return self._runner


def load(course: Path | None) -> LoadedCourse:
    """Find and load the course (no torch, no sandbox): fast, for validation and help."""
    return load_course(find_course(course))


@contextmanager
def open_workspace(course: Path | None, *, isolation: str = "auto", workers: int = 1, cache: bool = True) -> Iterator[Workspace]:
    """Load the course and start the sandbox; always stops the sandbox on exit."""
    loaded = load(course)
    modules = sandbox_modules(loaded.exercises.values(), loaded.root)
    runner = LazyRunner(isolation, workers, (str(loaded.root.resolve()),), modules)
    try:
        cache_dir = loaded.root / CACHE_DIR if cache else None
        yield Workspace(loaded, Context(loaded.course, loaded.root, runner, cache_dir))
    finally:
        runner.close()
