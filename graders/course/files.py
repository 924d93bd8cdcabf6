"""Where a course's files are: ``course.yml`` and ``exercises/``, found from a path.

It imports nothing of the course's models: one notebook's grader finds its course here and
starts the sandbox before it imports or reads anything else (``integrations.ci.early``).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError

COURSE_FILE = "course.yml"
EXERCISES_DIR = "exercises"


def find_course(course: Path | None) -> Path:
    """The course.yml to use: ``--course PATH`` (file or folder) or the current folder's."""
    path = Path(course) if course else Path.cwd()
    if path.is_dir():
        path = path / COURSE_FILE
    if not path.is_file():
        raise UsageError(f"no course file at {path} (run inside a course folder or pass --course)")
    return path
