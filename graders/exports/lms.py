"""Grades as an LMS imports them: each registered LMS's import file, and a plain CSV.

    lms_writer(lms.export)      the writer of an LMS's import (``lms.contract.LmsExport``):
                                its rows above the learners', a line per learner, as CSV
    plain_file                  one grade per learner with the roster's ids

What each LMS's file holds is its module's (``lms.canvas``, ``lms.moodle``); here is what
they share: the roster's entry of each learner (one of their id only, without a roster),
RFC 4180's line ends, the one CSV writer and its formula guard, and what a learner's line
says (``LmsFile.line``: left out, blank, matched by name) for ``graders export``'s account.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..intake.roster import Roster, RosterEntry
from ..lms.contract import ExportOptions, Line, LmsExport, RosterRow
from ..results import ClassResults, StudentResult, format_points
from .csv_writer import csv_text

if TYPE_CHECKING:
    from .contract import ExportContext, Writer

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


def _plain_line(s: StudentResult, entry: RosterRow, options: ExportOptions) -> Line:
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
