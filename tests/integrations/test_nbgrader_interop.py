"""The released nbgrader source notebook in a real nbgrader course: same scores as ours.

`nbgrader generate_assignment` and `nbgrader autograde` run as subprocesses with this
interpreter's environment (they start a Jupyter kernel per student: about a minute in
all). The submissions are the walkthrough's fourteen students (`walkthrough.py`), made
from nbgrader's own student version. For every student and every answer cell, the points
nbgrader recorded in its gradebook equal the points `read_submission` +
`grade_submission` give the same notebook, and the total is what a TA would give. The
nbgrader course sits inside the graders course folder, so the test cells find the
course by the id in the release's pointer, with no configuration.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from nbgrader.api import Gradebook
from notebook_helpers import copy_course, load_nb, save_nb
from walkthrough import STUDENTS
from what_starts import starts

from graders.course.load import load_course
from graders.errors import UsageError
from graders.grading.pipeline import answer_key, grade_submission, prepare_assignment
from graders.integrations.nbgrader import close_sessions
from graders.kinds.predict.cells import kernel_answer
from graders.nbgrader import NotCorrect, check, saved_notebook
from graders.notebook.cells import cell_id
from graders.notebook.collect import read_submission
from graders.notebook.release import student_notebook, write_release
from graders.workspace import open_workspace

BIN = Path(sys.executable).parent
NBGRADER_CONFIG = """\
c = get_config()
c.CourseDirectory.course_id = "notebook-demo"
c.ExecutePreprocessor.timeout = 120
"""


def nbgrader(root: Path, *args: str) -> None:
    """Run an nbgrader command in the course folder ``root``; fail with its log if it fails."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("GRADERS_COURSE", None)  # the test cells must find the course by themselves
    done = subprocess.run(
        [str(BIN / "nbgrader"), *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"


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


@pytest.fixture(scope="module")
@starts("nbgrader")
def autograded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The walkthrough's notebooks, graded by nbgrader and by graders: minutes, because
    nbgrader runs each of the fourteen notebooks in a kernel of its own (torch imported and
    graders' sandbox started in each); each notebook is one way a learner hands in that
    the two must score alike."""
    tmp = tmp_path_factory.mktemp("nbgrader")
    course = copy_course(tmp / "course")
    root = course / "nbgrader-course"
    with open_workspace(course) as ws:  # one sandbox for the release and our own grading
        prep = prepare_assignment(ws.loaded, "nb1", ws.ctx)
        key = answer_key(prep)  # also fills the truth cache the test cells read
        written = write_release(ws.loaded, prep.assignment, key, tmp / "out")
        shutil.copytree(written.source.parent, root / "source" / "nb1")
        (root / "nbgrader_config.py").write_text(NBGRADER_CONFIG)
        nbgrader(root, "generate_assignment", "nb1")
        released = load_nb(root / "release" / "nb1" / "nb1.ipynb")
        for student in STUDENTS:
            path = root / "submitted" / student.name / "nb1" / "nb1.ipynb"
            save_nb(student.notebook(released, key), path)
        nbgrader(root, "autograde", "nb1", "--create")
        ours = {
            student.name: {
                q.id: q.points
                for q in grade_submission(
                    prep,
                    read_submission(
                        root / "submitted" / student.name / "nb1" / "nb1.ipynb",
                        "nb1",
                        ws.loaded,
                        student.name,
                    ),
                ).questions
            }
            for student in STUDENTS
        }
        ours_released = json.loads(json.dumps(student_notebook(ws.loaded, prep.assignment)))
    return {
        "root": root,
        "course": course,
        "released": released,
        "graders_student": ours_released,
        "ours": ours,
    }


@pytest.mark.parametrize("student", STUDENTS, ids=[s.name for s in STUDENTS])
def test_nbgrader_gives_each_walkthrough_notebook_the_same_points_as_graders(
    autograded: dict[str, Any], student
) -> None:
    cells = autograded["released"]["metadata"]["graders"]["answers"]
    ours = autograded["ours"][student.name]
    theirs = nbgrader_points(autograded["root"], student.name, cells)
    assert theirs == pytest.approx(per_cell(ours, cells), abs=1e-3)
    assert sum(ours.values()) == pytest.approx(student.points, abs=1e-3)


def test_nbgraders_student_notebook_keeps_every_starter_line(autograded: dict[str, Any]) -> None:
    released = autograded["released"]["cells"]
    assert all(
        "BEGIN HIDDEN TESTS" not in c["source"] and "BEGIN SOLUTION" not in c["source"]
        for c in released
    )
    theirs = {_key(c): c["source"] for c in released if _key(c)}
    for cell in autograded["graders_student"]["cells"]:
        key = _key(cell)
        if not key:
            continue
        starter = [line for line in cell["source"].splitlines() if line.strip() != "..."]
        assert [line for line in starter if line not in theirs[key].splitlines()] == [], key
    assert theirs["clone-basics/grad"] == 'answer = "..."'
    assert theirs["independent-copy"] == (
        "import torch\n\n\ndef independent_copy(t):\n    # YOUR CODE HERE\n"
        "    raise NotImplementedError()"
    )


def test_nothing_of_the_instructors_machine_reaches_nbgraders_release(
    autograded: dict[str, Any],
) -> None:
    course = autograded["course"]
    machine = {str(course), str(course.resolve()), str(Path.home())}
    for path in (autograded["root"] / "release").rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert not [m for m in machine if m in text], path


def _key(cell: dict[str, Any]) -> str | None:
    tag = cell["metadata"].get("graders", {})
    return tag.get("question") or tag.get("exercise")


@pytest.fixture
@starts("sandbox")  # graders check grades in the sandbox
def nbgrader_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A course with its truth cache filled (as release does), and a folder inside it where
    a test cell runs next to the release's pointer file; the sandbox ``check`` started (in
    the background, as in a kernel) is stopped with the test, not left to a later one."""
    course = copy_course(tmp_path / "course")
    with open_workspace(course) as ws:
        answer_key(prepare_assignment(ws.loaded, "nb1", ws.ctx))
    folder = course / "nbgrader" / "autograded" / "ada" / "nb1"
    folder.mkdir(parents=True)
    (folder / "graders-course.json").write_text(
        json.dumps({"course_id": "notebook-demo", "assignment": "nb1"})
    )
    monkeypatch.delenv("GRADERS_COURSE", raising=False)
    monkeypatch.chdir(folder)
    yield folder
    close_sessions()


def _saved_answers(folder: Path, sources: dict[str, str]) -> None:
    """The student notebook of nb1 saved in ``folder`` with answer cells set to ``sources``."""
    loaded = load_course(folder.parents[3] / "course.yml")
    nb = json.loads(json.dumps(student_notebook(loaded, loaded.course.assignments[0])))
    for cell in nb["cells"]:
        tag = cell["metadata"].get("graders", {})
        key = tag.get("question") or tag.get("exercise")
        if key in sources:
            cell["source"] = sources[key]
    save_nb(nb, folder / "nb1.ipynb")


def test_check_grades_the_saved_cell_text_not_the_kernels_value(nbgrader_folder: Path) -> None:
    _saved_answers(
        nbgrader_folder,
        {
            "clone-basics/shares-memory": "answer = False",
            "clone-basics/grad": "answer = tensor(3.)",  # a NameError in the kernel
            "clone-basics/backward": "answer = a is b",  # computed by the kernel: not a prediction
        },
    )
    assert saved_notebook("nb1") == nbgrader_folder / "nb1.ipynb"
    # The value the kernel holds is passed by earlier releases' test cells: the text wins.
    assert check("clone-basics/shares-memory", True, assignment="nb1") is None
    assert check("clone-basics/grad", assignment="nb1") is None
    with pytest.raises(NotCorrect, match="clone-basics/backward: invalid"):
        check("clone-basics/backward", False, assignment="nb1")
    with pytest.raises(NotCorrect, match="clone-basics/grad-fn: unanswered"):
        check("clone-basics/grad-fn", assignment="nb1")


def test_check_explains_a_wrong_answer(nbgrader_folder: Path) -> None:
    _saved_answers(nbgrader_folder, {"clone-basics/shares-memory": 'answer = "True"'})
    with pytest.raises(NotCorrect, match="Sharing memory is what detach"):
        check("clone-basics/shares-memory", assignment="nb1")


def test_without_a_saved_notebook_check_grades_the_value_earlier_releases_pass(
    nbgrader_folder: Path,
) -> None:
    assert saved_notebook("nb1") is None
    assert check("clone-basics/shares-memory", False, assignment="nb1") is None
    with pytest.raises(UsageError, match="cannot find the notebook of assignment 'nb1'"):
        check("clone-basics/shares-memory", assignment="nb1")


def test_a_pointer_to_a_course_not_above_the_notebook_says_how_to_name_it(
    nbgrader_folder: Path,
) -> None:
    (nbgrader_folder / "graders-course.json").write_text(json.dumps({"course_id": "another"}))
    with pytest.raises(UsageError, match="cannot find course 'another' in the folders above"):
        check("clone-basics/grad", "tensor(3.)", assignment="nb1")


def test_graders_course_names_the_course_wherever_it_is(
    nbgrader_folder: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("GRADERS_COURSE", str(nbgrader_folder.parents[3]))
    assert check("clone-basics/shares-memory", False, assignment="nb1") is None


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
    assert kernel_answer(value) == text


def test_a_course_id_changed_between_cells_is_read_again(nbgrader_folder: Path) -> None:
    # The course id is read once per kernel (each test cell asks) while course.yml is unchanged.
    assert check("clone-basics/shares-memory", False, assignment="nb1") is None
    course_yml = nbgrader_folder.parents[3] / "course.yml"
    text = course_yml.read_text(encoding="utf-8")
    old_id = next(line for line in text.splitlines() if line.startswith("id:")).split(":")[1]
    course_yml.write_text(text.replace(f"id:{old_id}", "id: renamed-term", 1), encoding="utf-8")
    (nbgrader_folder / "graders-course.json").write_text(json.dumps({"course_id": "renamed-term"}))
    assert check("clone-basics/shares-memory", False, assignment="nb1") is None
    (nbgrader_folder / "graders-course.json").write_text(json.dumps({"course_id": old_id.strip()}))
    with pytest.raises(UsageError, match="cannot find course"):
        check("clone-basics/shares-memory", False, assignment="nb1")
