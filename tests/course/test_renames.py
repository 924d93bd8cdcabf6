"""Renamed exercises and questions (``formerly:``): what was handed in or graded under an old
id is read under the new one, and a renamed exercise gives each learner the same variant."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from small_course import notebook, small_course, text

from graders.cli import main
from graders.course.load import load_course
from graders.course.loaded import LoadedCourse
from graders.course.params import chosen, variant_number
from graders.course.renames import rename_problems
from graders.course.variants import learner_variant
from graders.gradebook import store as gradebook
from graders.gradebook.overrides import Decision, set_override
from graders.grading.pipeline import Submission, grade_submission, prepare_assignment
from graders.notebook.collect import read_submission
from graders.results import QuestionResult, Status, StudentResult
from graders.sandbox import InProcessRunner
from graders.workspace import open_workspace

REPO = Path(__file__).resolve().parent.parent.parent
# clone-basics, renamed clone-intro; its question `shares`, renamed `memory`.
RENAMED = (
    text("exercises/clone-basics.yml")
    .replace("id: clone-basics\n", "id: clone-intro\nformerly: [clone-basics]\n")
    .replace("  - id: shares\n", "  - id: memory\n    formerly: [shares]\n")
)
OLD = {  # ps1's right answers under the ids they had
    "clone-basics/shares": "False",
    "clone-basics/flag": "True",
    "detach-basics/flag": "False",
}
NEW = {"clone-intro/memory": "False", "clone-intro/flag": "True", "detach-basics/flag": "False"}


def renamed_course(root: Path, exercise: str = RENAMED) -> Path:
    folder = small_course(
        root,
        {
            "course.yml": text("course.yml").replace("clone-basics", "clone-intro"),
            "exercises/clone-intro.yml": exercise,
        },
    )
    (folder / "exercises" / "clone-basics.yml").unlink()
    return folder / "course.yml"


@pytest.fixture
def loaded(tmp_path: Path) -> LoadedCourse:
    return load_course(renamed_course(tmp_path))


def test_every_former_id_names_an_item_today(loaded: LoadedCourse) -> None:
    assert loaded.renamed == {
        "clone-basics": "clone-intro",  # the exercise (and a code exercise's answer key)
        "clone-basics/memory": "clone-intro/memory",
        "clone-basics/flag": "clone-intro/flag",
        "clone-intro/shares": "clone-intro/memory",
        "clone-basics/shares": "clone-intro/memory",
    }
    assert rename_problems(loaded) == []


@pytest.mark.parametrize("answers", [OLD, NEW, {**OLD, **NEW}], ids=["old", "new", "both"])
def test_answers_given_under_the_old_ids_grade_as_under_the_new(
    loaded: LoadedCourse, answers: dict[str, str]
) -> None:
    with open_workspace(loaded, runner=InProcessRunner()) as session:
        prep = prepare_assignment(loaded, "ps1", session.ctx)
        result = grade_submission(prep, Submission("ada", "ps1", answers))
    assert {q.id: q.status for q in result.questions} == {k: Status.CORRECT for k in NEW}


def test_a_notebook_released_before_the_rename_is_read_under_today_s_ids(
    loaded: LoadedCourse, tmp_path: Path
) -> None:
    path = tmp_path / "ada.ipynb"
    path.write_text(notebook(OLD))
    assert read_submission(path, "ps1", loaded, "ada").answers == NEW


def _saved_before_the_rename() -> StudentResult:
    def question(item: str, points: float) -> QuestionResult:
        return QuestionResult(item, Status.CORRECT, points, points, "False", "False", "ok")

    return StudentResult(
        "ada",
        (question("clone-basics/shares", 1), question("clone-basics/flag", 1)),
    )


def test_a_grade_and_an_override_kept_under_the_old_ids_read_under_the_new(
    loaded: LoadedCourse, gradebook_url: str
) -> None:
    engine = gradebook.open_gradebook(gradebook_url)
    course = loaded.course.id
    saved = gradebook.Graded(_saved_before_the_rename(), "k", None, None, None, "2.13.0", None)
    gradebook.record(engine, course, "ps1", saved)
    # An instructor's decision taken before the rename, under the id the question had.
    set_override(engine, course, "ps1", "ada", Decision("clone-basics/shares", 0.5, "late", "me"))

    doc = gradebook.results_document(engine, course, "ps1", loaded.renamed)
    (ada,) = doc.students
    assert [(q.id, q.points) for q in ada.questions] == [
        ("clone-intro/memory", 0.5),
        ("clone-intro/flag", 1.0),
    ]
    # Read without the course's renames, the document is what was saved.
    (as_saved,) = gradebook.results_document(engine, course, "ps1").students
    assert as_saved.questions[0].id == "clone-basics/shares"

    # Overridden again under today's id: one override, the new one.
    decision = Decision("clone-intro/memory", 0.25, "regraded", "me")
    set_override(engine, course, "ps1", "ada", decision, loaded.renamed)
    (ada,) = gradebook.results_document(engine, course, "ps1", loaded.renamed).students
    assert ada.question("clone-intro/memory").points == 0.25  # type: ignore[union-attr]
    (as_saved,) = gradebook.results_document(engine, course, "ps1").students
    assert [q.id for q in as_saved.questions if q.override] == ["clone-intro/memory"]


@pytest.mark.parametrize(
    ("formerly", "problems"),
    [
        (
            "[detach-basics]",
            {
                "formerly: 'detach-basics' is the id of an item today",
                "formerly: 'detach-basics/flag' is the id of an item today",
            },
        ),
        (
            "[flag]",
            {
                "formerly: 'clone-intro/flag' is the id of an item today",
                # under the exercise's former id, the question's two names become one
                "formerly: 'clone-basics/flag' is claimed by both clone-intro/memory and "
                "clone-intro/flag",
            },
        ),
    ],
)
def test_validate_refuses_a_former_id_that_is_an_id_today(
    tmp_path: Path, formerly: str, problems: set[str]
) -> None:
    exercise = (
        RENAMED.replace("formerly: [clone-basics]", f"formerly: {formerly}")
        if "detach" in formerly
        else RENAMED.replace("    formerly: [shares]", f"    formerly: {formerly}")
    )
    found = rename_problems(load_course(renamed_course(tmp_path, exercise)))
    assert {p.message for p in found} == problems


def test_a_former_id_claimed_by_two_items_is_refused(tmp_path: Path) -> None:
    exercise = RENAMED.replace("  - id: flag\n", "  - id: flag\n    formerly: [shares]\n")
    course_file = renamed_course(tmp_path, exercise)
    done = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course_file)])
    assert done.exit_code == 2 and "is claimed by both" in done.output, done.output
    found = rename_problems(load_course(course_file))
    assert {p.message for p in found} == {
        "formerly: 'clone-intro/shares' is claimed by both clone-intro/memory and clone-intro/flag",
        "formerly: 'clone-basics/shares' is claimed by both clone-intro/memory and "
        "clone-intro/flag",
    }


def test_a_renamed_exercise_gives_every_learner_the_variant_they_had() -> None:
    # zero-grad-step was zero-grad-still-moves: variants are drawn by the first id.
    bundled = load_course(REPO / "course.yml")
    ex = bundled.exercises["zero-grad-step"]
    assert ex.exercise.formerly == ["zero-grad-still-moves"]
    seed, count = bundled.course.seed, len(ex.variants)
    drawn = chosen(ex.template.params, count, seed, "zero-grad-still-moves")
    for student in ("ada", "bob", "cy", "李雷"):
        variant = learner_variant(ex, bundled.course, student)
        assert variant is not None
        number = variant_number(seed, "zero-grad-still-moves", student, count)
        assert (variant.number, variant.values) == (number, drawn[number - 1])
