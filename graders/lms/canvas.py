"""Canvas: its bulk download's file names, its names of the roster's ids, its Gradebook import.

Download. Canvas names every file of a submission

    <name>[_late]_<user id>_<file id>_<file name as uploaded>     lovelaceada_1234_56789_ps1.ipynb
    [late_]anon_<anonymous id>_<file id>_<file name>              (an anonymously graded assignment)

where ``<name>`` is the student's sortable name in lower case without spaces or
punctuation, and ``late`` (any case) marks a submission Canvas counted late by its own
due date; the marker is recognised, never used as a submission time. The ``<file id>``
may be absent (``alice_1234_ps1.ipynb``). The student is the roster's student whose
``lms_id`` is the user id; without such a roster entry, it is ``<name>``.

Roster. The roster's ``lms_id`` is Canvas's "ID" (its user id), ``sis_user_id`` and
``sis_login_id`` the institution's ids that Canvas shows as "SIS User ID" and "SIS Login
ID".

Import (Grades > Import) reads the layout of Canvas's own Gradebook export: the columns
``Student, ID, SIS User ID, SIS Login ID, Section``, then one column per assignment, its
header the assignment's name, or ``Name (ID)`` with Canvas's assignment id to leave no
doubt; the row under the header starts with ``Points Possible`` and gives each
assignment's points. Canvas finds each student by ``ID`` (its user id), else ``SIS User
ID``, else ``SIS Login ID``, else by name; an empty score leaves Canvas's grade as it is.
So a student not on the roster is left out (Canvas would not know them), a ``missing``
one scores 0, and an ungradable submission is written blank: no grade is given for a
notebook nobody could read.
"""

from __future__ import annotations

import re

from ..results import StudentResult, format_points
from .contract import Download, ExportOptions, Line, Lms, LmsExport, RosterRow, lms_score
from .registry import register

FILE_NAME = re.compile(
    # The anonymous form first: `anon_x8Ue3_456_ps1.ipynb` would also read as a student
    # named "anon_x8Ue3" with user id 456.
    r"^(?:(?:late_)?(?P<anon>anon_[A-Za-z0-9]+)"
    r"|(?P<name>.+?)(?:_late)?_(?P<user>\d+))"
    r"(?:_(?P<file_id>\d+))?_(?P<original>.+)$",
    re.IGNORECASE,
)
DOWNLOAD_SHOWN = "<name>_<id>_<file id>_<file>, as Canvas names the files of a bulk download"
# The Gradebook's first columns, each the roster's column it is written from.
ROSTER_NAMES = {
    "name": "Student",
    "lms_id": "ID",
    "sis_user_id": "SIS User ID",
    "sis_login_id": "SIS Login ID",
    "section": "Section",
}
COLUMNS = tuple(ROSTER_NAMES.values())
# Canvas's own export indents it so; its importer looks for the words in the first cell.
POINTS_POSSIBLE = "    Points Possible"


def head(options: ExportOptions) -> list[list[object]]:
    points: list[object] = [POINTS_POSSIBLE, "", "", "", "", format_points(options.points_possible)]
    return [[*COLUMNS, options.column], points]


def line(s: StudentResult, entry: RosterRow, options: ExportOptions) -> Line:
    """One row per student on the roster (or every student, without one)."""
    if s.on_roster is False:
        return Line(None, "not on the roster")
    score = lms_score(s)
    login = entry.sis_login_id if options.with_roster else s.student
    ids = [entry.name or s.student, entry.lms_id, entry.sis_user_id, login, entry.section]
    by_name = not (entry.lms_id or entry.sis_user_id or login)
    return Line([*ids, score or ""], blank=score is None, by_name=by_name)


CANVAS = register(
    Lms(
        "canvas",
        "Canvas",
        ROSTER_NAMES,
        Download(
            FILE_NAME, "<name>_<id>_<file id>_<file>, as Canvas names the files of a bulk download"
        ),
        LmsExport("Canvas's Gradebook import", head, line),
    )
)
