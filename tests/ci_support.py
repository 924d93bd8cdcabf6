"""Helpers shared by the CI tests: a small two-assignment course, notebooks that answer it,
Gradescope's /autograder and its run, and the options that load the pytest plugin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from importlib.metadata import entry_points
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

VENV_BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parent.parent

#: The predictions of the notebook tests' small course, and a code exercise of the repository's.
PREDICT_EXERCISES = [
    REPO / "tests" / "data" / "notebook-course" / "exercises" / f"{name}.yml"
    for name in ("clone-basics", "detach-basics")
]
CODE_EXERCISE = REPO / "exercises" / "independent-copy.yml"
SOLUTION = REPO / "solutions" / "independent-copy.py"
COURSE = """\
id: ci-course
title: CI test course
seed: 0
limits: {timeout_s: 20, memory_mib: 2048}
assignments:
  - id: ci1
    title: clone and detach, predictions only
    due: "2036-10-05T23:59:00+02:00"  # graders ci applies the late policy
    exercises:
      - clone-basics
      - {id: detach-basics, points: 3}
  - id: ci2
    title: detach, and an independent copy in code
    due: "2036-10-12T23:59:00+02:00"
    exercises:
      - detach-basics
      - independent-copy
"""

#: The answers of ci1 that earn full marks (a test checks them against torch's key).
KEY = {
    "clone-basics/shares-memory": "False",
    "clone-basics/grad-fn": "<CloneBackward0>",
    "clone-basics/backward": "no error",
    "clone-basics/grad": "tensor(3.)",
    "detach-basics/flags": "(True, False)",
    "detach-basics/write-through": "tensor(1., grad_fn=<SelectBackward0>)",
    "detach-basics/resize-leaf": "RuntimeError",
}
MAX_CI1 = 5 + 3  # clone-basics: 1 + 1 + 1 + 2 points; detach-basics: 3 questions scaled to 3


def write_course(root: Path) -> Path:
    """The test course in ``root``; returns the folder."""
    for folder, files in (
        ("exercises", [*PREDICT_EXERCISES, CODE_EXERCISE]),
        ("solutions", [SOLUTION]),
        ("checkers", [REPO / "checkers" / "independent-copy.py"]),
    ):
        (root / folder).mkdir(parents=True, exist_ok=True)
        for path in files:
            shutil.copy(path, root / folder)
    (root / "course.yml").write_text(COURSE, encoding="utf-8")
    return root


def solution_source() -> str:
    """The reference solution of the code exercise, as a learner could write it."""
    return SOLUTION.read_text(encoding="utf-8")


def write_notebook(
    path: Path,
    answers: Mapping[str, str],
    assignment: str = "ci1",
    code: Mapping[str, str] | None = None,
) -> Path:
    """A released-style notebook: one answer cell per question (``answer = "<literal>"``),
    one code cell per code exercise."""
    cells = [new_markdown_cell("# Predict what torch does")]
    for item, answer in answers.items():
        cells.append(new_markdown_cell(f"**{item}**"))
        cells.append(
            new_code_cell(
                f"answer = {json.dumps(answer)}", metadata={"graders": {"question": item}}
            )
        )
    for exercise, source in (code or {}).items():
        cells.append(new_code_cell(source, metadata={"graders": {"exercise": exercise}}))
    nb = new_notebook(
        cells=cells, metadata={"graders": {"course": "ci-course", "assignment": assignment}}
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    return path


def wrong_answers() -> dict[str, str]:
    """The key with two misses (3 points): a declared misconception and a wrong gradient."""
    return {**KEY, "clone-basics/shares-memory": "True", "clone-basics/grad": "tensor(2.)"}


def venv_env(**extra: str) -> dict[str, str]:
    """The environment for subprocesses: this venv's executables first on PATH."""
    env = dict(os.environ, PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("PYTEST_ADDOPTS", None)
    env.update(extra)
    return env


def autograder_root(zip_path: Path, root: Path, user: dict[str, str] | None = None) -> Path:
    """/autograder as Gradescope lays it out: source/ (the zip), run_autograder, submission/,
    and the submission's metadata, naming ``user`` as its submitter."""
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
    for name in ("run_autograder", "setup.sh"):  # extractall drops the modes
        (root / "source" / name).chmod(0o755)
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    submitter = user or {"email": "ada@example.org", "name": "Ada Lovelace", "sid": "S-1001"}
    metadata = {
        "id": 123456,
        "created_at": "2036-10-01T12:00:00.000000-07:00",
        "users": [{"id": 1001, **submitter}],
        "assignment": {"id": 42, "title": "ci2"},
    }
    (root / "submission_metadata.json").write_text(json.dumps(metadata))
    return root


def run_autograder(root: Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = venv_env(GRADERS_AUTOGRADER_ROOT=str(root))
    return subprocess.run(
        [str(root / "run_autograder")],
        cwd=cwd or root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def plugin_args() -> list[str]:
    """``-p graders.integrations.pytest_plugin`` until the package's pytest11 entry point is
    installed."""
    installed = any(ep.name == "graders" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "graders.integrations.pytest_plugin"]
