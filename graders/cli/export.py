"""``graders export``: an assignment's grades as Canvas, Moodle or a plain CSV imports them."""

from __future__ import annotations

from pathlib import Path

import click

from ..exports.lms import FORMATS, MOODLE_IDENTIFIERS
from . import course_option, main
from .batch_options import db_option
from .batch_output import printable
from .roster import roster_option


@main.command("export")
@click.argument("assignment")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    required=True,
    help="Canvas, Moodle, or a plain CSV.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The file to write ('-': standard output); default: "
    "autograded/ASSIGNMENT/ASSIGNMENT-FORMAT.csv in the course folder.",
)
@course_option
@db_option
@roster_option
@click.option("--column", default=None, help="The assignment's column header; default: its id.")
@click.option(
    "--lms-assignment",
    metavar="ID",
    default=None,
    help="The LMS's id of the assignment: the column becomes 'ASSIGNMENT (ID)', as Canvas "
    "names it.",
)
@click.option(
    "--identifier",
    type=click.Choice(list(MOODLE_IDENTIFIERS)),
    default=None,
    help="Moodle: the user field students are matched by; default: email with a roster, "
    "else username.",
)
def export_grades(
    assignment: str,
    fmt: str,
    output: Path | None,
    course: Path | None,
    db_url: str | None,
    roster_path: Path | None,
    column: str | None,
    lms_assignment: str | None,
    identifier: str | None,
) -> None:
    """Write ASSIGNMENT's grades from the gradebook as a file an LMS imports as it is."""
    from ..exports.from_gradebook import ExportRequest, default_export_path, export_assignment
    from ..exports.results_files import write_atomic
    from ..session import load

    loaded = load(course)
    request = ExportRequest(fmt, db_url, roster_path, column, lms_assignment, identifier)
    result = export_assignment(loaded, assignment, request)
    if output is not None and str(output) == "-":
        for line in result.lines():
            click.echo(line, nl=False)
    else:
        path = output or default_export_path(loaded, assignment, fmt)
        write_atomic(path, result.lines())
        click.echo(f"wrote {result.rows} student{'s' * (result.rows != 1)} to {path}", err=True)
    for student, why in result.left_out:
        click.echo(f"  left out {printable(student)}: {printable(why)}", err=True)
    if result.blank:
        names = ", ".join(printable(s) for s in result.blank)
        click.echo(f"  no score (could not be graded; the LMS keeps its grade): {names}", err=True)
    if result.by_name:
        names = ", ".join(printable(s) for s in result.by_name)
        click.echo(f"  no id in the roster, matched by name only: {names}", err=True)
