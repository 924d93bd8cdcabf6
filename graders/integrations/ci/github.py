"""GitHub Actions for a class: learners' repositories checked, graded in the course's.

    graders init-ci github --repo ../ps1-alice          # a student repository (or its template)
        .github/workflows/autograde.yml     on push: installs torch (CPU) and graders from the
                                            wheel, checks that every answer can be read
        .graders/wheels/<graders wheel>     graders itself: requirements never name an index
        requirements.txt                    the wheel with its grade extra, when the
                                            repository has none

    graders init-ci github-grader --students students.txt   # the course's own repository
        .github/workflows/grade-<id>.yml    on a schedule: fetches each student repository
                                            (outside the course), grades it, pushes the
                                            feedback to its `graders-feedback` branch
        .graders/wheels/<graders wheel>

Whatever a workflow in a student's repository can read, the student can read too: they
can edit the workflow and print it. So nothing from which the key can be computed (the
course, its solutions, a token that reads them) is ever put there. Grading runs in the
course's repository, which learners cannot change; its token (a secret there) reads the
student repositories and writes their feedback branch, in jobs of their own (fetch,
publish) that run nothing a learner wrote: the job that grades never names it, since a
job's runner holds every secret its steps name. Each job's ``GITHUB_TOKEN`` may read the
repository and nothing more, no checkout leaves it in ``.git/config``, and every action is
pinned to a commit (``actions.PINS``). The feedback shows what the
assignment's feedback policy allows at the time (``course.visibility``). Only an
assignment that shows its expected answers before the due date (``before_due: full``)
may have the course copied into student repositories (``--vendor-course``), to be graded
on every push there.

Every install names the wheel with its ``grade`` extra (``./.graders/wheels/<wheel>[grade]``):
the wheel's own requirements are only what ``graders check`` needs, and grading needs the
rest (``wheel_requirement``).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from ...course.loaded import LoadedCourse, get_assignment
from ...course.model import Shown
from ...errors import UsageError
from ...i18n import SOURCE_LANGUAGE, speaking
from .bundle import Bundle, solution_files, write_course_bundle
from .early import VENDORED_COURSE
from .templates import command, render
from .wheel import build_wheel

WORKFLOW = Path(".github") / "workflows" / "autograde.yml"
WHEELS = Path(".graders") / "wheels"
REPORT_DIR = "graders-report"
FEEDBACK_BRANCH = "graders-feedback"
STUDENTS_TOKEN_SECRET = "GRADERS_STUDENTS_TOKEN"
# What an install from the wheel adds to the distribution's own requirements (the learner's
# `graders check` alone): everything grading needs.
EXTRA = "grade"


@dataclass(frozen=True)
class GithubSetup:
    """What a student repository's workflow does."""

    assignment: str
    notebook: str  # path of the notebook in the student repository
    min_score: str | None = None  # as ``--min-score`` takes it: "6" or "60%"
    vendor_course: bool = False  # grade in the student repository, against a course copy
    include_solutions: bool = False
    allow_userns: bool = False
    python_version: str = "3.12"
    language: str = SOURCE_LANGUAGE  # what the workflow tells the learner, in their language


@dataclass(frozen=True)
class GraderSetup:
    """What the course repository's grading workflow does."""

    assignment: str
    course_dir: str  # the course folder, relative to the repository's root
    students_file: str  # "OWNER/NAME STUDENT" per line, relative to the root
    min_score: str | None = None
    cron: str = "17 * * * *"  # every hour
    python_version: str = "3.12"


@dataclass(frozen=True)
class Written:
    """Files written into a repository."""

    files: tuple[Path, ...]
    bundle: Bundle | None = None


def grade_command(setup: GithubSetup) -> str:
    """The vendored workflow's grading step: one ``graders ci`` command line.

    The learner is ``GITHUB_ACTOR``, the account whose push ran it: their variant of every
    exercise with parameters (in a repository they own, they could name anyone; the copied
    course shows its answers anyway, so the grade there is practice, never of record).
    """
    words = ["graders", "ci", setup.notebook, "--assignment", setup.assignment]
    words += ["--student-from", "github-actor"]
    words += ["--course", VENDORED_COURSE.as_posix(), *_minimum(setup.min_score)]
    words += ["--junit", f"{REPORT_DIR}/junit.xml", "--json", f"{REPORT_DIR}/results.json"]
    return command(*words) + ' --summary "$GITHUB_STEP_SUMMARY"'


def workflow_text(setup: GithubSetup, wheel: str) -> str:
    """The text of a student repository's ``.github/workflows/autograde.yml``."""
    with speaking(setup.language):
        return _workflow_text(setup, wheel)


def _workflow_text(setup: GithubSetup, wheel: str) -> str:
    return render(
        "autograde.yml.j2",
        notebook=setup.notebook,
        vendored=setup.vendor_course,
        job="grade" if setup.vendor_course else "check",
        course_dir=VENDORED_COURSE.as_posix(),
        python_version=setup.python_version,
        allow_userns=setup.allow_userns,
        wheel=wheel_requirement(wheel),
        grade_command=grade_command(setup),
        check_command=command("graders", "check", setup.notebook, "--assignment", setup.assignment),
        report_dir=REPORT_DIR,
        feedback_branch=FEEDBACK_BRANCH,
    )


