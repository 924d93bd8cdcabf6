"""Commands that grade: grade (answers files) and demo (the bundled examples)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import ExitCode
from . import course_option, exit_with, isolation_option, main

if TYPE_CHECKING:
    from ..results import ResultsDocument


@main.command()
@click.argument("assignment")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@course_option
@click.option(
    "--json", "as_json", is_flag=True, help="Print the results document (and nothing else)."
)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True)
@isolation_option
def grade(
    assignment: str,
    files: tuple[Path, ...],
    course: Path | None,
    as_json: bool,
    workers: int,
    isolation: str,
) -> None:
    """Grade answers FILES (YAML) for ASSIGNMENT; print a table or the results document."""
    from ..batch.grading import hit_a_bug

    doc = grade_files_document(assignment, list(files), course, workers, isolation)
    _show(doc, as_json)
    if any(hit_a_bug(s) for s in doc.students):
        _bug_reported()
    exit_with(ExitCode.OK if doc.all_graded else ExitCode.SOME_UNGRADED)


def _bug_reported() -> None:
    from .. import __version__
    from . import bug_request

    click.echo(bug_request(__version__), err=True)
    exit_with(ExitCode.INTERNAL)


@main.command()
@course_option
@isolation_option
def demo(course: Path | None, isolation: str) -> None:
    """Grade the bundled example answers of the first assignment and print the table."""
    from ..session import load

    loaded = load(course)
    first = loaded.course.assignments[0].id
    files = sorted((loaded.root / "examples" / first).glob("*.yml"))
    if not files:
        raise click.ClickException(f"no example answers in {loaded.root / 'examples' / first}")
    _show(grade_files_document(first, files, course, 1, isolation), as_json=False)


def grade_files_document(
    assignment: str, files: list[Path], course: Path | None, workers: int, isolation: str
) -> ResultsDocument:
    """Grade answers files and build the results document."""
    from ..batch.answers_files import grade_answer_files
    from ..batch.grading import prepare_assignment
    from ..kinds.cache import torch_version
    from ..session import open_session

    with open_session(course, isolation=isolation, workers=workers) as session:
        prep = prepare_assignment(session.loaded, assignment, session.ctx)
        results = grade_answer_files(prep, files, workers)
        graded_at = datetime.now(UTC).isoformat(timespec="seconds")
        from ..results import ResultsDocument

        return ResultsDocument(
            session.loaded.course.id,
            assignment,
            torch_version(),
            graded_at,
            session.isolation,
            tuple(results),
        )


LEGEND = "✓ correct  ✗ wrong  ? invalid  – unanswered  ! error  ⏱ timeout  ⚠ integrity"


def _show(doc: ResultsDocument, as_json: bool) -> None:
    from .tables import print_table, results_table

    if as_json:
        click.echo(doc.dumps())
        return
    print_table(results_table(doc))
    click.echo(LEGEND)
    for s in doc.students:
        if s.error:
            click.echo(f"{s.student}: {s.error}", err=True)
