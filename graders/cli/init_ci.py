"""Commands that set grading up where work is handed in: init-ci (GitHub Actions), gradescope."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import main, pages_lang_option
from .ci import min_score_option

if TYPE_CHECKING:
    from ..course.loaded import LoadedCourse
    from ..integrations.ci.github import Written
    from ..integrations.ci.report import Threshold


@main.command("init-ci")
@click.argument("platform", type=click.Choice(["github", "github-grader"]))
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
    default=None,
    help="The repository to write into: a student's (github; default: the current folder) or "
    "the course's (github-grader; default: the course folder).",
)
@click.option(
    "--notebook",
    default=None,
    help="github: the notebook's path in the student repository; default: ASSIGNMENT.ipynb.",
)
@min_score_option
@click.option(
    "--students",
    default=None,
    metavar="FILE",
    help="github-grader: the file in the course repository listing the student repositories, "
    "one `OWNER/NAME STUDENT` per line.",
)
@click.option(
    "--cron",
    default="17 * * * *",
    show_default=True,
    help="github-grader: when to grade (a cron schedule, UTC).",
)
@click.option(
    "--vendor-course",
    is_flag=True,
    help="github: copy the course into the student repository and grade there (only for an "
    "assignment whose feedback policy shows the answers before the due date).",
)
@click.option(
    "--include-solutions",
    is_flag=True,
    help="github --vendor-course: copy reference solutions into the student repository too.",
)
@click.option(
    "--allow-userns",
    is_flag=True,
    help="github --vendor-course: lift Ubuntu's user-namespace block so the sandbox can use "
    "bubblewrap.",
)
@pages_lang_option
@click.option("--force", is_flag=True, help="Replace an existing workflow (and course copy).")
def init_ci(
    platform: str,
    assignment: str | None,
    course: Path | None,
    repo: Path | None,
    notebook: str | None,
    minimum: Threshold | None,
    students: str | None,
    cron: str,
    vendor_course: bool,
    include_solutions: bool,
    allow_userns: bool,
    lang: str | None,
    force: bool,
) -> None:
    """Set up GitHub Actions: a student repository (github) or the course's grading
    repository (github-grader). What github's workflow tells the learner is in --lang, else
    in the language of the notebook in the repository."""
    from ..integrations.ci.github import GithubSetup, init_github
    from ..integrations.ci.notebook import (
        declared_language,
        default_notebook,
        resolve_assignment,
    )
    from ..workspace import load

    loaded = load(course)
    min_score = None if minimum is None else str(minimum)
    if platform == "github-grader":
        written = _init_grader(loaded, repo, assignment, students, min_score, cron, force)
    else:
        repo = repo or Path(".")
        where = repo / notebook if notebook else repo
        assignment = resolve_assignment(loaded, where, assignment)
        setup = GithubSetup(
            assignment,
            notebook
            or default_notebook(repo, assignment, loaded.course.other_assignments(assignment)),
            min_score,
            vendor_course,
            include_solutions,
            allow_userns,
            language=loaded.language(lang) if lang else declared_language(loaded, where),
        )
        written = init_github(loaded, repo, setup, force=force)
    for path in written.files:
        click.echo(f"wrote {path}")
    if written.bundle is not None:
        copied = len(written.bundle.exercises), len(written.bundle.solutions)
        click.echo(
            f"copied the course for {assignment} to {written.bundle.root} ({copied[0]} "
            f"exercises, {copied[1]} solutions)"
        )


def _init_grader(
    loaded: LoadedCourse,
    repo: Path | None,
    assignment: str | None,
    students: str | None,
    min_score: str | None,
    cron: str,
    force: bool,
) -> Written:
    from ..errors import UsageError
    from ..integrations.ci.github import STUDENTS_TOKEN_SECRET, GraderSetup, init_grader

    root = (repo or loaded.root).resolve()
    if assignment is None or students is None:
        raise UsageError("init-ci github-grader needs --assignment and --students FILE")
    try:
        course_dir = loaded.root.resolve().relative_to(root).as_posix()
    except ValueError:
        raise UsageError(f"the course {loaded.root} is not inside the repository {root}") from None
    setup = GraderSetup(assignment, course_dir, students, min_score, cron)
    written = init_grader(loaded, root, setup, force=force)
    click.echo(
        f"add the secret {STUDENTS_TOKEN_SECRET} to {root}'s repository: a token that reads the "
        "student repositories and may push to their graders-feedback branch"
    )
    return written


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
@click.option(
    "--learner-id",
    type=click.Choice(["email", "sid"]),
    default="email",
    show_default=True,
    help="Which field of Gradescope's submitter (submission_metadata.json, users[0]) is the "
    "learner id that decides their variants.",
)
@click.option(
    "--roster",
    "roster_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Put this roster in the autograder: the submitter's email (or SID, as sis_user_id) "
    "is looked up in it, and the learner is that row's student.",
)
def gradescope(
    assignment: str,
    course: Path | None,
    out: Path | None,
    learner_id: str,
    roster_path: Path | None,
) -> None:
    """Build a Gradescope autograder zip for ASSIGNMENT (setup.sh, run_autograder, the course)."""
    from ..integrations.ci.gradescope import build_autograder, default_zip
    from ..workspace import load

    built = build_autograder(
        load(course),
        assignment,
        out or default_zip(assignment),
        learner_id=learner_id,
        roster=roster_path,
    )
    click.echo(
        f"wrote {built.path}: {len(built.names)} files, {len(built.solutions)} reference solutions"
    )
    click.echo("upload it as the autograder of a Gradescope programming assignment")
