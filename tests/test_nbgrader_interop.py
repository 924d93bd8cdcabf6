"""The released nbgrader source notebook in a real nbgrader course: same scores as ours.

`nbgrader generate_assignment` and `nbgrader autograde` run as subprocesses with this
interpreter's environment (they start Jupyter kernels: ~20-30 s in all). Then, for
every student and every question, the points nbgrader recorded in its gradebook equal
the points `read_submission` + `grade_submission` give the same submitted notebook.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from nbgrader.api import Gradebook
from notebook_helpers import answer_index, copy_course, fill, load_nb, save_nb

from graders.batch.grading import answer_key, grade_submission, prepare_assignment
from graders.errors import UsageError
from graders.nbgrader import NotCorrect, answer_text, check
from graders.notebook.cells import cell_id
from graders.notebook.collect import read_submission
from graders.notebook.release import write_release
from graders.session import open_session

BIN = Path(sys.executable).parent
NBGRADER_CONFIG = """\
c = get_config()
c.CourseDirectory.course_id = "notebook-demo"
c.ExecutePreprocessor.timeout = 120
"""


def nbgrader(root: Path, *args: str) -> None:
    """Run an nbgrader command in the course folder ``root``; fail with its log if it fails."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop(
        "GRADERS_COURSE", None
    )  # the test cells must find the course through the release's pointer
    done = subprocess.run(
        [str(BIN / "nbgrader"), *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"


def submissions(released: dict[str, Any], key: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Three students' notebooks made from nbgrader's student version, filled by metadata.

    The partial one leaves the code exercise as nbgrader's stub and a question unanswered.
    """
    wrong = {
        "clone-basics/shares-memory": "True",
        "clone-basics/grad-fn": "None",
        "clone-basics/backward": "RuntimeError",
        "clone-basics/grad": "tensor(2.)",
        "detach-basics/flags": "(True, True)",
        "detach-basics/write-through": "tensor(0.4963)",
        "detach-basics/resize-leaf": "no error",
    }
    partial = fill(
        released, {k: key[k] for k in ("clone-basics/shares-memory", "detach-basics/flags")}
    )
    cells = partial["cells"]
    index = answer_index(partial)
    cells[index["clone-basics/backward"]]["source"] = (
        "answer = RuntimeError"  # a Python value, not a string: wrong
    )
    cells[index["detach-basics/resize-leaf"]]["source"] = (
        "answer = " + key["detach-basics/resize-leaf"]
    )  # the class itself: right
    cells[index["clone-basics/grad"]]["source"] = (
        'answer = "tensor(3.) +"'  # does not parse: invalid
    )
    wrong["independent-copy"] = (
        "def independent_copy(t):\n    return t.detach()\n"  # partial credit: 2 of 4 checks
    )
    return {"correct": fill(released, key), "wrong": fill(released, wrong), "partial": partial}


def nbgrader_points(root: Path, student: str, cells: list[str]) -> dict[str, float]:
    """Answer cell key -> the points nbgrader's autograder gave its test cell."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        notebook = gb.find_submission("nb1", student).notebooks[0]
        scores = {g.name: g.auto_score for g in notebook.grades}
    return {key: scores[cell_id("test", key)] for key in cells}


def per_cell(points: dict[str, float], cells: list[str]) -> dict[str, float]:
    """Our points per nbgrader test cell: a question's own, or a code exercise's checks summed."""
    return {
        key: sum(p for item, p in points.items() if item == key or item.startswith(f"{key}/"))
        for key in cells
    }


def test_nbgrader_autograde_gives_the_same_points_as_graders(tmp_path: Path) -> None:
    course = copy_course(tmp_path / "course")
    root = tmp_path / "nbgrader-course"
    with open_session(course) as ws:  # one sandbox for the release and our own grading
        prep = prepare_assignment(ws.loaded, "nb1", ws.ctx)
        key = answer_key(prep)  # also fills the truth cache the test cells read
        written = write_release(ws.loaded, prep.assignment, key, tmp_path / "out")
        shutil.copytree(written.source.parent, root / "source" / "nb1")
        (root / "nbgrader_config.py").write_text(NBGRADER_CONFIG)
        nbgrader(root, "generate_assignment", "nb1")
        released = load_nb(root / "release" / "nb1" / "nb1.ipynb")
        assert all(
            "BEGIN HIDDEN TESTS" not in c["source"] and "BEGIN SOLUTION" not in c["source"]
            for c in released["cells"]
        )
        for student, nb in submissions(released, key).items():
            save_nb(nb, root / "submitted" / student / "nb1" / "nb1.ipynb")
        nbgrader(root, "autograde", "nb1", "--create")
        ours = {
            student: {
                q.id: q.points
                for q in grade_submission(
                    prep,
                    read_submission(
                        root / "submitted" / student / "nb1" / "nb1.ipynb",
                        "nb1",
                        ws.loaded,
                        student,
                    ),
                ).questions
            }
            for student in ("correct", "wrong", "partial")
        }

    cells = released["metadata"]["graders"]["answers"]
    for student, points in ours.items():
        assert nbgrader_points(root, student, cells) == pytest.approx(
            per_cell(points, cells), abs=1e-3
        ), student
    totals = {student: sum(points.values()) for student, points in ours.items()}
    assert totals == pytest.approx(
        {"correct": 13.0, "wrong": 2.0, "partial": 1 + 4 / 3 + 4 / 3}, abs=1e-3
    )


def test_check_passes_a_right_answer_and_explains_a_wrong_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    course = copy_course(tmp_path / "course")
    with open_session(course) as ws:
        answer_key(
            prepare_assignment(ws.loaded, "nb1", ws.ctx)
        )  # fills the truth cache, as release does
    monkeypatch.delenv("GRADERS_COURSE", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graders-course.json").write_text(
        json.dumps({"course": str(course / "course.yml")})
    )
    assert check("clone-basics/shares-memory", False, assignment="nb1") is None
    with pytest.raises(NotCorrect, match="Sharing memory is what detach"):
        check("clone-basics/shares-memory", True, assignment="nb1")
    with pytest.raises(NotCorrect, match="clone-basics/grad: unanswered"):
        check("clone-basics/grad", ..., assignment="nb1")


def test_check_refuses_a_pointer_to_another_course(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    course = copy_course(tmp_path / "course")
    monkeypatch.delenv("GRADERS_COURSE", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graders-course.json").write_text(
        json.dumps({"course": str(course), "course_id": "another-course"})
    )
    with pytest.raises(
        UsageError,
        match="is course 'notebook-demo', but this assignment was released from course "
        "'another-course'",
    ):
        check("clone-basics/grad", "tensor(3.)", assignment="nb1")


def test_check_without_a_course_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRADERS_COURSE", raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="graders cannot find the course: set GRADERS_COURSE"):
        check("clone-basics/grad", "tensor(3.)", assignment="nb1")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param("tensor(3.)", "tensor(3.)", id="string-is-the-literal"),
        pytest.param(..., None, id="ellipsis-unanswered"),
        pytest.param(None, "None", id="none"),
        pytest.param((True, False), "(True, False)", id="tuple"),
        pytest.param(RuntimeError, "RuntimeError", id="exception-class"),
        pytest.param(RuntimeError("boom"), "RuntimeError", id="exception-instance"),
        pytest.param(
            torch.tensor([1.0, 2.0], requires_grad=True),
            "tensor([1., 2.], requires_grad=True)",
            id="tensor",
        ),
        pytest.param(torch.Size([4, 3]), "torch.Size([4, 3])", id="size"),
    ],
)
def test_answer_values_become_the_literals_torch_prints(value: Any, text: str | None) -> None:
    assert answer_text(value) == text
