"""`graders release`: student, instructor and nbgrader notebooks, valid, locked, stable."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from nbgrader.nbgraderformat import MetadataValidator
from notebook_helpers import GOLDEN, copy_course, load_nb
from what_starts import starts

from graders.cli import main
from graders.course.load import load_course
from graders.course.model import LatePolicy
from graders.errors import UsageError
from graders.kinds.notebook_side import Part
from graders.notebook import parts as layout
from graders.notebook.cells import cell_id
from graders.notebook.release import write_release

ITEMS = [
    "clone-basics/shares-memory",
    "clone-basics/grad-fn",
    "clone-basics/backward",
    "clone-basics/grad",
    "detach-basics/flags",
    "detach-basics/write-through",
    "detach-basics/resize-leaf",
]
ANSWERS = [*ITEMS, "independent-copy"]  # metadata.graders keys: questions, then the code exercise
LABELS = {
    "clone-basics/shares-memory": "Question 1.1 — clone() of a tensor that requires grad",
    "clone-basics/grad-fn": "Question 1.2 — clone() of a tensor that requires grad",
    "clone-basics/backward": "Question 1.3 — clone() of a tensor that requires grad",
    "clone-basics/grad": "Question 1.4 — clone() of a tensor that requires grad",
    "detach-basics/flags": "Question 2.1 — detach() shares memory",
    "detach-basics/write-through": "Question 2.2 — detach() shares memory",
    "detach-basics/resize-leaf": "Question 2.3 — detach() shares memory",
    "independent-copy": "Exercise 3 — An independent copy",
}
FILES = {
    "student": "nb1/nb1.ipynb",
    "instructor": "instructor/nb1/nb1.ipynb",
    "source": "source/nb1/nb1.ipynb",
}


@pytest.fixture(scope="module")
@starts("sandbox")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test course's assignment nb1, released by the command."""
    root = tmp_path_factory.mktemp("release")
    course = copy_course(root / "course")
    result = CliRunner().invoke(
        main, ["release", "nb1", "--out", str(root / "out"), "--course", str(course)]
    )
    assert result.exit_code == 0, result.output
    return root / "out"


@pytest.mark.parametrize("name", FILES)
def test_released_notebook_matches_its_golden_file(
    release: Path, name: str, update_goldens: bool
) -> None:
    written = (release / FILES[name]).read_text(encoding="utf-8")
    golden = GOLDEN / f"{name}.ipynb"
    if update_goldens:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(written, encoding="utf-8")
    assert written == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", FILES)
