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
@click.option(
    "--times",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="CSV with the columns student,submitted_at: when each student handed in, which the "
    "late policy counts from (an answers file's own submitted_at is the learner's and ignored).",
)
@isolation_option
def grade(
    assignment: str,
    files: tuple[Path, ...],
    course: Path | None,
    as_json: bool,
    workers: int,
    times: Path | None,
    isolation: str,
) -> None:
    """Grade answers FILES (YAML) for ASSIGNMENT; print a table or the results document."""
    from ..grading.pipeline import hit_a_bug

    doc = grade_files_document(assignment, list(files), course, workers, isolation, times)
    _show(doc, as_json)
    _say_untimed(list(files), doc)
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
    from ..workspace import load

    loaded = load(course)
    first = loaded.course.assignments[0].id
    examples = loaded.root / "examples" / first
    files = sorted(examples.glob("*.yml"))
    if not files:
        raise click.ClickException(f"no example answers in {examples}")
    times = examples / "times.csv"  # when the examples were handed in, as an LMS says it
    doc = grade_files_document(
        first, files, course, 1, isolation, times if times.is_file() else None
    )
    _show(doc, as_json=False)


def grade_files_document(
    assignment: str,
    files: list[Path],
    course: Path | None,
    workers: int,
    isolation: str,
    times: Path | None = None,
) -> ResultsDocument:
    """Grade answers files and build the results document; ``times`` is a times file."""
    from ..grading.answers_files import grade_answer_files
    from ..grading.pipeline import prepare_assignment
    from ..grading.torch_side import torch_version
    from ..submissions.times import read_times_file
    from ..workspace import open_workspace

    handed_in = read_times_file(times) if times is not None else {}
    with open_workspace(course, isolation=isolation, workers=workers) as session:
        prep = prepare_assignment(session.loaded, assignment, session.ctx)
        results = grade_answer_files(prep, files, workers, handed_in)
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


def _say_untimed(files: list[Path], doc: ResultsDocument) -> None:
    """Say once (on stderr) whose late policy was not applied, and why a file's time is not
    used: the late policy needs a time the learner cannot write."""
    from ..grading.answers_files import claims_a_time

    untimed = [s.student for s in doc.students if not s.error and s.submitted_at is None]
    if untimed:
        click.echo(
            f"no submission times for {len(untimed)} of {len(doc.students)}: late policy not "
            "applied to them; see --times",
            err=True,
        )
    claiming = [f.name for f in files if claims_a_time(f)]
    if claiming:
        click.echo(
            f"submitted_at in {', '.join(claiming[:5])}{' ...' if len(claiming) > 5 else ''} "
            "ignored: an answers file is the learner's; pass the times with --times",
            err=True,
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
