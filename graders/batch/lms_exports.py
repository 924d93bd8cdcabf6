"""Grades as an LMS imports them: Canvas's Gradebook CSV, Moodle's CSV grade import, a plain CSV.

Canvas (Grades > Import) reads the layout of its own Gradebook export: the columns
``Student, ID, SIS User ID, SIS Login ID, Section``, then one column per assignment, its
header the assignment's name, or ``Name (ID)`` with Canvas's assignment id to leave no
doubt; the row under the header starts with ``Points Possible`` and gives each
assignment's points. Canvas finds each student by ``ID`` (its user id), else ``SIS User
ID``, else ``SIS Login ID``, else by name; an empty score leaves Canvas's grade as it is.

Moodle (Grade administration > Import > CSV file) maps one column to a user field
("Identify user by": email address, ID number or username) and a column to the grade
item. Every row must name a user Moodle knows, and an empty grade clears one, so rows
without the chosen identifier and submissions that could not be graded are left out.

In both, a ``missing`` student scores 0 and a student not on the roster is left out
(the LMS would not know them); an ungradable submission is left blank (Canvas) or out
(Moodle) so that no grade is given for a notebook nobody could read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import UsageError
from ..results import ResultsDocument, StudentResult, SubmissionStatus, format_points
from .csv_writer import csv_text
from .roster import Roster, RosterEntry

FORMATS = ("canvas", "moodle", "csv")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
# Canvas's own export indents it so; its importer looks for the words in the first cell.
POINTS_POSSIBLE = "    Points Possible"
MOODLE_IDENTIFIERS = {"email": "Email address", "idnumber": "ID number", "username": "Username"}
PLAIN_COLUMNS = (
    "student",
    "name",
    "email",
    "section",
    "sis_user_id",
    "sis_login_id",
    "lms_id",
    "status",
    "score",
    "max_score",
    "late_factor",
    "on_roster",
)


@dataclass(frozen=True)
class Export:
    """An export file's text, and what it had to leave out or blank, with why."""

    text: str
    rows: int  # students written
    left_out: tuple[tuple[str, str], ...] = ()  # (student, why)
    blank: tuple[str, ...] = ()  # students written without a score
    by_name: tuple[str, ...] = ()  # written without an id: the LMS can match them by name only


@dataclass(frozen=True)
class ExportOptions:
    """What an export needs beyond the results: the roster and the assignment's column."""

    column: str  # the assignment's column header
    points_possible: float
    roster: Roster | None = None
    identifier: str | None = None  # Moodle's user field; default: email with a roster


def export(doc: ResultsDocument, fmt: str, options: ExportOptions) -> Export:
    """The export of ``doc`` in ``fmt`` (one of ``FORMATS``)."""
    writers: dict[str, Callable[[ResultsDocument, ExportOptions], Export]] = {
        "canvas": canvas_csv,
        "moodle": moodle_csv,
        "csv": plain_csv,
    }
    if fmt not in writers:
        raise UsageError(f"unknown export format {fmt!r}: one of {', '.join(FORMATS)}")
    return writers[fmt](doc, options)


def canvas_csv(doc: ResultsDocument, options: ExportOptions) -> Export:
    """Canvas's Gradebook import file: one row per student on the roster (or every student)."""
    rows, left_out, blank, by_name = [], [], [], []
    for s in doc.students:
        if s.on_roster is False:
            left_out.append((s.student, "not on the roster"))
            continue
        entry = _entry(s, options.roster)
        score = _lms_score(s)
        if score is None:
            blank.append(s.student)
        login = entry.sis_login_id if options.roster else s.student
        if not (entry.lms_id or entry.sis_user_id or login):
            by_name.append(s.student)
        ids = [entry.name or s.student, entry.lms_id, entry.sis_user_id, login, entry.section]
        rows.append([*ids, score or ""])
    points = [POINTS_POSSIBLE, "", "", "", "", format_points(options.points_possible)]
    text = _csv([[*CANVAS_COLUMNS, options.column], points, *rows])
    return Export(text, len(rows), tuple(left_out), tuple(blank), tuple(by_name))


def moodle_csv(doc: ResultsDocument, options: ExportOptions) -> Export:
    """Moodle's CSV grade import: the identifier column, the name, the grade."""
    identifier = options.identifier or ("email" if options.roster else "username")
    if identifier not in MOODLE_IDENTIFIERS:
        raise UsageError(
            f"unknown Moodle identifier {identifier!r}: one of {', '.join(MOODLE_IDENTIFIERS)}"
        )
    rows, left_out = [], []
    for s in doc.students:
        entry = _entry(s, options.roster)
        value = _moodle_id(entry, identifier, options.roster is not None)
        score = _lms_score(s)
        if s.on_roster is False:
            left_out.append((s.student, "not on the roster"))
        elif not value:
            left_out.append(
                (s.student, f"no {MOODLE_IDENTIFIERS[identifier].lower()} in the roster")
            )
        elif score is None:
            left_out.append((s.student, f"{s.status.value}: {s.error or 'no grade'}"))
        else:
            rows.append([value, entry.name or s.student, score])
    text = _csv([[MOODLE_IDENTIFIERS[identifier], "Full name", options.column], *rows])
    return Export(text, len(rows), tuple(left_out))


def plain_csv(doc: ResultsDocument, options: ExportOptions) -> Export:
    """Every student with the roster's columns, status, score and whether they are listed."""
    rows = []
    for s in doc.students:
        e = _entry(s, options.roster)
        listed = "" if s.on_roster is None else ("yes" if s.on_roster else "no")
        roster_cells = [e.name, e.email, e.section, e.sis_user_id, e.sis_login_id, e.lms_id]
        scores = [format_points(s.score), format_points(s.max_score), f"{s.late_factor:g}"]
        rows.append([s.student, *roster_cells, s.status.value, *scores, listed])
    return Export(_csv([list(PLAIN_COLUMNS), *rows]), len(rows))


def _entry(s: StudentResult, roster: Roster | None) -> RosterEntry:
    found = roster.get(s.student) if roster else None
    return found or RosterEntry(s.student)


def _lms_score(s: StudentResult) -> str | None:
    """The points an LMS gets: the score (0 when missing or past the cutoff); None when the
    submission could not be graded."""
    if s.status is SubmissionStatus.UNGRADABLE:
        return None
    return format_points(s.score)


def _moodle_id(entry: RosterEntry, identifier: str, with_roster: bool) -> str:
    if identifier == "email":
        return entry.email
    if identifier == "idnumber":
        return entry.sis_user_id
    # Without a roster, graders' id is the best guess at a username.
    return entry.sis_login_id if with_roster else entry.student


def _csv(rows: list[list[str]]) -> str:
    # RFC 4180's line ends, as both LMSs document. Canvas's points row is indented with
    # spaces, not a formula start, so the guard keeps it.
    return csv_text(rows, line_end="\r\n")
