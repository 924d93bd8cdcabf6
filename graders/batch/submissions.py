"""Find each student's notebook for an assignment in a submissions folder.

Three layouts are accepted, and may be mixed:

    SUBMISSIONS/<student>/<assignment>.ipynb
    SUBMISSIONS/<student>/<assignment>/<any name>.ipynb   (+ timestamp.txt: nbgrader's layout)
    SUBMISSIONS/<name>_<id>_<file id>_<file>.ipynb        (an LMS's bulk download: lms_download)

SUBMISSIONS may also be an nbgrader course root (the folder holding ``submitted/``). A
student folder that holds neither ``<assignment>.ipynb`` nor ``<assignment>/`` but exactly
one other notebook (``ps1 (1).ipynb``, ``Untitled.ipynb``) hands in that one; notebooks
named after another assignment of the course are not candidates. A submission's time
comes from a file beside it (``submission_times``), never from the notebook's
modification time. Nothing here reads a notebook: a student whose folder name is unsafe,
whose notebook is missing, or who handed in several becomes a ``Found`` with an ``error``
naming what was found, and the rest of the batch goes on.
"""

from __future__ import annotations

import stat
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from ..errors import UsageError
from ..notebook.read import cannot_read
from ..said import say
from . import notebook_choice
from .lms_download import CANVAS_FILE, PATTERN_HELP, by_student, parse_lms_file
from .roster import Roster
from .student_ids import RULE, safe_student, student_id
from .submission_times import recorded_time

__all__ = ["Found", "find_one", "find_submissions", "safe_student", "submissions_base"]

IGNORED = {".ipynb_checkpoints", ".git", "__MACOSX", ".DS_Store"}


@dataclass(frozen=True)
class Found:
    """One student's entry in the submissions folder: a notebook, or why there is none."""

    student: str
    path: Path | None  # the notebook, when exactly one was found
    source: str  # where it is, relative to the submissions folder (for messages)
    submitted_at: datetime | None = None
    error: str | None = None


def find_submissions(
    folder: Path,
    assignment: str,
    *,
    roster: Roster | None = None,
    others: Collection[str] = (),
) -> list[Found]:
    """Every student under ``folder`` (or its ``submitted/``), sorted by id.

    ``others`` are the course's other assignments; ``roster`` names the student of each
    LMS user id in a bulk download.
    """
    base = submissions_base(folder)
    folders, downloaded, loose = _top_level(base)
    found = [find_one(entry, assignment, others) for entry in folders]
    files = [f for p in downloaded if (f := parse_lms_file(p, roster)) is not None]
    for student, group in by_student(files).items():
        found.append(
            _found(student, notebook_choice.in_download(student, group, assignment, others))
        )
    for p in loose:
        name = student_id(p.name)
        found.append(Found(name, None, name, error=notebook_choice.loose_error(name)))
    if not found:
        raise UsageError(
            f"no student folders in {base} (expected {base}/<student>/{assignment}.ipynb, "
            f"or notebooks named {PATTERN_HELP})"
        )
    return _one_per_student(found)


def submissions_base(folder: Path) -> Path:
    """The folder whose subfolders are students: ``folder`` or its nbgrader ``submitted/``."""
    if not folder.is_dir():
        raise UsageError(f"no submissions folder at {folder}")
    nbgrader = folder / "submitted"
    return nbgrader if nbgrader.is_dir() and not nbgrader.is_symlink() else folder


def _top_level(base: Path) -> tuple[list[Path], list[Path], list[Path]]:
    """Student folders, files named as in an LMS download, and other loose notebooks."""
    folders, downloaded, loose = [], [], []
    for p in sorted(base.iterdir()):
        if p.name in IGNORED:
            continue
        is_folder = p.is_dir() and not p.is_symlink()
        if not is_folder and CANVAS_FILE.match(p.name):
            downloaded.append(p)
        elif p.is_dir() or p.is_symlink():
            folders.append(p)
        elif p.suffix.lower() == ".ipynb":
            loose.append(p)
    return folders, downloaded, loose


def find_one(student_dir: Path, assignment: str, others: Collection[str] = ()) -> Found:
    """The notebook of one student folder, with its submission time, or the reason it has none."""
    name = student_dir.name
    student = student_id(name)
    if not safe_student(student):
        error = say(
            "student folder name {name} is not allowed ({rule})", name=repr(name), rule=RULE
        )
        return Found(student, None, name, error=error)
    if student_dir.is_symlink():
        error = say("{name} is a symbolic link, not a folder", name=name)
        return Found(student, None, name, error=error)
    return _found(student, notebook_choice.in_folder(student_dir, assignment, others), student_dir)


def _found(student: str, choice: notebook_choice.Choice, student_dir: Path | None = None) -> Found:
    """A student's entry for the notebook chosen, with its submission time."""
    found = Found(student, choice.path, choice.source, error=choice.error)
    if found.path is None:
        return found
    # nbgrader's layout (a notebook in <student>/<assignment>/) has its timestamp.txt; a
    # notebook of an LMS download sits with everyone's, so nothing beside it is its own.
    nbgrader = student_dir is not None and found.path.parent != student_dir
    return _with_time(found, nbgrader, beside=student_dir is not None)


def _one_per_student(found: list[Found]) -> list[Found]:
    """Entries sorted by student; a student found twice (a folder and a download) is an error."""
    groups: dict[str, list[Found]] = {}
    for f in found:
        groups.setdefault(f.student, []).append(f)
    merged = []
    for student in sorted(groups):
        entries = groups[student]
        if len(entries) == 1:
            merged.append(entries[0])
            continue
        sources = ", ".join(e.source for e in entries)
        error = say(
            "{count} submissions for {student}, expected one: {sources}",
            count=len(entries),
            student=student,
            sources=sources,
        )
        merged.append(Found(student, None, entries[0].source, error=error))
    return merged


def _with_time(found: Found, nbgrader: bool, beside: bool) -> Found:
    assert found.path is not None
    try:
        mode = found.path.lstat()
    except OSError as exc:
        return Found(found.student, None, found.source, error=cannot_read(found.source, exc))
    if not stat.S_ISREG(mode.st_mode):
        # A link or a FIFO could point the grader at files it must not read, or block it.
        error = say("{path} is not a regular file", path=found.source)
        return Found(found.student, None, found.source, error=error)
    try:
        shown = str(PurePosixPath(found.source).parent)
        when = recorded_time(found.path, shown, nested=nbgrader) if beside else None
    except ValueError as exc:
        return Found(found.student, None, found.source, error=str(exc))
    return Found(found.student, found.path, found.source, when)
