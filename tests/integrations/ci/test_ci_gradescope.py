"""`graders gradescope`: the autograder zip, and its run_autograder run as Gradescope runs
it, in a folder laid out like /autograder, giving the total `graders autograde` gives."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from ci_support import (
    KEY,
    autograder_root,
    run_autograder,
    solution_source,
    venv_env,
    write_course,
    write_notebook,
)
from click.testing import CliRunner

from graders.batch.autograde import autograde
from graders.cli import main
from graders.workspace import open_workspace

DETACH_TITLE = "detach() shares memory"
ANSWERS = {
    "detach-basics/flags": "(True, True)",
    "detach-basics/write-through": KEY["detach-basics/write-through"],
    "detach-basics/resize-leaf": KEY["detach-basics/resize-leaf"],
}


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_course(tmp_path_factory.mktemp("course"))


@pytest.fixture(scope="module")
def autograder(course: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("zip") / "ci2.zip"
    result = CliRunner().invoke(
        main, ["gradescope", "ci2", "--course", str(course), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def test_the_zip_holds_the_scripts_graders_and_this_assignment_only(autograder: Path) -> None:
    with zipfile.ZipFile(autograder) as archive:
        names = set(archive.namelist())
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        requirements = archive.read("requirements.txt").decode().splitlines()
        course_yml = archive.read("course/course.yml").decode()
    assert {
        "setup.sh",
        "run_autograder",
        "lib/graders/__init__.py",
        "lib/graders/integrations/ci/templates/run_autograder.j2",
    } <= names
    assert (
        stat.S_IMODE(modes["run_autograder"]) == 0o755 and stat.S_IMODE(modes["setup.sh"]) == 0o755
    )
    assert sorted(n for n in names if n.startswith("course/")) == [
        "course/checkers/independent-copy.py",
        "course/course.yml",
        "course/exercises/detach-basics.yml",
        "course/exercises/independent-copy.yml",
        "course/solutions/independent-copy.py",
    ]
    assert "id: ci2" in course_yml and "id: ci1" not in course_yml
    assert not any(n.endswith(".pyc") for n in names)
    assert not any(r.startswith(("torch", "pytest", "nbgrader")) for r in requirements) and any(
        r.startswith("numpy") for r in requirements
    )


def test_setup_sh_installs_cpu_torch_and_is_valid_bash(autograder: Path, tmp_path: Path) -> None:
    root = autograder_root(autograder, tmp_path)
    text = (root / "source" / "setup.sh").read_text()
    assert "pip install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in text
    assert subprocess.run(["bash", "-n", str(root / "source" / "setup.sh")]).returncode == 0


@pytest.mark.sandbox
def test_run_autograder_gives_the_total_autograde_gives(
    course: Path, autograder: Path, tmp_path: Path
) -> None:
    root = autograder_root(autograder, tmp_path / "autograder")
    notebook = write_notebook(
        root / "submission" / "work" / "ci2.ipynb",
        ANSWERS,
        "ci2",
        {"independent-copy": solution_source()},
    )
    run = run_autograder(root)
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((root / "results" / "results.json").read_text())

    submissions = tmp_path / "submissions" / "ada"
    submissions.mkdir(parents=True)
    shutil.copy(notebook, submissions / "ci2.ipynb")
    out = tmp_path / "out"
    with open_workspace(course) as ws:
        autograde(
            ws, "ci2", submissions.parent, db_url=f"sqlite:///{tmp_path / 'gb.db'}", out_dir=out
        )
    expected = json.loads((out / "gradescope" / "ada.json").read_text())
    assert results["score"] == expected["score"] == 6  # 2 of 3 predictions, 4 of 4 code checks
    scored = [(t["name"], t["score"], t["max_score"]) for t in results["tests"] if "score" in t]
    assert scored == [
        (t["name"], t["score"], t["max_score"]) for t in expected["tests"] if "score" in t
    ]
    assert len(scored) == 7
    assert results["output_format"] == "md" and results["execution_time"] >= 0
    assert results["output"].startswith("**Score: 6 / 7**")
    # Before the due date a learner sees each status and explanation; the expected answers
    # are in tests Gradescope shows only after it.
    # Each test is named as the notebook names its question, its id the output's first line.
    of_flags = [t for t in results["tests"] if t["output"].startswith("`detach-basics/flags`")]
    wrong = next(t for t in of_flags if "score" in t)
    assert wrong["name"] == f"Question 1.1 — {DETACH_TITLE}"
    assert wrong["visibility"] == "visible" and KEY["detach-basics/flags"] not in wrong["output"]
    assert "The explanation of this question comes with the expected answer." in wrong["output"]
    answer = next(
        t for t in of_flags if t["name"] == f"Question 1.1 — {DETACH_TITLE}: expected answer"
    )
    assert answer["visibility"] == "after_due_date" and "score" not in answer
    assert f"expected `{KEY['detach-basics/flags']}`" in answer["output"]


def test_a_submission_without_a_notebook_gets_results_saying_so(
    autograder: Path, tmp_path: Path
) -> None:
    root = autograder_root(autograder, tmp_path)
    (root / "submission" / "notes.txt").write_text("forgot the notebook")
    decoy = (
        root / "submission" / "graders"
    )  # run from the submission folder, it must not be imported
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise SystemExit('the uploaded graders ran')\n")
    run = run_autograder(root, cwd=root / "submission")
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and results["tests"] == []
    assert "no notebook for ci2: expected ci2.ipynb" in results["output"]


def test_run_autograder_imports_the_graders_in_the_zip(autograder: Path, tmp_path: Path) -> None:
    root = autograder_root(autograder, tmp_path)
    env = venv_env(PYTHONPATH=str(root / "source" / "lib"))
    found = subprocess.run(
        ["python3", "-P", "-c", "import graders; print(graders.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(found.stdout.strip()) == root / "source" / "lib" / "graders" / "__init__.py"
    assert os.access(root / "run_autograder", os.X_OK)


# Gradescope's base images, as far as setup.sh can tell them apart: the Python `python3` is,
# and whether venv's pip bootstrap (ensurepip) is there before apt installs it.
IMAGES = {
    "ubuntu-22.04": ("3.10", ["update -qq", "install -y -qq python3.11 python3.11-venv"]),
    "ubuntu-24.04": ("3.12", ["update -qq", "install -y -qq python3-venv"]),
}
STUB_PYTHON = """#!/bin/bash
# A stand-in for the image's {name}: Python {version}, without ensurepip until apt adds it.
if [ "$1" = -c ] && [ "$2" = "import ensurepip" ]; then [ -e "$STUBS/venv-installed" ]; exit; fi
if [ "$1" = -c ]; then exec {real} -c "import sys; sys.version_info = {info}; $2"; fi
if [ "$1 $2" = "-m venv" ]; then
  [ -e "$STUBS/venv-installed" ] || {{ echo "ensurepip is not available" >&2; exit 1; }}
  mkdir -p "$3/bin" && printf '#!/bin/bash\\necho "$*" >> "$STUBS/venv-python.log"\\n' > "$3/bin/python"
  chmod +x "$3/bin/python"; exit
