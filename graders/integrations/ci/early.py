"""The sandbox first: one notebook's grader starts its fork servers before anything else.

Importing torch and warming it is most of what grading one notebook costs, and grading
needs the course read and half of graders imported (about half a second) before it asks for
a job. So ``graders ci`` and the pytest plugin start the sandbox here, having imported only
what finds the course, reads the notebook's cells and starts a runner, and do the rest
while the servers warm. Nothing here imports the course's models or a kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ...course.files import COURSE_FILE, find_course
from ...errors import SubmissionError
from ...kinds.registry import runs_jobs, task_modules
from ...sandbox.runner import LazyRunner

#: Where ``graders init-ci`` puts the course in a student repository.
VENDORED_COURSE = Path(".graders") / "course"


def course_path(course: Path | None, here: Path | None = None) -> Path | None:
    """The course to grade with: the one named, else ``.graders/course`` of ``here`` (the
    current folder), else None: the current folder's own course."""
    if course is not None:
        return course
    vendored = (here or Path()) / VENDORED_COURSE
    return vendored if (vendored / COURSE_FILE).is_file() else None


@contextmanager
def early_sandbox(
    course: Path | None, notebook: Path, isolation: str = "auto"
) -> Iterator[LazyRunner | None]:
    """A sandbox that starts warming now, before the course is read, when ``notebook``
    has an answer cell of a kind that runs code (``grade_notebook(..., early=...)`` then
    uses it); None when it has none. Stopped on exit. The seconds of torch's warm-up pass
    while the course loads: they are most of what one notebook costs."""
    runner = start_early(course, notebook, isolation)
    try:
        yield runner
    finally:
        if runner is not None:
            runner.close()


def start_early(course: Path | None, notebook: Path, isolation: str = "auto") -> LazyRunner | None:
    """``early_sandbox`` for a caller that closes it itself (the pytest plugin's session):
    the sandbox warming from now on, or None when ``notebook`` has no code answer cell."""
    return early_runner(course, isolation) if runs_code(notebook) else None


def early_runner(course: Path | None, isolation: str = "auto") -> LazyRunner:
    """A sandbox that starts warming now, before its course is read; hand it to
    ``start_workspace(..., runner=...)``, which gives it the course's modules. Raises
    ``UsageError`` when there is no course there."""
    root = find_course(course).parent
    runner = LazyRunner(isolation, 1, (str(root.resolve()),), task_modules())
    runner.start_soon()
    return runner


def runs_code(notebook: Path) -> bool:
    """Whether ``notebook``, read before its course is, has an answer cell of a kind that
    runs jobs in the sandbox: then the sandbox starts at once. Only a hint, and a cheap one:
    a folder, or a file that cannot be read, says no, and grading reads it again as usual."""
    from ...notebook.read import answer_cells, read_notebook

    try:
        if not notebook.is_file():
            return False
        cells = answer_cells(notebook, read_notebook(notebook)).cells.values()
    except (SubmissionError, OSError, ValueError):
        return False  # grading reads it again, and says what is wrong with it
    return any(runs_jobs(kind) for kind in {cell.reader.kind for found in cells for cell in found})
