"""The tutorial (docs/tutorial/first-course.md), run as written: its files make a course
that validates, its answers files get the grades it says, and its shell steps release,
autograde, and write the feedback pages and the report."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from graders.cli import main

TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "tutorial" / "first-course.md"
FILES = ("course.yml", "exercises/clone-requires-grad.yml", "answers/ada.yml", "answers/bob.yml")


def blocks(language: str) -> list[str]:
    """The tutorial's code blocks in ``language``, in order."""
    text = TUTORIAL.read_text(encoding="utf-8")
    return re.findall(r"```" + language + r"\n(.*?)```", text, re.S)


def write_files(root: Path) -> None:
    """Each YAML block names its file on its first line (``# course.yml``)."""
    named = {b.splitlines()[0].removeprefix("# "): b for b in blocks("yaml")}
    assert sorted(named) == sorted(FILES)
    for name, text in named.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def run(line: str) -> None:
    """One line of a shell block: graders' commands in this process, the rest in a shell."""
    if line.startswith("graders "):
        done = CliRunner().invoke(main, shlex.split(line, comments=True)[1:])
        assert done.exit_code == 0, f"{line}\n{done.output}"
    else:
        subprocess.run(line, shell=True, check=True)


@pytest.mark.sandbox
def test_the_tutorial_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    for block in blocks("sh"):
        for line in block.splitlines():
            run(line)

    graded = CliRunner().invoke(
        main, ["grade", "ps1", "answers/ada.yml", "answers/bob.yml", "--json"]
    )
    doc = json.loads(graded.stdout)
    scores = {s["student"]: (s["score"], s["max_score"]) for s in doc["students"]}
    assert scores == {"ada": (3, 3), "bob": (1, 3)}
    bob = next(s for s in doc["students"] if s["student"] == "bob")
    assert [q["misconception"] for q in bob["questions"] if q["status"] == "wrong"] == [
        "clone-shares-memory",
        "clone-cuts-graph",
    ]

    results = json.loads(Path("autograded/ps1/results.json").read_text(encoding="utf-8"))
    assert [(s["student"], s["score"]) for s in results["students"]] == [("ada", 3)]
    assert Path("autograded/ps1/feedback/ada.html").is_file()
    assert Path("autograded/ps1/report.html").is_file()
