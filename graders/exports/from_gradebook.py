"""``graders export``: one assignment's grades from the gradebook, as an LMS imports them.

    export_assignment(loaded, "ps1", "canvas")  ->  Export (the file's text, who was left out)

The gradebook's results are held against the roster (``roster_check.on_roster``), so a
roster given after the last ``autograde`` run still lists its missing students. The file
is made a student at a time (``Export.lines``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..course.loaded import LoadedCourse, get_assignment
from ..errors import UsageError
from ..gradebook import store as gradebook
from ..gradebook.roster_check import on_roster
from ..grading.pipeline import planned_items
from ..intake.roster import find_roster
from .lms import Export, ExportOptions, export
from .results_files import default_out_dir


@dataclass(frozen=True)
class ExportRequest:
    """What to export and how to name the assignment for the LMS."""

    fmt: str  # canvas, moodle or csv
    db_url: str | None = None
    roster_path: Path | None = None  # default: roster.csv beside course.yml, if there
    column: str | None = None  # the assignment's column header; default: its id
    lms_assignment: str | None = None  # the LMS's assignment id: column "<id> (<lms id>)"
    identifier: str | None = None  # Moodle's user field (email, idnumber, username)


def export_assignment(loaded: LoadedCourse, assignment: str, request: ExportRequest) -> Export:
    """The export of ``assignment``'s grades; ``UsageError`` when nothing is graded yet."""
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
    options = ExportOptions(column, points, roster, request.identifier)
    return export(on_roster(results, roster), request.fmt, options)


def default_export_path(loaded: LoadedCourse, assignment: str, fmt: str) -> Path:
    """``autograded/<assignment>/<assignment>-<format>.csv`` in the course folder."""
    return default_out_dir(loaded, assignment) / f"{assignment}-{fmt}.csv"
