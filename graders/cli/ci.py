"""Commands for grading where work is handed in: ci, init-ci, gradescope."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import ExitCode
from . import isolation_option, main

if TYPE_CHECKING:
    from ..integrations.ci.report import Threshold


class _ThresholdType(click.ParamType["Threshold"]):
    name = "SCORE"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> Threshold:
        from ..integrations.ci.report import Threshold

        try:
            return value if isinstance(value, Threshold) else Threshold.parse(str(value))
        except ValueError:
            self.fail(
                f"expected points (6.5) or a share of the maximum (60%), got {value!r}", param, ctx
            )


def _optional_path(value: str | None) -> Path | None:
    # `--summary "$GITHUB_STEP_SUMMARY"` outside GitHub passes an empty string: no summary.
    return Path(value) if value else None


ci_course_option = click.option(
    "--course",
    type=click.Path(path_type=Path),
    default=None,
    help="course.yml (or its folder); default: .graders/course/, else the current folder's.",
)
min_score_option = click.option(
    "--min-score",
    "minimum",
    type=_ThresholdType(),
    default=None,
    help="Exit 1 below this score: points (6.5) or a share of the maximum (60%). Default: any "
    "score passes.",
)


@main.command()
@click.argument("notebook", type=click.Path(path_type=Path))
@click.option(
    "--assignment",
    default=None,
    help="Default: the one the notebook declares, or the course's only one.",
)
@ci_course_option
@min_score_option
@click.option(
    "--junit",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write a JUnit XML report.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the results document.",
)
@click.option(
    "--gradescope",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write Gradescope's results.json.",
)
@click.option(
    "--summary",
    default=None,
    metavar="PATH",
    help='Append a Markdown summary (GitHub: "$GITHUB_STEP_SUMMARY").',
)
@click.option(
    "--student",
    default=None,
    help="The learner's id: the name in the reports (default 'student') and, for exercises "
    "with parameters, whose variant to grade (then required).",
)
@isolation_option
def ci(
    notebook: Path,
    assignment: str | None,
    course: Path | None,
    minimum: Threshold | None,
    junit: Path | None,
    json_path: Path | None,
    gradescope: Path | None,
    summary: str | None,
    student: str | None,
    isolation: str,
) -> None:
    """Grade one NOTEBOOK (or the one notebook in a folder) as autograde would.

    Prints each question's result and ends with `graders: SCORE/MAX points`. Exit 0: the
    score reaches --min-score; 1: it does not; 2: the notebook cannot be graded, or a
    usage or course error; 3: a bug in graders. The reports are written in every case
    where grading ran. The late policy counts from the time grading runs (on Gradescope,
    from the submission time Gradescope records).
    """
    from .. import __version__
    from ..batch.grading import hit_a_bug
    from ..batch.submission_times import ci_time
    from ..integrations.ci.notebook import grade_notebook
    from ..integrations.ci.report import log_lines, outcome, write_reports
    from . import bug_request

    when = ci_time(notebook)  # read before grading: an unreadable record is a usage error
    doc = grade_notebook(
        course, notebook, assignment, student=student, isolation=isolation, submitted_at=when
    )
    write_reports(
        doc,
        minimum,
        json_path=json_path,
        junit=junit,
        gradescope=gradescope,
        summary=_optional_path(summary),
    )
    for line in log_lines(doc, minimum):
        click.echo(line)
    if hit_a_bug(doc.students[0]):  # the reports say it could not be graded; the exit, why
        click.echo(bug_request(__version__), err=True)
        sys.exit(int(ExitCode.INTERNAL))
    sys.exit(int(outcome(doc, minimum)))


@main.command("init-ci")
@click.argument("platform", type=click.Choice(["github"]))
@click.option(
    "--assignment", default=None, help="Default: the notebook's, or the course's only assignment."
)
@click.option(
    "--course",
    type=click.Path(path_type=Path),
    default=None,
    help="The instructor's course.yml (or its folder); default: the current folder's.",
)
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The student repository to write into.",
)
@click.option(
    "--notebook",
    default=None,
    help="The notebook's path in that repository; default: ASSIGNMENT.ipynb.",
)
@min_score_option
@click.option(
    "--course-repo",
    default=None,
    metavar="OWNER/NAME",
    help="Check the course out of this (private) repository in the workflow instead of copying it.",
)
@click.option(
    "--include-solutions",
    is_flag=True,
    help="Copy reference solutions into the student repository.",
)
@click.option(
    "--allow-userns",
    is_flag=True,
    help="Lift Ubuntu's user-namespace block (sudo) so the sandbox can use bubblewrap.",
)
@click.option(
    "--requirement",
    default=None,
    help="How requirements.txt names graders; default: graders[grade]==VERSION.",
)
@click.option("--force", is_flag=True, help="Replace an existing workflow and course copy.")
def init_ci(
    platform: str,
    assignment: str | None,
    course: Path | None,
    repo: Path,
    notebook: str | None,
    minimum: Threshold | None,
    course_repo: str | None,
    include_solutions: bool,
    allow_userns: bool,
    requirement: str | None,
    force: bool,
) -> None:
    """Set up a student repository so that PLATFORM grades its notebook on every push."""
    from .. import __version__
    from ..integrations.ci.github import GithubSetup, init_github
    from ..integrations.ci.notebook import default_notebook, resolve_assignment
    from ..session import load

    loaded = load(course)
    assignment = resolve_assignment(loaded, repo / notebook if notebook else repo, assignment)
    setup = GithubSetup(
        assignment,
        notebook or default_notebook(repo, assignment),
        requirement or f"graders[grade]=={__version__}",
        None if minimum is None else str(minimum),
        course_repo,
        include_solutions,
        allow_userns,
    )
    written = init_github(loaded, repo, setup, force=force)
    for path in written.files:
        click.echo(f"wrote {path}")
    if written.bundle is not None:
        copied = len(written.bundle.exercises), len(written.bundle.solutions)
        click.echo(
            f"copied the course for {assignment} to {written.bundle.root} ({copied[0]} exercises, "
            f"{copied[1]} solutions)"
        )


@main.command()
@click.argument("assignment")
@click.option(
    "--course",
    type=click.Path(path_type=Path),
    default=None,
    help="course.yml (or its folder); default: the current folder's.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The zip to write; default: gradescope-ASSIGNMENT.zip.",
)
def gradescope(assignment: str, course: Path | None, out: Path | None) -> None:
    """Build a Gradescope autograder zip for ASSIGNMENT (setup.sh, run_autograder, the course)."""
    from ..integrations.ci.gradescope import build_autograder, default_zip
    from ..session import load

    built = build_autograder(load(course), assignment, out or default_zip(assignment))
    click.echo(
        f"wrote {built.path}: {len(built.names)} files, {len(built.solutions)} reference solutions"
    )
    click.echo("upload it as the autograder of a Gradescope programming assignment")
