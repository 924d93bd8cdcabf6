"""Files of an LMS's "download all submissions": one flat folder, the learner in each name.

Each LMS's names are its own (``lms.canvas``: ``lovelaceada_1234_56789_ps1.ipynb``); a name
is read by the first registered LMS whose download pattern it matches (``lms.registry``).
The student is the roster's student whose ``lms_id`` is the name's LMS user id; without
such a roster entry, it is the name the LMS wrote (or an anonymised learner's id).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..lms.registry import registered
from .identity import student_id
from .roster import Roster


def patterns() -> list[re.Pattern[str]]:
    """Every registered LMS's download names, in the registry's order."""
    return [lms.download.pattern for lms in registered() if lms.download]


def pattern_help() -> str:
    """How the download names read, for a message: each LMS's, joined."""
    return "; or ".join(lms.download.shown for lms in registered() if lms.download)


def downloaded_name(name: str) -> re.Match[str] | None:
    """The match of ``name`` with the first LMS's download names it follows, else None."""
    return next((m for p in patterns() if (m := p.match(name)) is not None), None)


@dataclass(frozen=True)
class LmsFile:
    """One file of a bulk download, and whose it is."""

    path: Path
    student: str  # the roster's student for its LMS user id, else the name in the file name
    lms_id: str | None  # the LMS's user id (None for an anonymised download)
    original: str  # the file name the learner uploaded

    @property
    def is_notebook(self) -> bool:
        return self.original.lower().endswith(".ipynb")


def parse_lms_file(path: Path, roster: Roster | None = None) -> LmsFile | None:
    """Whose file ``path`` is, from its name; None when the name follows no known pattern."""
    match = downloaded_name(student_id(path.name))
    if match is None:
        return None
    found = match.groupdict()
    if found.get("anon"):
        return LmsFile(path, found["anon"], None, match["original"])
    user = found.get("user")
    listed = roster.by_lms_id(user) if roster and user else None
    student = listed.student if listed else match["name"]
    return LmsFile(path, student, user, match["original"])


def by_student(files: Iterable[LmsFile]) -> dict[str, list[LmsFile]]:
    """The files of each student, in name order."""
    groups: dict[str, list[LmsFile]] = {}
    for f in sorted(files, key=lambda f: f.path.name):
        groups.setdefault(f.student, []).append(f)
    return groups


def ambiguity(files: list[LmsFile]) -> str | None:
    """Why one student's files may be several people's: two LMS users with the same name."""
    ids = sorted({f.lms_id for f in files if f.lms_id})
    if len(ids) < 2:
        return None
    return (
        f"{len(ids)} LMS users are named {files[0].student!r} (ids {', '.join(ids)}): list them "
        "in the roster with their lms_id to tell them apart"
    )
