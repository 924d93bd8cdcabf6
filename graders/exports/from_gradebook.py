"""``graders export``: one assignment's grades from the gradebook, in one format.

    export_assignment(loaded, "ps1", ExportRequest("canvas"))
        ->  Export (the file's text, who was left out)

The format is any one-file format of ``exports.formats`` (an LMS's import, the plain CSV,
grades.csv, JUnit, the results document), with the options it declares.

An LMS's import leaves some learners out, or writes them blank (``exports.lms``): the
``Export`` says who and why; a learner ``drop``ped has no grade to write and is listed as
left out, whatever the format. The gradebook's results are held against the roster
(``roster_check.on_roster``), so a roster given after the last ``autograde`` run still
lists its missing students. The file is made a student at a time (``Export.lines``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..course.loaded import LoadedCourse, get_assignment
from ..errors import UsageError
from ..gradebook import store as gradebook
from ..gradebook.roster_check import on_roster
from ..grading.pipeline import planned_items
from ..intake.roster import find_roster
from ..results import ClassResults, file_pieces
from .contract import ExportContext
from .formats import ExportFormat, get_format
from .lms import LmsFile
from .results_files import default_out_dir


@dataclass(frozen=True)
class ExportRequest:
    """What to export and how to name the assignment for the LMS."""

    fmt: str  # a format's name (exports.formats): canvas, moodle, csv, ...
    db_url: str | None = None
    roster_path: Path | None = None  # default: roster.csv beside course.yml, if there
    column: str | None = None  # the assignment's column header; default: its id
    lms_assignment: str | None = None  # the LMS's assignment id: column "<id> (<lms id>)"
    # The format's own options (Moodle's identifier), each one it declares.
    options: Mapping[str, str | None] = field(default_factory=dict)


def export_assignment(loaded: LoadedCourse, assignment: str, request: ExportRequest) -> Export:
    """The export of ``assignment``'s grades; ``UsageError`` when nothing is graded yet, or
    for a format or option that is not one (before any work)."""
    form = get_format(request.fmt)
    chosen = form.checked(request.options)
    get_assignment(loaded, assignment)
    roster = find_roster(loaded.root, request.roster_path)
    url = gradebook.existing_url(request.db_url, loaded.root)
    results = gradebook.class_results(url, loaded.course.id, assignment, loaded.renamed)
    if not results.count:
        raise UsageError(
            f"nothing graded for {assignment} in the gradebook yet (run `graders autograde "
            f"{assignment} ...` first)"
        )
    column = request.column or (
        f"{assignment} ({request.lms_assignment})" if request.lms_assignment else assignment
    )
    points = sum(p for _, p in planned_items(loaded, assignment))
    context = ExportContext(column, points, roster, chosen, loaded)
    return export(on_roster(results, roster), form, context)


def default_export_path(loaded: LoadedCourse, assignment: str, fmt: str) -> Path:
    """``autograded/<assignment>/<assignment>-<format><suffix>`` in the course folder
    (``ps1-canvas.csv``)."""
    suffix = get_format(fmt).suffix
    return default_out_dir(loaded, assignment) / f"{assignment}-{fmt}{suffix}"


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
