"""`graders init-ci github`: the workflow it writes is parsed, and its grading step is run
exactly as written, in a student repository that holds a notebook and a pyproject.toml."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from ci_support import KEY, venv_env, write_course, write_notebook, wrong_answers
from click.testing import CliRunner, Result

from graders.cli import main

TORCH_CPU = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_course(tmp_path_factory.mktemp("course"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A student repository: the notebook and a pyproject.toml naming graders."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "my-ci1"\nversion = "0"\ndependencies = ["graders"]\n'
    )
    write_notebook(tmp_path / "ci1.ipynb", KEY)
    return tmp_path


def init_ci(course: Path, repo: Path, *args: str) -> Result:
    return CliRunner().invoke(
        main, ["init-ci", "github", "--course", str(course), "--repo", str(repo), *args]
    )


def workflow(repo: Path) -> dict[str, Any]:
    return yaml.safe_load((repo / ".github" / "workflows" / "autograde.yml").read_text())


def steps(repo: Path) -> dict[str, dict[str, Any]]:
    return {
        step.get("name", step.get("uses")): step
        for step in workflow(repo)["jobs"]["grade"]["steps"]
    }


def run_step(step: dict[str, Any], repo: Path, summary: Path) -> subprocess.CompletedProcess[str]:
    """A workflow step's shell script, run as the runner runs it (bash -e), graders on PATH."""
    env = venv_env(GITHUB_STEP_SUMMARY=str(summary))
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_workflow_grades_the_notebook_as_written(course: Path, repo: Path) -> None:
    result = init_ci(course, repo, "--min-score", "70%")
    assert result.exit_code == 0, result.output
    wf = workflow(repo)
    assert wf["jobs"]["grade"]["runs-on"] == "ubuntu-24.04" and "push" in wf.get("on", wf.get(True))
    assert TORCH_CPU in steps(repo)["Install graders"]["run"]
    assert not (repo / "requirements.txt").exists()  # the repository's pyproject.toml names graders
    assert sorted(p.name for p in (repo / ".graders" / "course" / "exercises").iterdir()) == [
        "clone-basics.yml",
        "detach-basics.yml",
    ]
    summary = repo / "summary.md"
    run = run_step(steps(repo)["Grade"], repo, summary)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == "graders: 8/8 points (minimum 5.6: passed)"
    assert summary.read_text().startswith("### ci1: graders: 8/8 points")
    report = repo / steps(repo)["Keep the report"]["with"]["path"]
    assert len(ET.parse(report / "junit.xml").getroot().findall("testsuite/testcase")) == len(KEY)

    write_notebook(repo / "ci1.ipynb", wrong_answers())  # the learner pushes again
    run = run_step(steps(repo)["Grade"], repo, summary)
    assert run.returncode == 1  # 5/8 is below 70%: the job fails
    assert run.stdout.splitlines()[-1] == "graders: 5/8 points (minimum 5.6: not reached)"


def test_solutions_stay_out_of_the_student_repository_unless_asked_for(
    course: Path, repo: Path
) -> None:
    result = init_ci(course, repo, "--assignment", "ci2")
    assert result.exit_code == 2
    assert "solutions/independent-copy.py" in result.stderr and "--course-repo" in result.stderr
    assert not (repo / ".github").exists()
    result = init_ci(course, repo, "--assignment", "ci2", "--include-solutions")
    assert result.exit_code == 0, result.output
    assert (repo / ".graders" / "course" / "solutions" / "independent-copy.py").is_file()


def test_the_course_can_come_from_a_private_repository_instead(course: Path, repo: Path) -> None:
    result = init_ci(
        course, repo, "--assignment", "ci2", "--course-repo", "teacher/autograd-course"
    )
    assert result.exit_code == 0, result.output
    checkout = steps(repo)["Check out the course"]["with"]
    assert checkout == {
        "repository": "teacher/autograd-course",
        "token": "${{ secrets.GRADERS_COURSE_TOKEN }}",
        "path": ".graders/course",
    }
    assert not (repo / ".graders" / "course").exists()
    assert (repo / ".graders" / ".gitignore").read_text() == "course/\n"
    assert "--course .graders/course" in steps(repo)["Grade"]["run"]


def test_an_existing_workflow_is_replaced_only_with_force(course: Path, repo: Path) -> None:
    assert init_ci(course, repo).exit_code == 0
    again = init_ci(course, repo, "--allow-userns")
    assert again.exit_code == 2 and "--force" in again.stderr
    assert init_ci(course, repo, "--allow-userns", "--force").exit_code == 0
    sysctl = steps(repo)["Allow user namespaces for the sandbox"]["run"]
    assert sysctl == "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"


def test_requirements_txt_is_written_when_the_repository_has_none(
    course: Path, tmp_path: Path
) -> None:
    write_notebook(tmp_path / "ci1.ipynb", {})
    result = init_ci(
        course, tmp_path, "--requirement", "graders @ git+https://example.org/graders@v1"
    )
    assert result.exit_code == 0, result.output
    assert (
        tmp_path / "requirements.txt"
    ).read_text() == "graders @ git+https://example.org/graders@v1\n"
    assert "graders ci ci1.ipynb --assignment ci1" in steps(tmp_path)["Grade"]["run"]
