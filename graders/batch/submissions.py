"""Find each student's notebook for an assignment in a submissions folder.

Two layouts are accepted, per student:

    SUBMISSIONS/<student>/<assignment>.ipynb
    SUBMISSIONS/<student>/<assignment>/<any name>.ipynb   (+ timestamp.txt: nbgrader's layout)

SUBMISSIONS may also be an nbgrader course root (the folder holding ``submitted/``).
A submission's time comes from a file beside it (``submission_times``), never from the
notebook's modification time. Nothing here reads a notebook: a student whose folder name
is unsafe, whose notebook is missing, or who handed in two notebooks becomes a ``Found``
with an ``error``, and the rest of the batch goes on.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from ..errors import UsageError
from .submission_times import recorded_time

# Student ids become file names (feedback pages, Gradescope files): letters, digits and
# . _ - @ + only, starting with a letter or digit, and never "..".
SAFE_STUDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$")
IGNORED = {".ipynb_checkpoints", ".git", "__MACOSX", ".DS_Store"}


@dataclass(frozen=True)
class Found:
    """One student's entry in the submissions folder: a notebook, or why there is none."""

    student: str
    path: Path | None  # the notebook, when exactly one was found
    source: str  # where it is, relative to the submissions folder (for messages)
    submitted_at: datetime | None = None
    error: str | None = None


def find_submissions(folder: Path, assignment: str) -> list[Found]:
    """Every student folder under ``folder`` (or its ``submitted/``), sorted by name."""
    base = submissions_base(folder)
    entries = sorted(
        p for p in base.iterdir() if p.name not in IGNORED and (p.is_dir() or p.is_symlink())
    )
    if not entries:
        raise UsageError(
            f"no student folders in {base} (expected {base}/<student>/{assignment}.ipynb)"
        )
    return [find_one(entry, assignment) for entry in entries]


def submissions_base(folder: Path) -> Path:
    """The folder whose subfolders are students: ``folder`` or its nbgrader ``submitted/``."""
    if not folder.is_dir():
        raise UsageError(f"no submissions folder at {folder}")
    nbgrader = folder / "submitted"
    return nbgrader if nbgrader.is_dir() and not nbgrader.is_symlink() else folder


def find_one(student_dir: Path, assignment: str) -> Found:
    """The notebook of one student folder, with its submission time, or the reason it has none."""
    name = student_dir.name
    if not safe_student(name):
        return Found(
            name,
            None,
            name,
            error=f"student folder name {name!r} is not allowed "
            "(letters, digits and . _ - @ + only, no '..')",
        )
    if student_dir.is_symlink():
        return Found(name, None, name, error=f"{name} is a symbolic link, not a folder")
    candidates = _candidates(student_dir, assignment)
    shown = [str(p.relative_to(student_dir.parent)) for p in candidates]
    if not candidates:
        return Found(
            name,
            None,
            name,
            error=f"no notebook for {assignment}: expected {name}/{assignment}.ipynb "
            f"or {name}/{assignment}/<notebook>.ipynb",
        )
    if len(candidates) > 1:
        return Found(
            name,
            None,
            name,
            error=f"{len(candidates)} notebooks for {assignment}, expected one: {', '.join(shown)}",
        )
    return _with_time(
        Found(name, candidates[0], shown[0]), nbgrader=candidates[0].parent != student_dir
    )


def safe_student(name: str) -> bool:
    """Can this student id be used as a file name?"""
    return bool(SAFE_STUDENT.match(name)) and ".." not in name


def _candidates(student_dir: Path, assignment: str) -> list[Path]:
    flat = student_dir / f"{assignment}.ipynb"
    found = [flat] if flat.exists() or flat.is_symlink() else []
    folder = student_dir / assignment
    if folder.is_dir() and not folder.is_symlink():
        found += sorted(
            p for p in folder.iterdir() if p.suffix == ".ipynb" and not p.name.startswith(".")
        )
    return found


def _with_time(found: Found, nbgrader: bool) -> Found:
    assert found.path is not None
    try:
        mode = found.path.lstat()
    except OSError as exc:
        return Found(
            found.student, None, found.source, error=f"{found.source}: cannot read: {exc.strerror}"
        )
    if not stat.S_ISREG(mode.st_mode):
        # A link or a FIFO could point the grader at files it must not read, or block it.
        return Found(
            found.student, None, found.source, error=f"{found.source} is not a regular file"
        )
    try:
        when = recorded_time(found.path, str(PurePosixPath(found.source).parent), nested=nbgrader)
    except ValueError as exc:
        return Found(found.student, None, found.source, error=str(exc))
    return Found(found.student, found.path, found.source, when)
