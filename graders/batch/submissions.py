"""Find each student's notebook for an assignment in a submissions folder.

Two layouts are accepted, per student:

    SUBMISSIONS/<student>/<assignment>.ipynb
    SUBMISSIONS/<student>/<assignment>/<any name>.ipynb   (+ timestamp.txt: nbgrader's layout)

SUBMISSIONS may also be an nbgrader course root (the folder holding ``submitted/``).
Nothing here reads a notebook: a student whose folder name is unsafe, whose notebook is
missing, or who handed in two notebooks becomes a ``Found`` with an ``error``, and the
rest of the batch goes on.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from ..errors import UsageError

# Student ids become file names (feedback pages, Gradescope files): letters, digits and
# . _ - @ + only, starting with a letter or digit, and never "..".
SAFE_STUDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$")
IGNORED = {".ipynb_checkpoints", ".git", "__MACOSX", ".DS_Store"}
TIMESTAMP_FILE = "timestamp.txt"
MAX_TIMESTAMP_BYTES = 200


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
    stamp = found.path.parent / TIMESTAMP_FILE
    if not nbgrader or not stamp.is_file():
        when = datetime.fromtimestamp(mode.st_mtime, UTC)
        return Found(found.student, found.path, found.source, when)
    try:
        return Found(found.student, found.path, found.source, read_timestamp(stamp))
    except ValueError as exc:
        return Found(
            found.student,
            None,
            found.source,
            error=f"{found.student}/{stamp.parent.name}/{TIMESTAMP_FILE}: {exc}",
        )


def read_timestamp(path: Path) -> datetime:
    """nbgrader's ``timestamp.txt`` (``2026-10-05 20:00:00.000000 UTC``), as an aware time."""
    with path.open("rb") as handle:
        text = handle.read(MAX_TIMESTAMP_BYTES).decode("utf-8", errors="replace").strip()
    return parse_timestamp(text)


def parse_timestamp(text: str) -> datetime:
    """A submission time as nbgrader writes it; a time without a zone is UTC (as in nbgrader)."""
    body, _, zone = text.rpartition(" ")
    candidates = [(text, None), (body, zone)] if body else [(text, None)]
    for stamp, zone_name in candidates:
        try:
            when = datetime.fromisoformat(stamp)
        except ValueError:
            continue
        return _in_zone(when, zone_name, text)
    raise ValueError(f"not a time: {text[:60]!r}")


def _in_zone(when: datetime, zone: str | None, text: str) -> datetime:
    if zone is None or zone.upper() in ("UTC", "GMT", "Z"):
        return when if when.tzinfo else when.replace(tzinfo=UTC)
    offset = re.fullmatch(r"([+-])(\d\d):?(\d\d)", zone)
    if offset is None or when.tzinfo is not None:
        raise ValueError(
            f"unknown time zone {zone!r} in {text[:60]!r} (write UTC or an offset like +0200)"
        )
    delta = timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3)))
    return when.replace(tzinfo=timezone(delta if offset.group(1) == "+" else -delta))
