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

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain

from ..errors import UsageError
from ..intake.roster import Roster, RosterEntry
from ..results import NOT_GRADED, ClassResults, StudentResult, format_points
from .csv_writer import csv_lines

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
class ExportOptions:
    """What an export needs beyond the results: the roster and the assignment's column."""

    column: str  # the assignment's column header
    points_possible: float
    roster: Roster | None = None
    identifier: str | None = None  # Moodle's user field; default: email with a roster


@dataclass(frozen=True)
class Line:
    """What an export makes of one student: their row, or why they are left out."""

    row: list[object] | None
    left_out: str | None = None  # why there is no row
    blank: bool = False  # written without a score
    by_name: bool = False  # written without an id: the LMS can match them by name only


@dataclass(frozen=True)
class Format:
    """An LMS's file: the rows above the students', and each student's line."""

    head: Callable[[ExportOptions], list[list[object]]]
    line: Callable[[StudentResult, ExportOptions], Line]


@dataclass(frozen=True)
class Export:
    """An export file, and what it had to leave out or blank, with why.

    ``lines()`` reads the class again, a student at a time: a file of any size is written
    as it is made, never held.
    """

    results: ClassResults
    form: Format
    options: ExportOptions
    rows: int  # students written
    left_out: tuple[tuple[str, str], ...] = ()  # (student, why)
    blank: tuple[str, ...] = ()  # students written without a score
    by_name: tuple[str, ...] = ()  # written without an id: the LMS can match them by name only

    def lines(self) -> Iterator[str]:
        """The file a line at a time (a pass over the class)."""
        # RFC 4180's line ends, as both LMSs document. Canvas's points row is indented with
        # spaces, not a formula start, so the guard keeps it.
        return csv_lines(chain(self.form.head(self.options), self._rows()), line_end="\r\n")

    @property
    def text(self) -> str:
        """The whole file as one text (for a few students)."""
        return "".join(self.lines())

    def _rows(self) -> Iterator[list[object]]:
        for s in self.results.students():
            row = self.form.line(s, self.options).row
            if row is not None:
                yield row


def export(results: ClassResults, fmt: str, options: ExportOptions) -> Export:
    """The export of ``results`` in ``fmt`` (one of ``FORMATS``): a pass over the class says
    who is left out, ``Export.lines`` writes it."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown export format {fmt!r}: one of {', '.join(FORMATS)}")
    form = {"canvas": CANVAS, "moodle": MOODLE, "csv": PLAIN}[fmt]
    if fmt == "moodle":
        _moodle_identifier(options)  # a wrong one is a usage error before any work
    rows, left_out, blank, by_name = 0, [], [], []
    for s in results.students():
        line = form.line(s, options)
        rows += line.row is not None
        left_out += [(s.student, line.left_out)] if line.left_out else []
        blank += [s.student] if line.blank else []
        by_name += [s.student] if line.by_name else []
    # A dropped learner has no grade to write, and the instructor is told so, as for the rest.
    left_out += [(student, "dropped (graders drop)") for student in sorted(results.dropped)]
    return Export(results, form, options, rows, tuple(left_out), tuple(blank), tuple(by_name))


def _canvas_head(options: ExportOptions) -> list[list[object]]:
    points: list[object] = [POINTS_POSSIBLE, "", "", "", "", format_points(options.points_possible)]
    return [[*CANVAS_COLUMNS, options.column], points]


def _canvas_line(s: StudentResult, options: ExportOptions) -> Line:
    """Canvas's Gradebook import file: one row per student on the roster (or every student)."""
    if s.on_roster is False:
        return Line(None, "not on the roster")
    entry = _entry(s, options.roster)
    score = _lms_score(s)
    login = entry.sis_login_id if options.roster else s.student
    ids = [entry.name or s.student, entry.lms_id, entry.sis_user_id, login, entry.section]
    by_name = not (entry.lms_id or entry.sis_user_id or login)
    return Line([*ids, score or ""], blank=score is None, by_name=by_name)


def _moodle_identifier(options: ExportOptions) -> str:
    identifier = options.identifier or ("email" if options.roster else "username")
    if identifier not in MOODLE_IDENTIFIERS:
        raise UsageError(
            f"unknown Moodle identifier {identifier!r}: one of {', '.join(MOODLE_IDENTIFIERS)}"
        )
    return identifier


def _moodle_head(options: ExportOptions) -> list[list[object]]:
    return [[MOODLE_IDENTIFIERS[_moodle_identifier(options)], "Full name", options.column]]


def _moodle_line(s: StudentResult, options: ExportOptions) -> Line:
    """Moodle's CSV grade import: the identifier column, the name, the grade."""
    identifier = _moodle_identifier(options)
    entry = _entry(s, options.roster)
    value = _moodle_id(entry, identifier, options.roster is not None)
    score = _lms_score(s)
    if s.on_roster is False:
        return Line(None, "not on the roster")
    if not value:
        return Line(None, f"no {MOODLE_IDENTIFIERS[identifier].lower()} in the roster")
    if score is None:
        return Line(None, f"{s.status.value}: {s.error or 'no grade'}")
    return Line([value, entry.name or s.student, score])


def _plain_line(s: StudentResult, options: ExportOptions) -> Line:
    """Every student with the roster's columns, status, score and whether they are listed."""
    e = _entry(s, options.roster)
    listed = "" if s.on_roster is None else ("yes" if s.on_roster else "no")
    roster_cells = [e.name, e.email, e.section, e.sis_user_id, e.sis_login_id, e.lms_id]
    # Out of what the assignment is worth for everyone, a learner who handed nothing in too
    # (their result has no question to add up: its own maximum is 0).
    most = s.max_score if s.questions else options.points_possible
    scores = [format_points(s.score), format_points(most), f"{s.late_factor:g}"]
    return Line([s.student, *roster_cells, s.status.value, *scores, listed])


CANVAS = Format(_canvas_head, _canvas_line)
MOODLE = Format(_moodle_head, _moodle_line)
PLAIN = Format(lambda options: [[*PLAIN_COLUMNS]], _plain_line)


def _entry(s: StudentResult, roster: Roster | None) -> RosterEntry:
    found = roster.get(s.student) if roster else None
    return found or RosterEntry(s.student)


def _lms_score(s: StudentResult) -> str | None:
    """The points an LMS gets: the score (0 when missing or past the cutoff); None when the
    submission could not be graded."""
    if s.status in NOT_GRADED:
        return None
    return format_points(s.score)


def _moodle_id(entry: RosterEntry, identifier: str, with_roster: bool) -> str:
    if identifier == "email":
        return entry.email
    if identifier == "idnumber":
        return entry.sis_user_id
    # Without a roster, graders' id is the best guess at a username.
    return entry.sis_login_id if with_roster else entry.student
