"""`graders init-ci github` and `github-grader`: the workflows they write pass GitHub's
workflow schema, graders' rules and actionlint with shellcheck (where actionlint is
installed; tests/integrations/ci/test_ci_workflow_lint.py lints every configuration), install graders from
the wheel they write, and their steps run as written (`bash -eo pipefail`), offline: the
student repository's check, and the course repository's fetch, grade and publish against
local git repositories standing in for GitHub."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from ci_support import KEY, venv_env, write_course, write_notebook, wrong_answers
from click.testing import CliRunner, Result
from workflow_checks import check_workflows

from graders.cli import main

# Its many in-process commands share one warm sandbox (tests/warm_sandbox.py).
pytestmark = pytest.mark.usefixtures("warm_sandbox")

TORCH_CPU = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
FAR = "2099"  # a due date no test run reaches: the key must stay hidden


def course_due(root: Path, year: str, policy: str = "") -> Path:
    """The CI test course, its assignments due in ``year``, with an optional feedback policy."""
    course = write_course(root)
    text = (course / "course.yml").read_text().replace("2036-10", f"{year}-10")
    if policy:
        text = text.replace("    exercises:\n", f"    feedback: {policy}\n    exercises:\n")
    (course / "course.yml").write_text(text)
    return course


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return course_due(tmp_path_factory.mktemp("course"), FAR)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A student repository holding the notebook."""
    write_notebook(tmp_path / "student" / "ci1.ipynb", KEY)
    return tmp_path / "student"


def init_ci(course: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["init-ci", *args, "--course", str(course)])


def steps(workflow: Path) -> dict[str, dict[str, Any]]:
    """The steps of every job, by name (or action)."""
    jobs = yaml.safe_load(workflow.read_text())["jobs"]
    return {
        step.get("name", step.get("uses")): step for job in jobs.values() for step in job["steps"]
    }


def step_env(step: dict[str, Any], runner_temp: Path, **secrets: str) -> dict[str, str]:
    """The step's own environment as the runner sets it: ``runner.temp`` and ``secrets.*``
    (an expression it does not know fails the test)."""

    def value(match: re.Match[str]) -> str:
        expression = match[1].strip()
        if expression == "runner.temp":
            return str(runner_temp)
        if expression.startswith("secrets."):
            return secrets[expression.removeprefix("secrets.")]
        raise AssertionError(f"unexpected expression {expression!r}")

    return {k: re.sub(r"\$\{\{(.*?)\}\}", value, v) for k, v in step.get("env", {}).items()}


def installed_from_wheel(repo: Path, scratch: Path) -> dict[str, str]:
    """The environment of a step after "Install graders": graders from the repository's
    wheel (pip, offline), its dependencies from this venv, torch included."""
    (wheel,) = (repo / ".graders" / "wheels").glob("*.whl")
    site = scratch / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), wheel],
        check=True,
        capture_output=True,
    )
    env = venv_env(PYTHONPATH=str(site))
    env["PATH"] = f"{site / 'bin'}:{env['PATH']}"
    return env


