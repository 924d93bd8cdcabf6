"""``graders init-ci github``: a student repository graded by GitHub Actions on every push.

    .github/workflows/autograde.yml   installs torch (CPU) and graders, runs `graders ci`,
                                      writes the job summary, keeps the JUnit report
    .graders/course/                  the assignment's course files (not with --course-repo)
    requirements.txt                  naming graders, only when the repository has neither
                                      a requirements.txt nor a pyproject.toml

Whatever a workflow in a student's repository can read, the student can read too (they
can edit the workflow). So reference solutions are never copied into the repository
unless asked for, and this grading is feedback for the learner; the grade of record comes
from ``graders autograde`` or Gradescope, where learners control neither side.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ...course.load import LoadedCourse
from ...errors import UsageError
from .bundle import Bundle, solution_files, write_course_bundle
from .notebook import VENDORED_COURSE
from .templates import command, render

WORKFLOW = Path(".github") / "workflows" / "autograde.yml"
REPORT_DIR = "graders-report"
COURSE_TOKEN_SECRET = "GRADERS_COURSE_TOKEN"
_REPO_NAME = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


@dataclass(frozen=True)
class GithubSetup:
    """What the generated workflow does."""

    assignment: str
    notebook: str  # path of the notebook in the student repository
    requirement: str  # how requirements.txt names graders, when one is written
    min_score: str | None = None  # as ``--min-score`` takes it: "6" or "60%"
    course_repo: str | None = None  # OWNER/NAME: check the course out instead of copying it
    include_solutions: bool = False
    allow_userns: bool = False
    python_version: str = "3.12"


@dataclass(frozen=True)
class Written:
    """Files written into the student repository."""

    files: tuple[Path, ...]
    bundle: Bundle | None


def grade_command(setup: GithubSetup) -> str:
    """The workflow's grading step: one ``graders ci`` command line."""
    words = [
        "graders",
        "ci",
        setup.notebook,
        "--assignment",
        setup.assignment,
        "--course",
        VENDORED_COURSE.as_posix(),
    ]
    if setup.min_score is not None:
        words += ["--min-score", setup.min_score]
    words += ["--junit", f"{REPORT_DIR}/junit.xml", "--json", f"{REPORT_DIR}/results.json"]
    return command(*words) + ' --summary "$GITHUB_STEP_SUMMARY"'


def workflow_text(setup: GithubSetup) -> str:
    """The text of ``.github/workflows/autograde.yml``."""
    if setup.course_repo is not None and not _REPO_NAME.match(setup.course_repo):
        raise UsageError(f"--course-repo: expected OWNER/NAME, got {setup.course_repo!r}")
    return render(
        "autograde.yml.j2",
        notebook=setup.notebook,
        course_repo=setup.course_repo,
        course_dir=VENDORED_COURSE.as_posix(),
        python_version=setup.python_version,
        allow_userns=setup.allow_userns,
        grade_command=grade_command(setup),
        report_dir=REPORT_DIR,
    )


def init_github(
    loaded: LoadedCourse, repo: Path, setup: GithubSetup, *, force: bool = False
) -> Written:
    """Write the workflow (and the course copy, and requirements.txt if needed) into ``repo``."""
    workflow = repo / WORKFLOW
    if workflow.exists() and not force:
        raise UsageError(f"{workflow} exists already (--force replaces it and the course copy)")
    text = workflow_text(setup)
    bundle = None if setup.course_repo else _vendor_course(loaded, repo, setup, force)
    # The truth cache is rebuilt by every run; a checked-out course is the runner's alone.
    ignored = "course/\n" if setup.course_repo else "course/.graders-cache/\n"
    written = [_write(workflow, text), _write(repo / ".graders" / ".gitignore", ignored)]
    if not (repo / "requirements.txt").exists() and not (repo / "pyproject.toml").exists():
        written.append(_write(repo / "requirements.txt", setup.requirement + "\n"))
    return Written(tuple(written), bundle)


def _vendor_course(loaded: LoadedCourse, repo: Path, setup: GithubSetup, force: bool) -> Bundle:
    solutions = solution_files(loaded, setup.assignment)
    if solutions and not setup.include_solutions:
        shown = ", ".join(p.relative_to(loaded.root).as_posix() for p in solutions)
        raise UsageError(
            f"grading {setup.assignment} needs reference solutions ({shown}), which would be "
            "in plain sight in the student repository: pass --course-repo OWNER/NAME to check "
            "the course out in the workflow instead, or --include-solutions to copy them anyway"
        )
    dest = repo / VENDORED_COURSE
    if force and dest.is_dir():
        shutil.rmtree(dest)
    return write_course_bundle(loaded, setup.assignment, dest, solutions=setup.include_solutions)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
