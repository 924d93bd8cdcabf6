"""The README's numbered nbgrader steps, as written, with real nbgrader and variants on:
nbgrader's scores equal `graders autograde`'s on every problem set.

An nbgrader course of its own, outside the graders course, with nothing set for graders
(no `GRADERS_COURSE`, nothing in `nbgrader_config.py`). Two learners whose variants of
every exercise with parameters are not the base one, who hand in every other problem set:
ann answers her own handout right, ben his with every third answer wrong and his code
crashing. Each step runs as the README
says: (1) `graders release PS --nbgrader DIR`, then `nbgrader generate_assignment PS`;
(2) `graders release PS --nbgrader DIR --roster roster.csv` writes each learner's
handout, which they fill in and hand in (`submitted/<student>/PS/`); (3) `nbgrader
autograde PS` (with `--create`: the learners are not in nbgrader's database).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chinese_class import bundled_assignments, bundled_course
from click.testing import CliRunner
from nbgrader.api import Gradebook
from notebook_helpers import fill, load_nb, save_nb
from what_starts import starts

from graders.cli import main

BIN = Path(sys.executable).parent
ASSIGNMENTS = bundled_assignments()
NBGRADER_CONFIG = """\
c = get_config()
c.CourseDirectory.course_id = "autograd-term"
c.ExecutePreprocessor.timeout = 300
"""
CRASH = "def {entry}(*args, **kwargs):\n    raise ValueError('not yet')\n"


def graders(*args: str) -> str:
    done = CliRunner().invoke(main, list(args))
    assert done.exit_code == 0, done.output
    return done.output


def nbgrader(root: Path, *args: str) -> None:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("GRADERS_COURSE", None)  # the README's steps set nothing
    done = subprocess.run(
        [str(BIN / "nbgrader"), *args], cwd=root, env=env, capture_output=True, text=True,
        timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, f"nbgrader {' '.join(args)}:\n{done.stdout}\n{done.stderr}"


def learners_off_base(course: Path, count: int) -> list[str]:
    """Learner ids whose variant of every exercise with parameters is not the base one."""
    from graders.course.variants import learner_variant
    from graders.workspace import load

    loaded = load(course)
    varied = [ex for ex in loaded.exercises.values() if ex.variants]
    assert varied, "the bundled course has exercises with parameters"
    found = [
        name
        for name in (f"s{i:03d}" for i in range(1000))
        if all(learner_variant(ex, loaded.course, name).number != 1 for ex in varied)  # type: ignore[union-attr]
    ]
    return found[:count]


def answers(key: dict[str, str], entries: dict[str, str], wrong: bool) -> dict[str, str]:
    """The learner's answers from their own key: all right, or every third one missed and
    the code crashing."""
    given = {}
    for n, (item, literal) in enumerate(key.items()):
        if item in entries:  # a code exercise: the reference solution, or a crash
            given[item] = CRASH.format(entry=entries[item]) if wrong else literal
        elif wrong and n % 3 == 0:
            given[item] = "no error" if literal == "RuntimeError" else "RuntimeError"
        else:
            given[item] = literal
    return given


def code_entries(course: Path) -> dict[str, str]:
    """Code exercise id -> the function its cell defines."""
    from graders.workspace import load

    exercises = load(course).exercises.values()
    return {e.exercise.id: e.exercise.entry for e in exercises if hasattr(e.exercise, "entry")}


@pytest.fixture(scope="module")
@starts("nbgrader")
def term(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The README's steps for every problem set, with real nbgrader: minutes, because
    nbgrader runs each handed-in notebook in a kernel of its own (torch imported and graders'
    sandbox started in each), and the claim is that nbgrader and graders agree on every
    problem set, so none can be left out. One notebook per problem set (each ~15 s): ann
    hands in ps1, ps3, ps5 and ps7, ben ps2, ps4 and ps6, so that both right and wrong
    answers, code that passes (ps1, ps3, ps7) and code that crashes (ps2, ps4, ps6) are
    graded by both. Each step runs once for every problem set (nbgrader takes the glob
    ``*`` for an assignment, ``graders autograde`` several assignments), as an instructor
    who releases a term at once would."""
    tmp = tmp_path_factory.mktemp("steps")
    (tmp / "course").mkdir()
    course = bundled_course(tmp / "course")
    at = ("--course", str(course))
    root = tmp / "nbgrader-course"  # the instructor's nbgrader course, apart from graders'
    root.mkdir()
    (root / "nbgrader_config.py").write_text(NBGRADER_CONFIG, encoding="utf-8")
    ann, ben = learners_off_base(course, 2)
    roster = tmp / "roster.csv"
    roster.write_text(f"student\n{ann}\n{ben}\n", encoding="utf-8")
    for assignment in ASSIGNMENTS:  # step 1
        graders("release", assignment, "--nbgrader", str(root), *at)
    nbgrader(root, "generate_assignment", "*")
    entries = code_entries(course)
    for n, assignment in enumerate(ASSIGNMENTS):
        graders("release", assignment, "--nbgrader", str(root), "--roster", str(roster), *at)
        student, wrong = (ann, False) if n % 2 == 0 else (ben, True)  # step 2: one hands in
        handout = load_nb(root / "handouts" / assignment / student / f"{assignment}.ipynb")
        key = json.loads(graders("key", assignment, "--student", student, "--json", *at))
        filled = fill(handout, answers(key, entries, wrong))
        save_nb(filled, root / "submitted" / student / assignment / f"{assignment}.ipynb")
    nbgrader(root, "autograde", "*", "--create")  # step 3
    ours = CliRunner().invoke(
        main,
        ["autograde", *ASSIGNMENTS, str(root / "submitted"), "--out", str(tmp / "graders"), *at],
    )
    # The learner who did not hand a problem set in is in the folder: graders says so (exit 1).
    assert ours.exit_code == 1, ours.output
    assert ours.output.count(": no notebook for ps") == len(ASSIGNMENTS), ours.output
    return {"root": root, "tmp": tmp, "learners": (ann, ben)}


