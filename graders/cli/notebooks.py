"""Commands about notebooks: release (instructor) and check (student)."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import ExitCode
from . import course_option, exit_with, isolation_option, main


@main.command()
@click.argument("assignment")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("release"),
    show_default=True,
    help="Folder to write the notebooks into.",
)
@course_option
@isolation_option
def release(assignment: str, out: Path, course: Path | None, isolation: str) -> None:
    """Write ASSIGNMENT's student, instructor and nbgrader source notebooks into --out."""
    from ..batch.grading import answer_key, prepare_assignment
    from ..course.load import get_assignment
    from ..notebook.release import write_release
    from ..session import open_session

    with open_session(course, isolation=isolation) as session:
        # Computing the key also fills the truth cache that nbgrader's test cells read.
        key = answer_key(prepare_assignment(session.loaded, assignment, session.ctx))
        written = write_release(
            session.loaded, get_assignment(session.loaded, assignment), key, out
        )
    click.echo(f"student notebook:    {written.student}")
    click.echo(f"instructor notebook: {written.instructor}  (holds the answers: never hand it out)")
    click.echo(
        f"nbgrader source:     {written.source}  (copy {written.source.parent} into an nbgrader "
        "course's source/)"
    )


@main.command()
@click.argument("notebook", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--assignment",
    default=None,
    help="Fail if the notebook is not the one released for this assignment.",
)
def check(notebook: Path, assignment: str | None) -> None:
    """Say which answers in NOTEBOOK the grader cannot read (never whether they are right).

    Exit status 1 when some answer cannot be read.
    """
    from ..notebook.check import check_notebook

    report = check_notebook(notebook, assignment)
    click.echo(report.text())
    exit_with(ExitCode.OK if report.ok else ExitCode.SOME_UNGRADED)
