"""A course opened for work: its validated files, a sandbox runner and a truth cache.

Every command that needs torch goes through ``open_workspace``; the runner (a warm fork
server) starts once and is shut down when the ``with`` block ends, whatever happens.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .load import LoadedCourse, find_course, load_course
from .registry import Context

CACHE_DIR = ".graders-cache"


@dataclass(frozen=True)
class Workspace:
    """Everything a command needs to prepare truths and grade."""

    loaded: LoadedCourse
    ctx: Context

    @property
    def isolation(self) -> str:
        return self.ctx.runner.isolation


def load(course: Path | None) -> LoadedCourse:
    """Find and load the course (no torch, no sandbox): fast, for validation and help."""
    return load_course(find_course(course))


@contextmanager
def open_workspace(course: Path | None, *, isolation: str = "auto", workers: int = 1, cache: bool = True) -> Iterator[Workspace]:
    """Load the course and start the sandbox; always stops the sandbox on exit."""
    from .sandbox import open_runner

    loaded = load(course)
    runner = open_runner(isolation, workers=workers, hide=(str(loaded.root.resolve()),))
    try:
        cache_dir = loaded.root / CACHE_DIR if cache else None
        yield Workspace(loaded, Context(loaded.course, loaded.root, runner, cache_dir))
    finally:
        runner.close()