fi
exit 1
"""
STUB_APT = """#!/bin/bash
echo "$*" >> "$STUBS/apt.log"
case "$*" in *venv*) touch "$STUBS/venv-installed";; esac
case "$*" in *python3.11\\ *) ln -sf "$STUBS/python3" "$STUBS/python3.11";; esac
"""


@pytest.mark.parametrize("image", IMAGES)
def test_setup_sh_makes_its_venv_on_gradescopes_images(
    autograder: Path, tmp_path: Path, image: str
) -> None:
    version, apt_calls = IMAGES[image]
    root = autograder_root(autograder, tmp_path / "autograder")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    major, minor = version.split(".")
    (stubs / "python3").write_text(
        STUB_PYTHON.format(
            name="python3", version=version, real=sys.executable, info=f"({major}, {minor}, 0)"
        )
    )
    (stubs / "apt-get").write_text(STUB_APT)
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    # Only the image's commands: no other Python on PATH.
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "dirname", "basename", "chmod", "mkdir", "cat", "ln", "touch"):
        (tools / tool).symlink_to(shutil.which(tool))
    env = {"PATH": f"{stubs}:{tools}", "STUBS": str(stubs), "GRADERS_AUTOGRADER_ROOT": str(root)}
    run = subprocess.run(
        ["bash", str(root / "source" / "setup.sh")], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert (stubs / "apt.log").read_text().splitlines() == apt_calls
    pip = (stubs / "venv-python.log").read_text().splitlines()
    assert pip[0].startswith("-m pip install -q torch==2.13.0 --index-url")
    assert pip[-1].startswith("-P -m graders key ci2")