def init_github(
    loaded: LoadedCourse, repo: Path, setup: GithubSetup, *, force: bool = False
) -> Written:
    """Write the workflow, graders' wheel, and (if needed) requirements.txt into ``repo``;
    with ``vendor_course``, the course copy too."""
    workflow = repo / WORKFLOW
    if workflow.exists() and not force:
        raise UsageError(f"{workflow} exists already (--force replaces it and the course copy)")
    bundle = _vendor_course(loaded, repo, setup, force) if setup.vendor_course else None
    wheel = _wheel(repo)
    written = [wheel, _write(workflow, workflow_text(setup, _relative(wheel, repo)))]
    if bundle is not None:
        # The truth cache is rebuilt by every run.
        written.append(_write(repo / ".graders" / ".gitignore", "course/.graders-cache/\n"))
    if not (repo / "requirements.txt").exists() and not (repo / "pyproject.toml").exists():
        requirement = wheel_requirement(_relative(wheel, repo))
        written.append(_write(repo / "requirements.txt", requirement + "\n"))
    return Written(tuple(written), bundle)


def grader_command(setup: GraderSetup) -> str:
    """The grading workflow's ``graders ci`` line, run once per student (in a shell loop).

    Without the late policy: the time a scheduled run grades is not when the work was
    pushed (the grade of record comes from ``graders autograde`` and its submission times).
    """
    words = ["graders", "ci", "--assignment", setup.assignment, "--course", setup.course_dir]
    words += [*_minimum(setup.min_score), "--no-late-policy"]
    return (
        'graders ci "$SUBMISSIONS/$student" '
        + command(*words[2:])
        + ' --student "$student" --summary "$out/FEEDBACK.md" --json "$out/results.json"'
    )


def grader_workflow_text(setup: GraderSetup, wheel: str) -> str:
    """The text of the course repository's ``.github/workflows/grade-<assignment>.yml``."""
    return render(
        "grade-students.yml.j2",
        assignment=setup.assignment,
        students_file=setup.students_file,
        cron=setup.cron,
        python_version=setup.python_version,
        wheel=wheel_requirement(wheel),
        grade_command=grader_command(setup),
        feedback_branch=FEEDBACK_BRANCH,
    )


def init_grader(
    loaded: LoadedCourse, repo: Path, setup: GraderSetup, *, force: bool = False
) -> Written:
    """Write the grading workflow and graders' wheel into the course repository ``repo``."""
    get_assignment(loaded, setup.assignment)
    if not (repo / setup.students_file).is_file():
        raise UsageError(
            f"{repo / setup.students_file}: no such file; list the student repositories in it, "
            "one `OWNER/NAME STUDENT` per line"
        )
    workflow = grader_workflow(repo, setup.assignment)
    if workflow.exists() and not force:
        raise UsageError(f"{workflow} exists already (--force replaces it)")
    wheel = _wheel(repo)
    text = grader_workflow_text(setup, _relative(wheel, repo))
    return Written((wheel, _write(workflow, text)))


def grader_workflow(repo: Path, assignment: str) -> Path:
    """Where the course repository's workflow for ``assignment`` goes."""
    return repo / ".github" / "workflows" / f"grade-{assignment}.yml"


def _vendor_course(loaded: LoadedCourse, repo: Path, setup: GithubSetup, force: bool) -> Bundle:
    shown = get_assignment(loaded, setup.assignment).feedback.before_due
    if shown is not Shown.FULL:
        raise UsageError(
            f"{setup.assignment} shows learners '{shown}' before its due date, but a course "
            "copied into their repository lets them compute every expected answer: grade in "
            "the course's repository instead (graders init-ci github-grader), or set "
            f"feedback: {{before_due: full}} for {setup.assignment} in course.yml"
        )
    solutions = solution_files(loaded, setup.assignment)
    if solutions and not setup.include_solutions:
        shown_files = ", ".join(p.relative_to(loaded.root).as_posix() for p in solutions)
        raise UsageError(
            f"grading {setup.assignment} needs reference solutions ({shown_files}), which "
            "would be in plain sight in the student repository: grade in the course's "
            "repository instead (graders init-ci github-grader), or pass --include-solutions"
        )
    dest = repo / VENDORED_COURSE
    if force and dest.is_dir():
        shutil.rmtree(dest)
    return write_course_bundle(loaded, setup.assignment, dest, solutions=setup.include_solutions)


def wheel_requirement(wheel: str) -> str:
    """How pip is told to install the wheel at ``wheel`` (relative to the repository's root),
    with its ``grade`` extra: ``./.graders/wheels/<wheel>[grade]``."""
    return f"./{wheel}[{EXTRA}]"


def _wheel(repo: Path) -> Path:
    # Only this graders' wheel is kept: an older one left beside it would be ambiguous.
    folder = repo / WHEELS
    for old in folder.glob("*.whl") if folder.is_dir() else []:
        old.unlink()
    return build_wheel(folder)


def _minimum(min_score: str | None) -> list[str]:
    return [] if min_score is None else ["--min-score", min_score]


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