def test_released_notebooks_are_valid_nbformat_4(release: Path, name: str) -> None:
    nb = nbformat.read(release / FILES[name], as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4 and nb.metadata["graders"] == {
        "course": "notebook-demo",
        "assignment": "nb1",
        "answers": ANSWERS,
        "labels": LABELS,
    }


@pytest.mark.parametrize("name", FILES)
def test_each_question_and_code_exercise_has_exactly_one_cell_found_by_metadata(
    release: Path, name: str
) -> None:
    cells = load_nb(release / FILES[name])["cells"]
    tags = [c["metadata"]["graders"] for c in cells if "graders" in c["metadata"]]
    assert tags == [{"question": item} for item in ITEMS] + [
        {"exercise": "independent-copy", "entry": "independent_copy"}
    ]


def test_student_answer_cells_are_unanswered_and_editable(release: Path) -> None:
    cells = [c for c in load_nb(release / FILES["student"])["cells"] if "graders" in c["metadata"]]
    assert {c["source"] for c in cells[:-1]} == {'answer = "..."'}
    assert cells[-1]["source"] == "import torch\n\n\ndef independent_copy(t):\n    ..."
    assert all(c["cell_type"] == "code" and "editable" not in c["metadata"] for c in cells)


def test_everything_but_answer_cells_is_locked(release: Path) -> None:
    cells = load_nb(release / FILES["student"])["cells"]
    others = [c for c in cells if "graders" not in c["metadata"]]
    assert others and all(
        c["metadata"]["editable"] is False and c["metadata"]["deletable"] is False for c in others
    )
    setups = [c for c in others if c["cell_type"] == "code"]
    first, *setups = setups  # the cell that makes answer cells text (``notebook.kernel``)
    assert first["id"] == "answers-as-text" and "answers_as_text()" in first["source"]
    assert [c["id"] for c in setups] == ["setup--clone-basics", "setup--detach-basics"]
    assert setups[0]["source"].startswith("import torch; torch.manual_seed(0)")


def test_intro_cites_the_article_sections_of_the_exercises(release: Path) -> None:
    intro = load_nb(release / FILES["student"])["cells"][0]["source"]
    assert "sections §1a, §2, §3" in intro
    assert (
        "| 2 | detach() shares memory | §2 | 4 |" in intro
        and "| 3 | An independent copy | §3 | 4 |" in intro
    )
    assert "graders check nb1.ipynb" in intro


def test_exercises_beyond_the_article_and_the_course_description_are_shown(tmp_path: Path) -> None:
    course = copy_course(tmp_path / "course")
    exercise = course / "exercises" / "detach-basics.yml"
    exercise.write_text(exercise.read_text().replace('section: "§2"', "section: beyond"))
    course_file = course / "course.yml"
    course_file.write_text(
        course_file.read_text().replace(
            "\nseed:", '\ndescription: "Read the article first."\nseed:', 1
        )
    )
    loaded = load_course(course_file)
    parts = layout.assignment_parts(loaded, loaded.course.assignments[0], {})
    intro, header = (
        parts[0].text,
        next(p.text for p in parts if p.key == "detach-basics" and p.role == "exercise"),
    )
    assert "Read the article first." in intro
    assert "sections §1a, §3; some go beyond the article:" in intro
    assert "| 2 | detach() shares memory | beyond the article | 4 |" in intro
    assert "**Beyond the article** · 4 points." in header


def test_instructor_notebook_holds_the_key_computed_by_torch(release: Path) -> None:
    cells = load_nb(release / FILES["instructor"])["cells"]
    answers = {_tag(c): c["source"] for c in cells if "graders" in c["metadata"]}
    assert answers["clone-basics/shares-memory"] == 'answer = "False"'
    assert answers["independent-copy"].endswith("return t.clone().detach()")
    assert answers["clone-basics/grad"] == 'answer = "tensor(3.)"'
    assert answers["detach-basics/resize-leaf"] == 'answer = "RuntimeError"'


def test_nbgrader_source_passes_nbgraders_own_metadata_validation(release: Path) -> None:
    nb = nbformat.read(release / FILES["source"], as_version=4)
    MetadataValidator().validate_nb(nb)
    grade_ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    assert len(set(grade_ids)) == len(grade_ids) and all(
        re.fullmatch(r"[a-zA-Z0-9_-]+", g) for g in grade_ids
    )


def test_nbgrader_solutions_and_hidden_tests(release: Path) -> None:
    cells = load_nb(release / FILES["source"])["cells"]
    graded = [c for c in cells if "nbgrader" in c["metadata"]]
    solutions = [c for c in graded if c["metadata"]["nbgrader"]["solution"]]
    tests = [c for c in graded if c["metadata"]["nbgrader"]["grade"]]
    assert len(tests) == len(ANSWERS)
    # Predictions stay ordinary cells holding the starter: a solution region would become
    # nbgrader's `raise NotImplementedError()` at the top level, which stops Run All.
    predictions = [c for c in cells if "question" in c["metadata"].get("graders", {})]
    assert len(predictions) == len(ITEMS) and all(
        "nbgrader" not in c["metadata"] for c in predictions
    )
    assert {c["source"] for c in predictions} == {'answer = "..."'}
    # The code exercise's solution goes inside the starter's function, in a region.
    assert [c["source"] for c in solutions] == [
        "import torch\n\n\ndef independent_copy(t):\n    ### BEGIN SOLUTION\n"
        "    return t.clone().detach()\n    ### END SOLUTION"
    ]
    assert tests[0]["source"].splitlines() == [
        "### BEGIN HIDDEN TESTS",
        "import graders.nbgrader",
        'graders.nbgrader.check("clone-basics/shares-memory", assignment="nb1")',
        "### END HIDDEN TESTS",
    ]
    assert all(t["metadata"]["nbgrader"]["locked"] for t in tests)
    assert (
        tests[-1]["source"].splitlines()[2]
        == 'graders.nbgrader.check("independent-copy", assignment="nb1")'
    )
    assert sum(t["metadata"]["nbgrader"]["points"] for t in tests) == pytest.approx(
        5 + 4 + 4, abs=1e-3
    )


def test_release_names_the_course_by_its_id_never_by_its_path(release: Path) -> None:
    pointer = json.loads((release / "source" / "nb1" / "graders-course.json").read_text())
    assert pointer == {"course_id": "notebook-demo", "assignment": "nb1"}
    machine = {str(release.parent / "course"), str((release.parent / "course").resolve())}
    machine.add(str(Path.home()))
    for path in release.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert not [m for m in machine if m in text], path


def test_release_is_deterministic(tmp_path: Path, release: Path) -> None:
    loaded = load_course(copy_course(tmp_path / "course") / "course.yml")
    key = _key_from(release)
    for out in ("a", "b"):
        write_release(loaded, loaded.course.assignments[0], key, tmp_path / out)
    for name in FILES.values():
        assert (
            (tmp_path / "a" / name).read_bytes()
            == (tmp_path / "b" / name).read_bytes()
            == (release / name).read_bytes()
        )


def test_release_without_an_answer_for_every_question_is_refused(
    tmp_path: Path, release: Path
) -> None:
    loaded = load_course(copy_course(tmp_path / "course") / "course.yml")
    key = _key_from(release)
    del key["detach-basics/flags"]
    with pytest.raises(UsageError, match="no answer could be computed for detach-basics/flags"):
        write_release(loaded, loaded.course.assignments[0], key, tmp_path / "out")


def test_each_exercise_is_laid_out_by_its_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = load_course(copy_course(tmp_path / "course") / "course.yml")
    kind = loaded.exercises["clone-basics"].kind
    monkeypatch.setattr(
        type(kind),
        "layout",
        lambda self, placed, key: [Part("prompt", placed.loaded.exercise.id, "laid out")],
    )
    parts = layout.assignment_parts(loaded, loaded.course.assignments[0], {})
    assert [p.text for p in parts if p.role == "prompt"] == [
        "laid out",
        "laid out",
    ]  # both exercises are predictions


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        pytest.param(("answer", "clone-basics/grad"), "answer--clone-basics--grad", id="readable"),
        pytest.param(("answer", "e" * 40 + "/" + "q" * 40), None, id="long-hashed"),
    ],
)
def test_cell_ids_are_stable_and_valid(parts: tuple[str, ...], expected: str | None) -> None:
    ident = cell_id(*parts)
    assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", ident) and ident == cell_id(*parts)
    if expected is not None:
        assert ident == expected
    else:
        assert ident != cell_id(parts[0], parts[1] + "x")


