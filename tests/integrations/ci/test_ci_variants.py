"""Grading one notebook in CI, each learner in their own variant: the Gradescope autograder
grades the submitter its metadata names (users[0], through a roster), `graders ci
--student-from github-actor` the account GITHUB_ACTOR names, the pytest plugin the learner
its option names; where none is named, a usage error, never the base variant."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ci_support import autograder_root, plugin_args, run_autograder, venv_env
from click.testing import CliRunner
from small_course import notebook
from variant_course import CODE_EXERCISES, code_variant_course, two_learners

from graders.cli import main
from graders.cli.ci import ci
from graders.grading.pipeline import answer_key, for_learner, prepare_assignment
from graders.integrations.ci.learner import SOURCES
from graders.workspace import open_workspace

# Its many in-process commands share one warm sandbox (tests/warm_sandbox.py).
pytestmark = pytest.mark.usefixtures("warm_sandbox")

MAX_PS3 = 9


@pytest.fixture(scope="module")
def setting(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, Path]:
    """The course, two learners with different variants, and a notebook of the first's code."""
    root = tmp_path_factory.mktemp("ci-variants")
    course = code_variant_course(root / "course")
    with open_workspace(course) as ws:
        ada, bob = two_learners(ws.loaded, *CODE_EXERCISES)
        prep = prepare_assignment(ws.loaded, "ps3", ws.ctx)  # fills the truth cache
        key = answer_key(for_learner(prep, ada))
    path = root / "ps3.ipynb"
    path.write_text(notebook({}, {e: key[e] for e in CODE_EXERCISES}))
    return course, ada, bob, path


def test_the_cli_offers_every_source_the_library_reads() -> None:
    (option,) = (p for p in ci.params if p.name == "student_from")
    assert list(option.type.choices) == list(SOURCES)  # type: ignore[attr-defined]


def test_graders_ci_grades_the_github_actor_in_their_variant(
    setting: tuple[Path, str, str, Path],
) -> None:
    course, ada, bob, path = setting
    base = ["ci", str(path), "--assignment", "ps3", "--course", str(course), "--no-late-policy"]
    runner = CliRunner()
    for actor, score in ((ada, MAX_PS3), (bob, None)):
        run = runner.invoke(
            main, [*base, "--student-from", "github-actor"], env={"GITHUB_ACTOR": actor}
        )
        last = run.output.strip().splitlines()[-1]
        if score is not None:
            assert last == f"graders: {score}/{MAX_PS3} points", run.output
        else:
            assert last != f"graders: {MAX_PS3}/{MAX_PS3} points", run.output
    unset = runner.invoke(main, [*base, "--student-from", "github-actor"], env={"GITHUB_ACTOR": ""})
    assert unset.exit_code == 2 and "no learner id: GITHUB_ACTOR is not set" in unset.output
    unnamed = runner.invoke(main, base)
    assert unnamed.exit_code == 2
    assert "name the learner (graders ci --student ID" in unnamed.output
    assert "--student-from gradescope-email | gradescope-sid | github-actor" in unnamed.output


def test_gradescope_grades_the_submitter_its_metadata_names(
    setting: tuple[Path, str, str, Path], tmp_path: Path
) -> None:
    course, ada, bob, path = setting
    roster = tmp_path / "roster.csv"
    roster.write_text(f"student,email\n{ada},ada@example.org\n{bob},bob@example.org\n")
    out = tmp_path / "ps3.zip"
    built = CliRunner().invoke(
        main,
        ["gradescope", "ps3", "--course", str(course), "--out", str(out), "--roster", str(roster)],
    )
    assert built.exit_code == 0, built.output
    scores = {}
    for who in ("ada", "bob", "eve"):
        root = autograder_root(out, tmp_path / who, {"email": f"{who}@example.org", "name": who})
        (root / "submission" / "ps3.ipynb").write_text(path.read_text())
        run = run_autograder(root)
        if who == "eve":  # not on the roster: whose variant is unknown, so nothing is graded
            assert "'eve@example.org' (Gradescope's users[0].email) is in no row" in run.stderr
            # ... and Gradescope shows why, rather than a failure of the autograder.
            assert run.returncode == 0, run.stdout + run.stderr
            refused = json.loads((root / "results" / "results.json").read_text())
            assert refused["score"] == 0 and refused["tests"] == []
            assert refused["output"].startswith("**The submission could not be graded.**")
            reason = "'eve@example.org' (Gradescope's users[0].email) is in no row"
            assert reason in refused["output"]
            continue
        assert run.returncode == 0, run.stdout + run.stderr
        graded = json.loads((root / "results" / "graders.json").read_text())
        assert graded["students"][0]["student"] == {"ada": ada, "bob": bob}[who]
        scores[who] = json.loads((root / "results" / "results.json").read_text())["score"]
    assert scores["ada"] == MAX_PS3 > scores["bob"]


def test_the_pytest_plugin_grades_the_learner_it_is_told(
    setting: tuple[Path, str, str, Path],
) -> None:
    course, ada, bob, path = setting

    def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pytest", *plugin_args(), "-p", "no:cacheprovider"]
        command += [f"--graders-notebook={path}", f"--graders-course={course}"]
        command += ["--graders-assignment=ps3", *args]
        return subprocess.run(
            command, cwd=path.parent, env=venv_env(), capture_output=True, text=True, timeout=600
        )

    mine = pytest_run(f"--graders-student={ada}")
    assert mine.returncode == 0, mine.stdout + mine.stderr
    assert mine.stdout.splitlines()[-1] == f"graders: {MAX_PS3}/{MAX_PS3} points"
    theirs = pytest_run(f"--graders-student={bob}")
    assert theirs.returncode == 1 and "safe-sgd-step/values" in theirs.stdout
    assert theirs.stdout.splitlines()[-1] != f"graders: {MAX_PS3}/{MAX_PS3} points"
    unnamed = pytest_run()
    assert unnamed.returncode == 4  # pytest's usage error, before anything is collected
    assert "name the learner (--graders-student ID" in unnamed.stderr
