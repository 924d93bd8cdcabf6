"""Every workflow `graders init-ci` writes, in every configuration, passes actionlint with
shellcheck on its scripts, GitHub's workflow schema, and graders' rules: actions pinned to
a commit, no token left to learner content, no permission a job does not use, no secret
where learner content runs. The rules are shown to catch each thing they look for."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import workflow_checks
import yaml
from ci_support import KEY, write_course, write_notebook
from click.testing import CliRunner
from workflow_checks import (
    TOKEN_NEEDS,
    actionlint_findings,
    require_actionlint,
    rule_findings,
    schema_findings,
)

from graders.cli import main
from graders.integrations.ci.actions import PINS
from graders.integrations.ci.templates import shell_word

BILINGUAL = "languages: [en, zh]\nseed: 0"


def course(root: Path, practice: bool = False) -> Path:
    """The CI test course, in English and Chinese; ``practice``: its answers shown before
    the due date (so it may be copied into a student repository)."""
    write_course(root)
    text = (root / "course.yml").read_text().replace("seed: 0", BILINGUAL)
    if practice:
        text = text.replace(
            "    exercises:\n", "    feedback: {before_due: full}\n    exercises:\n"
        )
    (root / "course.yml").write_text(text)
    return root


def init_ci(*args: str) -> None:
    done = CliRunner().invoke(main, ["init-ci", *args])
    assert done.exit_code == 0, done.output


def student(
    tmp: Path, *options: str, practice: bool = False, notebook: str = "ci1.ipynb", of: str = "ci1"
) -> Path:
    """A student repository holding ``notebook`` (of the assignment ``of``), set up by
    `init-ci github OPTIONS`."""
    taught = course(tmp / "course", practice)
    repo = tmp / "student"
    write_notebook(repo / notebook, KEY, assignment=of)
    init_ci("github", "--repo", str(repo), "--course", str(taught), *options)
    return repo


def grader(tmp: Path, *options: str, nested: bool = True) -> Path:
    """A course repository set up by `init-ci github-grader OPTIONS` for both assignments:
    the course in a folder of the repository (``nested``) or at its root."""
    repo = tmp / "course-repo"
    taught = course(repo / "course" if nested else repo)
    students = "lists/students of ci.txt"
    (repo / "lists").mkdir(parents=True)
    (repo / students).write_text("class/ci-ada ada\n")
    for assignment in ("ci1", "ci2"):
        args = ["--repo", str(repo), "--course", str(taught), "--assignment", assignment]
        init_ci("github-grader", *args, "--students", students, *options)
    return repo


CONFIGURATIONS = {
    "check": lambda tmp: student(tmp),
    "check, Chinese summary": lambda tmp: student(tmp, "--lang", "zh"),
    "check, a notebook name to quote": lambda tmp: student(
        tmp, "--notebook", "my work/ci1 $1 `x`.ipynb", notebook="my work/ci1 $1 `x`.ipynb"
    ),
    "course copy": lambda tmp: student(tmp, "--vendor-course", "--min-score", "70%", practice=True),
    "course copy, solutions, Chinese": lambda tmp: student(
        tmp,
        *("--vendor-course", "--include-solutions", "--allow-userns", "--assignment", "ci2"),
        *("--lang", "zh"),
        practice=True,
        notebook="ci2.ipynb",
        of="ci2",
    ),
    "course repository, course in a folder": lambda tmp: grader(tmp),
    "course repository, course at its root": lambda tmp: grader(
        tmp, "--min-score", "60%", "--cron", "0 6 * * 1", nested=False
    ),
}


def workflows(repo: Path) -> list[Path]:
    found = sorted((repo / ".github" / "workflows").glob("*.yml"))
    assert found, f"no workflow in {repo}"
    return found


@pytest.mark.parametrize("configuration", CONFIGURATIONS)
def test_every_generated_workflow_passes_actionlint_with_shellcheck(
    configuration: str, tmp_path: Path
) -> None:
    require_actionlint()
    written = workflows(CONFIGURATIONS[configuration](tmp_path))
    assert not (found := actionlint_findings(*written)), found
    assert not (found := schema_findings(*written)), found
    for workflow in written:
        assert not (broken := rule_findings(workflow.read_text())), broken


def test_the_chinese_summary_is_in_the_workflow(tmp_path: Path) -> None:
    text = (workflows(student(tmp_path, "--lang", "zh"))[0]).read_text()
    assert "评分程序" in text  # so the configuration above lints what a Chinese class gets


@pytest.mark.parametrize("configuration", CONFIGURATIONS)
def test_every_generated_workflow_keeps_graders_rules(configuration: str, tmp_path: Path) -> None:
    """The rules alone, where actionlint is not installed too."""
    for workflow in workflows(CONFIGURATIONS[configuration](tmp_path)):
        assert not (broken := rule_findings(workflow.read_text())), broken
        for line in workflow.read_text().splitlines():
            if (used := re.search(r"uses: ([\w/-]+)@(\w+) # (\S+)$", line)) is not None:
                assert PINS[used[1]] == (used[2], used[3])  # the table's pin, as written


def test_actionlint_runs_shellcheck_on_the_scripts(tmp_path: Path) -> None:
    require_actionlint()
    workflow = tmp_path / "unquoted.yml"
    workflow.write_text(
        "on: push\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-24.04\n"
        '    steps:\n      - run: echo $1 "${{ github.event.head_commit.message }}"\n'
    )
    found = actionlint_findings(workflow)
    assert "SC2086" in found  # shellcheck: $1 unquoted
    assert "github.event.head_commit.message" in found  # actionlint's own: an injection


@pytest.fixture(scope="module")
def grading_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    return (
        grader(tmp_path_factory.mktemp("rules")) / ".github/workflows/grade-ci1.yml"
    ).read_text()


def test_the_rules_hold_for_the_course_repository_s_workflow(grading_text: str) -> None:
    assert rule_findings(grading_text) == []
    jobs = yaml.safe_load(grading_text)["jobs"]
    # The token is named only where no learner content runs; grading never sees it.
    holding = {name for name, job in jobs.items() if "secrets." in yaml.safe_dump(job)}
    assert holding == {"fetch", "publish"}


CHECKOUT = PINS["actions/checkout"]


@pytest.mark.parametrize(
    ("change", "finding"),
    [
        # A tag, a branch, a short SHA: each can name other code later.
        (("@" + CHECKOUT.sha + " # " + CHECKOUT.version, "@v4"), "not pinned to a full commit"),
        (("@" + CHECKOUT.sha, "@main"), "not pinned to a full commit"),
        (("@" + CHECKOUT.sha, "@" + CHECKOUT.sha[:12]), "not pinned to a full commit"),
        ((" # " + CHECKOUT.version, ""), "no release in a comment"),
        # The token stays in .git/config for the grading that follows.
        (("persist-credentials: false", "persist-credentials: true"), "keeps the token"),
        (("persist-credentials: false", "fetch-depth: 1"), "keeps the token"),
        # More than the jobs use, for every job or for one.
        (("permissions: {}", "permissions: write-all"), "grants write-all to every job"),
        (("permissions: {}", "permissions: {contents: read}"), "to every job"),
        (("contents: read  # the checkout: the course", "contents: write  # "), "grants contents"),
        (
            (
                "contents: read  # the checkout: the course",
                "contents: read\n      id-token: write  #",
            ),
            "grants id-token: write",
        ),
        (("contents: read  # the checkout: the course", "{}  #"), "needs contents: read"),
        # A secret in the job where learner code runs, even in another step than the one
        # that runs it: the job's runner holds it from the start.
        (
            ("run: sudo sysctl", 'env: {T: "${{ secrets.T }}"}\n        run: sudo sysctl'),
            "grade: it runs learner content and names a secret",
        ),
        (
            ("run: sudo sysctl", "run: GH_TOKEN=${{ github.token }} sudo sysctl"),
            "uses the job's token in a script",
        ),
        (
            ("actions/download-artifact@", "someone/download-artifact@"),
            "no record of what someone/download-artifact",
        ),
    ],
)
def test_the_rules_catch_each_thing_they_look_for(
    grading_text: str, change: tuple[str, str], finding: str
) -> None:
    old, new = change
    assert old in grading_text
    found = rule_findings(grading_text.replace(old, new, 1))
    assert any(finding in problem for problem in found), found


def test_every_pinned_action_is_one_the_rules_know() -> None:
    assert set(PINS) == set(TOKEN_NEEDS)
    for action, (sha, version) in PINS.items():
        assert re.fullmatch(r"[0-9a-f]{40}", sha), action
        assert re.fullmatch(r"v\d+\.\d+\.\d+", version), action


@pytest.mark.parametrize(
    "word",
    ["ci1.ipynb", "my work.ipynb", "it's", "$HOME", "`date`", 'a "b" \\ $c `d` !e', "分支 `x`"],
)
def test_a_quoted_word_stands_for_itself_in_bash(word: str) -> None:
    quoted = shell_word(word)
    said = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", f"printf %s {quoted}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert said.stdout == word
    if "$" in word or "`" in word:
        assert quoted.startswith('"')  # shellcheck reads single-quoted $ as a mistake (SC2016)


def test_actionlint_is_found_where_it_is_said_to_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nowhere = tmp_path / "nowhere"
    monkeypatch.setattr(workflow_checks, "SHARED_ACTIONLINT", nowhere / "actionlint")
    monkeypatch.setenv("PATH", str(nowhere))
    monkeypatch.delenv("ACTIONLINT", raising=False)
    with pytest.raises(pytest.skip.Exception, match="actionlint not found"):
        require_actionlint()  # skipped, and the summary says why (-ra)
    own = tmp_path / "bin" / "actionlint"
    own.parent.mkdir()
    own.write_text("#!/bin/sh\n")
    own.chmod(0o755)
    monkeypatch.setenv("ACTIONLINT", str(own))
    assert workflow_checks.actionlint() == own
    monkeypatch.delenv("SHELLCHECK", raising=False)
    with pytest.raises(AssertionError, match="shellcheck not found"):
        require_actionlint()  # actionlint alone would check no script: a failure
