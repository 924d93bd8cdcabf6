"""Commands about notebooks: release (instructor) and check (student)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import ExitCode
from . import course_option, exit_with, isolation_option, lang_option, main

if TYPE_CHECKING:
    from ..batch.grading import PreparedAssignment
    from ..course.load import LoadedCourse


@main.command()
@click.argument("assignment")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("release"),
    show_default=True,
    help="Folder to write the notebooks into.",
)
@click.option(
    "--roster",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="The class roster (a CSV with a 'student' column): one notebook per learner, in "
    "their own variant.",
)
@course_option
@isolation_option
@lang_option
def release(
    assignment: str,
    out: Path,
    roster: Path | None,
    course: Path | None,
    isolation: str,
    lang: str | None,
) -> None:
    """Write ASSIGNMENT's student, instructor and nbgrader source notebooks into --out.

    With --lang, the notebooks speak that language: the exercises' texts and the
    notebook's own (introduction, instructions, headings).
    """
    from ..batch.grading import answer_key, prepare_assignment
    from ..course.load import get_assignment
    from ..i18n import speaking
    from ..notebook.release import write_release
    from ..session import open_session

    with open_session(course, isolation=isolation) as session:
        language = session.loaded.language(lang)
        # Computing the key also fills the truth cache that nbgrader's test cells read.
        prep = prepare_assignment(session.loaded, assignment, session.ctx)
        shown = session.loaded.in_language(language)  # texts only: answers are literals
        with speaking(language):
            if roster is not None:
                _release_per_learner(shown, prep, roster, out)
                return
            written = write_release(shown, get_assignment(shown, assignment), answer_key(prep), out)
    _warn_if_varied(session.loaded, assignment)
    click.echo(f"student notebook:    {written.student}")
    click.echo(f"instructor notebook: {written.instructor}  (holds the answers: never hand it out)")
    click.echo(
        f"nbgrader source:     {written.source}  (copy {written.source.parent} into an nbgrader "
        "course's source/)"
    )


def _warn_if_varied(loaded: LoadedCourse, assignment: str) -> None:
    from ..course.variants import varied_exercises

    varied = varied_exercises(loaded, assignment)
    if varied:
        click.echo(
            f"warning: {assignment} gives each learner their own variant of {', '.join(varied)}, "
            "and is graded so; these notebooks show the base variant. Hand out per-learner "
            "notebooks (--roster roster.csv), or learners answer a setup they are not graded on.",
            err=True,
        )


def _release_per_learner(
    loaded: LoadedCourse, prep: PreparedAssignment, roster: Path, out: Path
) -> None:
    from ..batch.learner_release import write_learner_releases
    from ..batch.roster import load_roster

    written = write_learner_releases(loaded, prep, load_roster(roster).students, out)
    assignment = prep.assignment.id
    click.echo(f"{len(written)} student notebooks:    {out / assignment}/<student>/")
    click.echo(
        f"{len(written)} instructor notebooks: {out / 'instructor' / assignment}/<student>/  "
        "(hold the answers: never hand them out)"
    )
    click.echo(
        "nbgrader: hand each learner their own notebook, then grade the submitted/ folder with "
        "`graders autograde`, which grades each learner in their variant (nbgrader's own "
        "test cells would grade everyone in the base variant)."
    )


@main.command()
@click.argument("notebook", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--assignment",
    default=None,
    help="Fail if the notebook is not the one released for this assignment.",
)
@click.option(
    "--lang",
    "lang",
    default=None,
    metavar="LANG",
    help="The language to answer in; default: the one the notebook was released in.",
)
def check(notebook: Path, assignment: str | None, lang: str | None) -> None:
    """Say which answers in NOTEBOOK the grader cannot read (never whether they are right).

    Exit status 1 when some answer cannot be read.
    """
    from ..notebook.check import check_notebook

    report = check_notebook(notebook, assignment, lang)
    click.echo(report.text())
    exit_with(ExitCode.OK if report.ok else ExitCode.SOME_UNGRADED)
