"""What every GitHub Actions workflow graders writes must pass: GitHub's workflow schema,
actionlint with shellcheck on every script, and the rules that keep a token out of learner
hands (``rule_findings``).

actionlint comes from ``$ACTIONLINT``, else the static build beside the project
(``../shared/tools/actionlint``), else ``PATH``; shellcheck from ``$SHELLCHECK``, else
``PATH`` (Debian's ``shellcheck``, which ``.ci/run`` installs). Where there is no actionlint
at all, ``require_actionlint`` skips the test and says why; actionlint without shellcheck
is a failure, since it would leave every script unchecked without a word.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from ci_support import REPO

CHECK_JSONSCHEMA = Path(sys.executable).parent / "check-jsonschema"
SHARED_ACTIONLINT = REPO.parent / "shared" / "tools" / "actionlint"

#: What each action graders' workflows use does with the job's token. A job is granted
#: exactly the union of its steps' needs; an action missing here is a finding until it
#: is added, with what it needs.
TOKEN_NEEDS: dict[str, dict[str, str]] = {
    "actions/checkout": {"contents": "read"},  # clones this repository
    "actions/setup-python": {},  # reads public Python builds (works without a grant)
    "actions/upload-artifact": {},  # the runtime token, not the job's
    "actions/download-artifact": {},  # the same run's artifacts: the runtime token
}
#: A script that runs graders on a learner's work runs learner content (their notebook;
#: their code, in graders' sandbox).
LEARNER_CONTENT = re.compile(r"\bgraders (ci|check)\b")
PINNED = re.compile(r"[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}")
USES_LINE = re.compile(r"^\s*(-\s+)?uses:\s*(?P<ref>\S+)(?P<rest>.*)$")
RANK = {"none": 0, "read": 1, "write": 2}


def actionlint() -> Path | None:
    """The actionlint binary to run, or None where there is none."""
    for candidate in (os.environ.get("ACTIONLINT"), SHARED_ACTIONLINT, shutil.which("actionlint")):
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def shellcheck() -> Path | None:
    found = os.environ.get("SHELLCHECK") or shutil.which("shellcheck")
    return Path(found) if found and os.access(found, os.X_OK) else None


def require_actionlint() -> tuple[Path, Path]:
    """actionlint and shellcheck; the test is skipped, saying so, where actionlint is not
    installed, and fails where shellcheck is not."""
    binary = actionlint()
    if binary is None:
        pytest.skip(
            f"actionlint not found ($ACTIONLINT, {SHARED_ACTIONLINT}, PATH): the generated "
            "workflows are not linted"
        )
    checker = shellcheck()
    assert checker is not None, (
        "shellcheck not found ($SHELLCHECK, PATH): actionlint would lint no script "
        "(apt-get install shellcheck; .ci/run installs it)"
    )
    return binary, checker


def actionlint_findings(*workflows: Path) -> str:
    """What actionlint, running shellcheck on every script, says of ``workflows``: empty
    when nothing."""
    binary, checker = require_actionlint()
    lint = subprocess.run(
        [str(binary), "-no-color", f"-shellcheck={checker}", *map(str, workflows)],
        capture_output=True,
        text=True,
    )
    assert lint.returncode in (0, 1), lint.stderr  # 1: findings; more: actionlint failed
    return lint.stdout + lint.stderr


def schema_findings(*workflows: Path) -> str:
    """What check-jsonschema says of ``workflows`` against GitHub's workflow schema."""
    schema = subprocess.run(
        [
            str(CHECK_JSONSCHEMA),
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, workflows),
        ],
        capture_output=True,
        text=True,
    )
    return "" if schema.returncode == 0 else schema.stdout + schema.stderr


def check_workflows(*workflows: Path) -> None:
    """The schema, graders' rules, and actionlint with shellcheck where it is installed."""
    assert not (found := schema_findings(*workflows)), found
    for workflow in workflows:
        assert not (rules := rule_findings(workflow.read_text())), rules
    if actionlint() is not None:
        assert not (found := actionlint_findings(*workflows)), found


def rule_findings(text: str) -> list[str]:
    """Where the workflow ``text`` breaks graders' rules: every action pinned to a commit
    with its release in a comment; no checkout leaving its token in ``.git/config`` for a
    script after it; no permission granted by default, and each job granted exactly what
    its steps use; no secret in a job that runs learner content."""
    doc = yaml.safe_load(text)
    found = _unpinned(text)
    if doc.get("permissions") != {}:
        found.append(f"the workflow grants {doc.get('permissions', 'the default')} to every job")
    for name, job in doc["jobs"].items():
        steps = job.get("steps", [])
        found += [f"{name}: {problem}" for problem in _job_findings(job, steps)]
    return found


def _unpinned(text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        match = USES_LINE.match(line)
        if match is None:
            continue
        ref, rest = match["ref"], match["rest"].strip()
        if not PINNED.fullmatch(ref):
            found.append(f"line {number}: {ref} is not pinned to a full commit SHA")
        elif not re.fullmatch(r"#\s*v\d+(\.\d+)*", rest):
            found.append(f"line {number}: {ref} has no release in a comment (# vX.Y.Z)")
    return found


def _job_findings(job: Mapping[str, Any], steps: list[Mapping[str, Any]]) -> Iterable[str]:
    for index, step in enumerate(steps):
        if _action(step) == "actions/checkout" and _persists(step):
            if any("run" in later for later in steps[index + 1 :]):
                yield "its checkout keeps the token in .git/config for the scripts after it"
    yield from _permission_findings(job.get("permissions"), steps)
    runs_learner_content = any(LEARNER_CONTENT.search(step.get("run", "")) for step in steps)
    if runs_learner_content and "secrets." in yaml.safe_dump(dict(job)):
        yield "it runs learner content and names a secret, which its runner holds throughout"


def _permission_findings(granted: Any, steps: list[Mapping[str, Any]]) -> Iterable[str]:
    needed: dict[str, str] = {}
    for step in steps:
        if "run" in step and re.search(r"github\.token|GITHUB_TOKEN", step["run"]):
            yield f"step {step.get('name')!r} uses the job's token in a script"
        action = _action(step)
        if action is None:
            continue
        if action not in TOKEN_NEEDS:
            yield f"no record of what {action} does with the token (TOKEN_NEEDS)"
            continue
        for scope, level in TOKEN_NEEDS[action].items():
            if RANK[level] > RANK[needed.get(scope, "none")]:
                needed[scope] = level
    if not isinstance(granted, dict):
        yield f"permissions: {granted!r}, not each scope it uses (needs {needed or '{}'})"
        return
    for scope, level in granted.items():
        if RANK.get(level, 0) > RANK[needed.get(scope, "none")]:
            yield f"grants {scope}: {level}, which its steps do not use (they need {needed})"
    for scope, level in needed.items():
        if RANK.get(granted.get(scope, "none"), 0) < RANK[level]:
            yield f"needs {scope}: {level}, not granted"


def _action(step: Mapping[str, Any]) -> str | None:
    uses = step.get("uses")
    return None if uses is None else str(uses).split("@")[0]


def _persists(step: Mapping[str, Any]) -> bool:
    return str(step.get("with", {}).get("persist-credentials", True)).lower() != "false"