def _key_from(release: Path) -> dict[str, str]:
    """The key as the instructor notebook wrote it (a string literal per answer cell)."""
    cells = [
        c for c in load_nb(release / FILES["instructor"])["cells"] if "graders" in c["metadata"]
    ]
    key = {_tag(c): c["source"] for c in cells}
    return {k: json.loads(v.removeprefix("answer = ")) if "/" in k else v for k, v in key.items()}


def _tag(cell: dict) -> str:
    tag = cell["metadata"]["graders"]
    return tag.get("question") or tag["exercise"]


@pytest.mark.parametrize(
    ("late", "rule"),
    [
        pytest.param(
            {"penalty_per_day": 0.1, "cutoff_days": 3, "grace_minutes": 15},
            "Late work: each started day after the due date (the first 15 minutes after it count "
            "as on time) costs 10% of the score; work more than 3 days late scores 0.",
            id="penalty-grace-cutoff",
        ),
        pytest.param(
            {"penalty_per_day": 0.25, "cutoff_days": 1},
            "Late work: each started day after the due date costs 25% of the score; work more "
            "than 1 day late scores 0.",
            id="one-day",
        ),
        pytest.param({}, "Work handed in after the due date scores 0.", id="no-late-work"),
        pytest.param(
            {"cutoff_days": 2},
            "Work handed in up to 2 days after the due date is accepted without a penalty; "
            "later work scores 0.",
            id="no-penalty",
        ),
    ],
)
def test_the_intro_states_the_late_rule(late: dict[str, float], rule: str) -> None:
    intro = layout.late_rule(LatePolicy(**late))
    assert intro == rule + " An extension from your instructor moves your due date."