def run_step(
    step: dict[str, Any], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """A step's script as the runner runs a `shell: bash` step."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_student_workflow_checks_the_notebook_with_graders_from_its_wheel(
    course: Path, repo: Path, tmp_path: Path
) -> None:
    result = init_ci(course, "github", "--repo", str(repo))
    assert result.exit_code == 0, result.output
    workflow = repo / ".github" / "workflows" / "autograde.yml"
    check_workflows(workflow)
    (wheel,) = (repo / ".graders" / "wheels").glob("*.whl")
    assert wheel.name == "autograd_graders-0.1.0-py3-none-any.whl"
    install = steps(workflow)["Install graders"]["run"]
    # The wheel with its grade extra: on its own it brings only what `graders check` needs.
    assert (
        TORCH_CPU in install and f"pip install './.graders/wheels/{wheel.name}[grade]'" in install
    )
    assert (repo / "requirements.txt").read_text() == f"./.graders/wheels/{wheel.name}[grade]\n"
    # Nothing from which the key can be computed is in the repository.
    assert not (repo / ".graders" / "course").exists()
    assert {p.name for p in (repo / ".graders").iterdir()} == {"wheels"}

    env = installed_from_wheel(repo, tmp_path)
    env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "summary.md")
    run = run_step(steps(workflow)["Check"], repo, env)
    assert run.returncode == 0, run.stdout + run.stderr
    summary = (tmp_path / "summary.md").read_text()
    assert "### ci1.ipynb: can the grader read it?" in summary and "graders-feedback" in summary
    for answer in KEY.values():
        assert answer not in summary  # the check never says what is right

    write_notebook(repo / "ci1.ipynb", {**KEY, "clone-basics/grad": "tensor(3.,"})
    run = run_step(steps(workflow)["Check"], repo, env)
    assert run.returncode == 1 and "clone-basics/grad" in run.stdout


def test_a_course_copy_is_refused_unless_the_answers_are_shown_before_the_due_date(
    course: Path, repo: Path, tmp_path: Path
) -> None:
    refused = init_ci(course, "github", "--repo", str(repo), "--vendor-course")
    assert refused.exit_code == 2 and "github-grader" in refused.stderr
    assert not (repo / ".github").exists()

    practice = course_due(tmp_path / "practice", FAR, "{before_due: full}")
    result = init_ci(
        practice, "github", "--repo", str(repo), "--vendor-course", "--min-score", "70%"
    )
    assert result.exit_code == 0, result.output
    workflow = repo / ".github" / "workflows" / "autograde.yml"
    check_workflows(workflow)
    env = installed_from_wheel(repo, tmp_path)
    env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "summary.md")
    env["GITHUB_ACTOR"] = "ada"  # set by GitHub in every job: the learner graded
    run = run_step(steps(workflow)["Grade"], repo, env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == "graders: 8/8 points (minimum 5.6: passed)"
    # Code exercises need their solutions: only with --include-solutions, and only then.
    again = init_ci(
        practice, "github", "--repo", str(repo), "--vendor-course", "--assignment", "ci2", "--force"
    )
    assert again.exit_code == 2 and "solutions/independent-copy.py" in again.stderr


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def student_repository(server: Path, name: str, answers: dict[str, str]) -> None:
    """A bare repository at ``server/<name>.git`` holding the learner's notebook, and a
    symbolic link to a file of the machine that fetches it."""
    work = server / "work" / name
    write_notebook(work / "ci1.ipynb", answers)
    (work / "elsewhere").symlink_to("/etc/hostname")
    git("init", "-q", "-b", "main", cwd=work)
    git("add", "-A", cwd=work)
    git("-c", "user.name=s", "-c", "user.email=s@example.org", "commit", "-qm", "work", cwd=work)
    git("clone", "-q", "--bare", str(work), str(server / f"{name}.git"), cwd=server)


def test_the_course_repository_grades_every_student_and_publishes_the_feedback(
    tmp_path: Path,
) -> None:
    # The course at the repository's root: graded with `--course .`.
    root = course_due(tmp_path / "course-repo", FAR)
    server = tmp_path / "github"
    student_repository(server, "class/ci1-ada", KEY)
    student_repository(server, "class/ci1-bob", wrong_answers())
    (root / "students.txt").write_text(
        "# repository, student\nclass/ci1-ada ada\nclass/ci1-bob bob\n"
    )
    result = init_ci(root, "github-grader", "--assignment", "ci1", "--students", "students.txt")
    assert result.exit_code == 0, result.output
    workflow = root / ".github" / "workflows" / "grade-ci1.yml"
    check_workflows(workflow)
    jobs = yaml.safe_load(workflow.read_text())
    assert "schedule" in jobs.get("on", jobs.get(True))
    grading = steps(workflow)
    assert "--course . " in grading["Grade"]["run"]
    # The token never meets learner code: the job that grades does not name it.
    assert "secrets." not in yaml.safe_dump(jobs["jobs"]["grade"])

    env = installed_from_wheel(root, tmp_path)
    env |= {
        "GITHUB_SERVER_URL": server.as_uri(),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }
    runner_temp = tmp_path / "runner-temp"  # one runner's, then the next's: the artifacts
    runner_temp.mkdir()
    for name in ("Fetch the submissions", "Grade", "Publish the feedback"):
        step = grading[name]
        run = run_step(step, root, env | step_env(step, runner_temp, GRADERS_STUDENTS_TOKEN=""))
        assert run.returncode == 0, name + run.stdout + run.stderr
    # The learners' repositories were cloned outside the course, never into it.
    fetched = runner_temp / "graders-submissions" / "bob"
    assert (fetched / "ci1.ipynb").is_file()
    # A link would be followed when the submissions are handed on: only its target's name is.
    assert not (fetched / "elsewhere").is_symlink()
    assert (fetched / "elsewhere").read_text() == "/etc/hostname"
    assert not list(root.rglob("*.ipynb")) and not list(root.rglob("graders-*"))
    summary = (tmp_path / "summary.md").read_text()
    assert "| ada | graders: 8/8 points |" in summary and "| bob | graders: 5/8 points |" in summary

    published = tmp_path / "bob-feedback"
    git(
        "clone",
        "-q",
        "-b",
        "graders-feedback",
        str(server / "class/ci1-bob.git"),
        str(published),
        cwd=tmp_path,
    )
    feedback = (published / "FEEDBACK.md").read_text()
    assert feedback.startswith("### ci1: graders: 5/8 points")
    assert "expected answers are shown after 2099-10-05" in feedback
    results = json.loads((published / "results.json").read_text())
    assert all(q["expected"] is None for q in results["students"][0]["questions"])
    # Bob answered these two wrong: what torch gives must not reach him before the due date.
    for item in ("clone-basics/shares-memory", "clone-basics/grad"):
        for text in (feedback, (published / "log.txt").read_text(), json.dumps(results)):
            assert f"expected {KEY[item]}" not in text and f"`{KEY[item]}`" not in text


def test_a_bug_grading_one_student_fails_the_job_once_the_others_are_graded(
    tmp_path: Path,
) -> None:
    root = tmp_path / "course-repo"
    course = course_due(root / "course", FAR)
    (root / "students.txt").write_text("class/ci1-ada ada\nclass/ci1-bob bob\n")
    args = ["--repo", str(root), "--assignment", "ci1", "--students", "students.txt"]
    assert init_ci(course, "github-grader", *args).exit_code == 0
    workflow = root / ".github" / "workflows" / "grade-ci1.yml"
    grading = steps(workflow)
    # A scheduled run's time is not when the work was pushed: no late policy.
    assert (
        "--no-late-policy" in grading["Grade"]["run"]
        and "--course course " in grading["Grade"]["run"]
    )
    # The feedback is published also when grading failed, once it has run.
    publish = yaml.safe_load(workflow.read_text())["jobs"]["publish"]
    assert publish["needs"] == "grade" and publish["if"].startswith("!cancelled() && ")
    assert grading["Keep the feedback"]["if"] == "always()"
    # graders itself stands in: exit 3 (a bug) for bob, a grade for ada.
    stub = tmp_path / "bin" / "graders"
    stub.parent.mkdir()
    stub.write_text(
        '#!/bin/sh\ncase "$2" in *bob) echo "Traceback: a bug" >&2; exit 3;; esac\n'
        'echo "graders: 8/8 points"\n'
    )
    stub.chmod(0o755)
    env = venv_env(GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"))
    env["PATH"] = f"{stub.parent}:{env['PATH']}"
    env |= step_env(grading["Grade"], tmp_path / "runner-temp")
    run = run_step(grading["Grade"], root, env)
    assert run.returncode == 1 and "::error::graders hit a bug grading bob" in run.stdout
    assert "| ada | graders: 8/8 points |" in (tmp_path / "summary.md").read_text()
    log = tmp_path / "runner-temp" / "graders-feedback" / "ada" / "log.txt"
    assert log.read_text() == "graders: 8/8 points\n"


def test_the_distribution_has_a_name_of_its_own() -> None:
    import tomllib

    import graders

    project = tomllib.loads(
        (Path(__file__).parent.parent.parent.parent / "pyproject.toml").read_text()
    )
    # `graders` on the public index is someone else's: installing it by that name is unsafe.
    assert project["project"]["name"] == graders.__distribution__ != "graders"
    assert project["project"]["scripts"] == {"graders": "graders.cli:main"}
