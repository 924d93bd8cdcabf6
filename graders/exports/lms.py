"""Grades as an LMS imports them: each registered LMS's import file, and a plain CSV.

    lms_writer(lms.export)      the writer of an LMS's import (``lms.contract.LmsExport``):
                                its rows above the learners', a line per learner, as CSV
    plain_file                  one grade per learner with the roster's ids
    export(results, fmt, ctx)   any one-file format of ``exports.formats``, and who its
                                file leaves out or blank, with why

What each LMS's file holds is its module's (``lms.canvas``, ``lms.moodle``); here is what
they share: the roster's entry of each learner (one of their id only, without a roster),
RFC 4180's line ends, the one CSV writer and its formula guard, and the pass over the class
that says who is left out. A learner ``drop``ped has no grade to write and is listed as left
out, whatever the format.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..intake.roster import Roster, RosterEntry
from ..lms.contract import ExportOptions, Line, LmsExport
from ..results import ClassResults, StudentResult, file_pieces, format_points
from .csv_writer import csv_text

if TYPE_CHECKING:
    from .formats import ExportContext, ExportFormat, Writer

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
class LmsFile:
    """An import file a learner at a time (a ``results.ClassFile``): CSV rows with RFC
    4180's line ends, as every LMS documents. Canvas's points row is indented with spaces,
    not a formula start, so the guard keeps it."""

    form: LmsExport
    options: ExportOptions
    roster: Roster | None

    def head(self) -> str:
        return csv_text(self.form.head(self.options), line_end="\r\n")

    def student(self, s: StudentResult) -> str:
        row = self.line(s).row
        return "" if row is None else csv_text([row], line_end="\r\n")

    def tail(self) -> str:
        return ""

    def line(self, s: StudentResult) -> Line:
        """What the file makes of ``s``: their row, or why they are left out."""
        found = self.roster.get(s.student) if self.roster else None
        return self.form.line(s, found or RosterEntry(s.student), self.options)


def lms_writer(form: LmsExport) -> Writer:
    """The writer of an LMS's import file ``form``."""

    def make(results: ClassResults, context: ExportContext) -> LmsFile:
        options = ExportOptions(
            context.column, context.points_possible, context.roster is not None, context.chosen
        )
        return LmsFile(form, options, context.roster)

    return make


def _plain_line(s: StudentResult, entry: RosterEntry, options: ExportOptions) -> Line:
    """Every student with the roster's columns, status, score and whether they are listed."""
    e = entry
    listed = "" if s.on_roster is None else ("yes" if s.on_roster else "no")
    roster_cells = [e.name, e.email, e.section, e.sis_user_id, e.sis_login_id, e.lms_id]
    # Out of what the assignment is worth for everyone, a learner who handed nothing in too
    # (their result has no question to add up: its own maximum is 0).
    most = s.max_score if s.questions else options.points_possible
    scores = [format_points(s.score), format_points(most), f"{s.late_factor:g}"]
    return Line([s.student, *roster_cells, s.status.value, *scores, listed])


PLAIN = LmsExport("", lambda options: [[*PLAIN_COLUMNS]], _plain_line)
plain_file = lms_writer(PLAIN)


@dataclass(frozen=True)
class Export:
    """An export file, and what it had to leave out or blank, with why.

    ``lines()`` reads the class again, a student at a time: a file of any size is written
    as it is made, never held.
    """

    results: ClassResults
    form: ExportFormat
    context: ExportContext
    rows: int  # students written
    left_out: tuple[tuple[str, str], ...] = ()  # (student, why)
    blank: tuple[str, ...] = ()  # students written without a score
    by_name: tuple[str, ...] = ()  # written without an id: the LMS can match them by name only

    def lines(self) -> Iterator[str]:
        """The file a piece at a time (a pass over the class)."""
        file = self.form.one_file_of(self.results, self.context)
        return (piece for piece in file_pieces(file, self.results.students()) if piece)

    @property
    def text(self) -> str:
        """The whole file as one text (for a few students)."""
        return "".join(self.lines())


def export(results: ClassResults, form: ExportFormat, context: ExportContext) -> Export:
    """The export of ``results`` in the one-file format ``form``: a pass over the class says
    who is left out (an LMS's import leaves some out), ``Export.lines`` writes it."""
    file = form.one_file_of(results, context)
    rows, left_out, blank, by_name = 0, [], [], []
    if isinstance(file, LmsFile):
        for s in results.students():
            line = file.line(s)
            rows += line.row is not None
            left_out += [(s.student, line.left_out)] if line.left_out else []
            blank += [s.student] if line.blank else []
            by_name += [s.student] if line.by_name else []
    else:
        rows = results.count  # a file of every learner's results
    # A dropped learner has no grade to write, and the instructor is told so, as for the rest.
    left_out += [(student, "dropped (graders drop)") for student in sorted(results.dropped)]
    return Export(results, form, context, rows, tuple(left_out), tuple(blank), tuple(by_name))