def nbgrader_score(root: Path, assignment: str, student: str) -> float:
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        return float(gb.find_submission(assignment, student).score)


def graders_score(tmp: Path, assignment: str, student: str) -> float:
    doc = json.loads((tmp / "graders" / assignment / "results.json").read_text("utf-8"))
    return float(next(s["score"] for s in doc["students"] if s["student"] == student))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_nbgrader_gives_each_learner_what_graders_autograde_gives(
    term: dict[str, Any], assignment: str
) -> None:
    ann, ben = term["learners"]
    student = ann if ASSIGNMENTS.index(assignment) % 2 == 0 else ben
    theirs = nbgrader_score(term["root"], assignment, student)
    assert theirs == pytest.approx(graders_score(term["tmp"], assignment, student), abs=1e-3)
    # ann answered her own variant right: full marks; ben lost points, but not all.
    doc = json.loads((term["tmp"] / "graders" / assignment / "results.json").read_text("utf-8"))
    top = next(s["max_score"] for s in doc["students"] if s["student"] == student)
    if student == ann:
        assert theirs == pytest.approx(top)
    else:
        assert 0 < theirs < top


def test_each_handout_shows_the_learner_s_own_variant(term: dict[str, Any]) -> None:
    ann, _ben = term["learners"]
    root = term["root"]
    handout = load_nb(root / "handouts" / "ps2" / ann / "ps2.ipynb")
    base = load_nb(root / "release" / "ps2" / "ps2.ipynb")
    assert handout["metadata"]["graders"]["student"] == ann
    changed = [
        mine
        for mine, theirs in zip(handout["cells"], base["cells"], strict=True)
        if mine["source"] != theirs["source"]
    ]
    # Texts and setups only: the answer cells and nbgrader's cells are nbgrader's own.
    assert changed
    for cell in changed:
        assert not cell["metadata"].get("graders") and cell["metadata"]["nbgrader"].get("locked")
        assert not cell["metadata"]["nbgrader"].get("grade"), cell["id"]
    assert [c["id"] for c in handout["cells"]] == [c["id"] for c in base["cells"]]


@pytest.mark.parametrize(
    ("execution", "folder", "learner"),
    [
        pytest.param("autograde", "autograded/ann/ps2", "ann", id="nbgrader-autograde"),
        pytest.param(None, "autograded/ann/ps2", None, id="run-by-hand"),
        pytest.param("validate", "autograded/ann/ps2", None, id="nbgrader-validate"),
        pytest.param("autograde", "autograded/ann/ps2-copy", None, id="not-the-assignment"),
        pytest.param("autograde", "autograded/..x/ps2", None, id="not-a-learner-id"),
    ],
)
def test_the_learner_graded_is_the_one_the_autograded_folder_names(
    monkeypatch: pytest.MonkeyPatch, execution: str | None, folder: str, learner: str | None
) -> None:
    from graders.integrations.nbgrader import EXECUTION_ENV, graded_learner

    if execution is None:
        monkeypatch.delenv(EXECUTION_ENV, raising=False)
    else:
        monkeypatch.setenv(EXECUTION_ENV, execution)
    assert graded_learner("ps2", Path("/course") / folder) == learner
