"""Commands about notebooks: release (instructor), check and submit (student)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import ExitCode
from . import course_option, exit_with, isolation_option, lang_option, main

if TYPE_CHECKING:
    from ..course.loaded import LoadedCourse
    from ..grading.learner_release import LearnerRelease
    from ..grading.pipeline import PreparedAssignment
    from ..notebook.release import Released


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
@click.option(
    "--nbgrader",
    "nbgrader_root",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    metavar="DIR",
    help="The nbgrader course to put the assignment into (DIR/source/ASSIGNMENT), linked to "
    "this course for its test cells; with --roster, once nbgrader generate_assignment has "
    "run, each learner's handout of nbgrader's notebook in DIR/handouts/.",
)
@click.option(
    "--service",
    default=None,
    metavar="URL",
    help="The address of the course's `graders serve`: written into the student notebooks "
    "(an address, not a secret), which end with a cell that submits to it.",
)
@course_option
@isolation_option
@lang_option
def release(
    assignment: str,
    out: Path,
    roster: Path | None,
    nbgrader_root: Path | None,
    service: str | None,
    course: Path | None,
    isolation: str,
    lang: str | None,
) -> None:
    """Write ASSIGNMENT's student, instructor and nbgrader source notebooks into --out.

    With --lang, the notebooks speak that language: the exercises' texts and the
    notebook's own (introduction, instructions, headings). With --service, learners
    submit from the notebook (`graders.submit()`) and read the feedback there.
    """
    from ..course.loaded import get_assignment
    from ..grading.pipeline import answer_key, prepare_assignment
    from ..i18n import speaking
    from ..notebook.release import write_release
    from ..workspace import open_workspace

    service = _checked_service(service)
    with open_workspace(course, isolation=isolation) as session:
        language = session.loaded.language(lang)
        # Computing the key also fills the truth cache that nbgrader's test cells read.
        prep = prepare_assignment(session.loaded, assignment, session.ctx)
        shown = session.loaded.in_language(language)  # texts only: answers are literals
        learners = (
            _release_per_learner(session.loaded, language, prep, roster, out, service)
            if roster
            else []
        )
        with speaking(language):
            if roster is None or nbgrader_root is not None:
                chosen = get_assignment(shown, assignment)
                written = write_release(shown, chosen, answer_key(prep), out, service)
                if roster is None:
                    _said_where(written)
            if nbgrader_root is not None:
                _into_nbgrader(shown, written, nbgrader_root, learners)
    if roster is None:
        _warn_if_varied(session.loaded, assignment, nbgrader_root)


def _checked_service(url: str | None) -> str | None:
    from ..errors import UsageError
    from ..notebook.service_client import service_url

    try:
        return service_url(url) if url is not None else None
    except ValueError as exc:
        raise UsageError(f"--service: {exc}") from None


def _said_where(written: Released) -> None:
    click.echo(f"student notebook:    {written.student}")
    click.echo(f"instructor notebook: {written.instructor}  (holds the answers: never hand it out)")
    click.echo(
        f"nbgrader source:     {written.source}  (copy {written.source.parent} into an nbgrader "
        "course's source/, or release with --nbgrader DIR)"
    )


def _into_nbgrader(
    loaded: LoadedCourse, written: Released, root: Path, learners: list[LearnerRelease]
) -> None:
    """The assignment installed in the nbgrader course ``root``, and the handouts."""
    import nbformat

    from ..integrations.nbgrader_course import install, write_handouts

    assignment = written.source.parent.name
    target = install(written, loaded, root)
    click.echo(f"nbgrader course:     {target} (linked to this course for its test cells)")
    if not learners:
        click.echo(f"next: `nbgrader generate_assignment {assignment}` in {root}")
        return
    own = [(r.student, nbformat.read(r.notebook, as_version=4)) for r in learners]
    handouts = write_handouts(root, assignment, own)
    click.echo(
        f"{len(handouts)} handouts:          {handouts[0].parent.parent}/<student>/  (nbgrader's "
        "notebook in each learner's own variant: hand these out)"
    )


def _warn_if_varied(loaded: LoadedCourse, assignment: str, nbgrader_root: Path | None) -> None:
    from ..course.variants import varied_exercises

    varied = varied_exercises(loaded, assignment)
    if varied:
        handouts = (
            f"; for nbgrader, once it has generated the assignment, this command with --nbgrader "
            f"{nbgrader_root} --roster roster.csv writes each learner's handout"
            if nbgrader_root
            else ""
        )
        click.echo(
            f"warning: {assignment} gives each learner their own variant of {', '.join(varied)}, "
            "and is graded so; these notebooks show the base variant. Hand out per-learner "
            "notebooks (--roster roster.csv), or learners answer a setup they are not graded on"
            f"{handouts}.",
            err=True,
        )


def _release_per_learner(
    loaded: LoadedCourse,
    language: str,
    prep: PreparedAssignment,
    roster: Path,
    out: Path,
    service: str | None,
) -> list[LearnerRelease]:
    """Each learner's notebooks, in their roster ``language`` where it names one of the
    course's (else ``language``, the release's)."""
    from ..errors import UsageError
    from ..grading.learner_release import write_learner_releases
    from ..i18n import speaking
    from ..intake.roster import load_roster

    entries = load_roster(roster).entries
    wrong = [e for e in entries if e.language and e.language not in loaded.course.languages]
    if wrong:
        known = ", ".join(loaded.course.languages)
        raise UsageError(
            "\n".join(
                f"{roster}:{e.line}: language {e.language!r} is not one of the course's: {known}"
                for e in wrong
            )
        )
    by_language: dict[str, list[str]] = {}
    for e in entries:
        by_language.setdefault(e.language or language, []).append(e.student)
    written = []
    for spoken, students in by_language.items():
        with speaking(spoken):
            shown = loaded.in_language(spoken)
            written += write_learner_releases(shown, prep, students, out, service)
    assignment = prep.assignment.id
    click.echo(f"{len(written)} student notebooks:    {out / assignment}/<student>/")
    click.echo(
        f"{len(written)} instructor notebooks: {out / 'instructor' / assignment}/<student>/  "
        "(hold the answers: never hand them out)"
    )
    return written


@main.command("check")
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
def presubmit_check(notebook: Path, assignment: str | None, lang: str | None) -> None:
    """Say which answers in NOTEBOOK the grader cannot read (never whether they are right).

    Exit status 1 when some answer cannot be read.
    """
    from ..notebook.presubmit import check_notebook

    report = check_notebook(notebook, assignment, lang)
    click.echo(report.text())
    exit_with(ExitCode.OK if report.ok else ExitCode.SOME_UNGRADED)


@main.command()
@click.argument("notebook", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--assignment",
    default=None,
    help="Refuse to submit if the notebook is not the one released for this assignment.",
)
@click.option(
    "--service",
    default=None,
    metavar="URL",
    help="The grading service to submit to; default: $GRADERS_SERVICE, else the address "
    "the notebook was released with.",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=1),
    default=None,
    metavar="SECONDS",
    help="How long to wait for the grade (default: two minutes).",
)
@click.option(
    "--lang",
    "lang",
    default=None,
    metavar="LANG",
    help="The language to answer in; default: the one the notebook was released in.",
)
def submit(
    notebook: Path,
    assignment: str | None,
    service: str | None,
    timeout_s: float | None,
    lang: str | None,
) -> None:
    """Hand NOTEBOOK in to the course's grading service and print its feedback.

    The token is $GRADERS_TOKEN, else the one kept for the service, else asked once
    (hidden) and kept in your user configuration folder. Exit status 1 when nothing
    was graded.
    """
    from ..notebook.submit import DEFAULT_TIMEOUT_S, submit_notebook
    from ..notebook.submit_report import GRADED

    feedback = submit_notebook(
        notebook,
        assignment=assignment,
        service=service,
        lang=lang,
        timeout_s=timeout_s or DEFAULT_TIMEOUT_S,
        warn=lambda text: click.echo(text, err=True),
    )
    click.echo(feedback.text())
    exit_with(ExitCode.OK if feedback.status == GRADED else ExitCode.SOME_UNGRADED)
