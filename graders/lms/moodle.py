"""Moodle: its names of the roster's ids, its CSV grade import.

Roster. Moodle's "ID number" is the roster's ``sis_user_id``, its "Username" the
roster's ``sis_login_id``, its "Email address" the roster's ``email``.

Import (Grade administration > Import > CSV file) maps one column to a user field
("Identify user by": email address, ID number or username) and a column to the grade
item. Every row must name a user Moodle knows, and an empty grade clears one, so rows
without the chosen identifier, students not on the roster and submissions that could not
be graded are left out; a ``missing`` student scores 0.

Moodle's bulk download is not read by name: its folders are read as learners' folders.
"""

from __future__ import annotations

from ..results import StudentResult
from .contract import ExportOption, ExportOptions, Line, Lms, LmsExport, RosterRow, lms_score
from .registry import register

ROSTER_NAMES = {"email": "Email address", "sis_user_id": "ID number", "sis_login_id": "Username"}
# "Identify user by": each of Moodle's user fields, and the roster's column it is read from.
IDENTIFIERS = {"email": "email", "idnumber": "sis_user_id", "username": "sis_login_id"}
IDENTIFIER = ExportOption(
    "identifier",
    tuple(IDENTIFIERS),
    "the user field students are matched by; default: email with a roster, else username.",
)


def identifier(options: ExportOptions) -> str:
    """The user field chosen, or the default: email with a roster, else username."""
    return options.chosen.get("identifier") or ("email" if options.with_roster else "username")


def head(options: ExportOptions) -> list[list[object]]:
    return [[ROSTER_NAMES[IDENTIFIERS[identifier(options)]], "Full name", options.column]]


def line(s: StudentResult, entry: RosterRow, options: ExportOptions) -> Line:
    """The identifier column, the name, the grade."""
    field = IDENTIFIERS[identifier(options)]
    # Without a roster, graders' id is the best guess at a username.
    guessed = field == "sis_login_id" and not options.with_roster
    value = entry.student if guessed else getattr(entry, field)
    score = lms_score(s)
    if s.on_roster is False:
        return Line(None, "not on the roster")
    if not value:
        return Line(None, f"no {ROSTER_NAMES[field].lower()} in the roster")
    if score is None:
        return Line(None, f"{s.status.value}: {s.error or 'no grade'}")
    return Line([value, entry.name or s.student, score])


MOODLE = register(
    Lms(
        "moodle",
        "Moodle",
        ROSTER_NAMES,
        export=LmsExport("Moodle's CSV grade import", head, line, (IDENTIFIER,)),
    )
)
