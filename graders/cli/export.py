"""``graders export``: an assignment's grades in any one-file format (an LMS's import, a
plain CSV, ...); the formats and their options are the registry's (``exports.formats``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..exports.formats import all_options, formats
from . import course_option, main
from .batch_options import db_option
from .batch_output import printable
from .roster import roster_option

F = TypeVar("F", bound=Callable[..., Any])


class FormatChoice(click.Choice[str]):
    """The one-file formats registered when the command runs (a format registered after the
    command was made is one too)."""

    def __init__(self) -> None:
        super().__init__([])

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(f.name for f in formats() if f.one_file)

    @choices.setter
    def choices(self, _: object) -> None:
        pass  # click sets it once, to the empty list above


def _formats_help() -> str:
    return "; ".join(f"{f.name}: {f.about}" for f in formats() if f.one_file) + "."


def format_options(command: F) -> F:
    """A ``--NAME`` for each option a format declares (Moodle's ``--identifier``)."""
    for name, (option, owners) in reversed(all_options().items()):
        whose = ", ".join(f.title or f.name for f in owners)
        command = click.option(
            f"--{name}",
            name.replace("-", "_"),
            type=click.Choice(option.choices),
            default=None,
            help=f"{whose}: {option.help}",
        )(command)
    return command


@main.command("export")
@click.argument("assignment")
@click.option("--format", "fmt", type=FormatChoice(), required=True, help=_formats_help())
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The file to write ('-': standard output); default: "
    "autograded/ASSIGNMENT/ASSIGNMENT-FORMAT.csv (.json, .xml: the format's) in the course "
    "folder.",
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
@format_options
def export_grades(
    assignment: str,
    fmt: str,
    output: Path | None,
    course: Path | None,
    db_url: str | None,
    roster_path: Path | None,
    column: str | None,
    lms_assignment: str | None,
    **format_chosen: str | None,
) -> None:
    """Write ASSIGNMENT's grades from the gradebook as a file an LMS (or another tool)
    imports as it is."""
    from ..exports.from_gradebook import ExportRequest, default_export_path, export_assignment
    from ..exports.results_files import write_atomic
    from ..workspace import load

    loaded = load(course)
    chosen = {name.replace("_", "-"): value for name, value in format_chosen.items()}
    request = ExportRequest(fmt, db_url, roster_path, column, lms_assignment, chosen)
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
