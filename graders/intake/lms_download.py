"""Files of an LMS's "download all submissions": one flat folder, the student in each name.

Canvas names every file of a submission

    <name>[_late]_<user id>_<file id>_<file name as uploaded>     lovelaceada_1234_56789_ps1.ipynb
    [late_]anon_<anonymous id>_<file id>_<file name>              (an anonymously graded assignment)

where ``<name>`` is the student's sortable name in lower case without spaces or
punctuation, and ``late`` (any case) marks a submission Canvas counted late by its own
due date; the marker is recognised, never used as a submission time. The ``<file id>``
may be absent (``alice_1234_ps1.ipynb``). The student is the roster's student whose
``lms_id`` is the user id; without such a roster entry, it is ``<name>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .identity import student_id
from .roster import Roster

CANVAS_FILE = re.compile(
    # The anonymous form first: `anon_x8Ue3_456_ps1.ipynb` would also read as a student
    # named "anon_x8Ue3" with user id 456.
    r"^(?:(?:late_)?(?P<anon>anon_[A-Za-z0-9]+)"
    r"|(?P<name>.+?)(?:_late)?_(?P<user>\d+))"
    r"(?:_(?P<file_id>\d+))?_(?P<original>.+)$",
    re.IGNORECASE,
)
PATTERN_HELP = "<name>_<id>_<file id>_<file>, as Canvas names the files of a bulk download"


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
    match = CANVAS_FILE.match(student_id(path.name))
    if match is None:
        return None
    if match["anon"]:
        return LmsFile(path, match["anon"], None, match["original"])
    listed = roster.by_lms_id(match["user"]) if roster else None
    student = listed.student if listed else match["name"]
    return LmsFile(path, student, match["user"], match["original"])


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
