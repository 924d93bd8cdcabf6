"""Collecting submitted notebooks: answers found by metadata, read as text, never run."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from notebook_helpers import answer_index, copy_course, fill, load_nb, save_nb
from walkthrough import STUDENTS, Student
from what_starts import starts

from graders.course.load import load_course
from graders.course.loaded import LoadedCourse
from graders.course.variants import learner_course
from graders.errors import SubmissionError
from graders.grading.pipeline import (
    PreparedAssignment,
    answer_key,
    for_learner,
    grade_submission,
    prepare_assignment,
)
from graders.notebook.collect import read_submission
from graders.notebook.release import instructor_notebook, student_notebook, write_release
from graders.results import Status
from graders.workspace import open_workspace


@pytest.fixture(scope="module")
@starts("sandbox")
def graded(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[LoadedCourse, PreparedAssignment, dict[str, str]]]:
    """The test course's nb1, prepared (truths from torch), and its key."""
    course = copy_course(tmp_path_factory.mktemp("collect") / "course")
    with open_workspace(course) as ws:
        prep = prepare_assignment(ws.loaded, "nb1", ws.ctx)
        yield ws.loaded, prep, answer_key(prep)


@pytest.fixture
def student_nb(graded: tuple[LoadedCourse, PreparedAssignment, dict[str, str]]) -> dict[str, Any]:
    loaded, _, _ = graded
    return json.loads(json.dumps(student_notebook(loaded, loaded.course.assignments[0])))


def grade(
    graded: tuple[LoadedCourse, PreparedAssignment, dict[str, str]], path: Path
) -> dict[str, Any]:
    loaded, prep, _ = graded
    result = grade_submission(prep, read_submission(path, "nb1", loaded, "ada"))
    return {q.id: q for q in result.questions}


@pytest.mark.sandbox
def test_the_repository_course_key_earns_full_marks_in_every_released_notebook(
    course_file: Path, tmp_path: Path
) -> None:
    """Per assignment: the instructor notebook, and the student notebook filled by metadata.

    The notebooks are those of the learner graded ("key"), in their variants."""
    with open_workspace(course_file) as ws:
        mine = learner_course(ws.loaded, "key")
        for assignment in ws.loaded.course.assignments:
            prep = for_learner(prepare_assignment(ws.loaded, assignment.id, ws.ctx), "key")
            key = answer_key(prep)
            written = write_release(mine, assignment, key, tmp_path)
            filled = save_nb(
                fill(load_nb(written.student), key), tmp_path / f"{assignment.id}-filled.ipynb"
            )
            for path in (written.instructor, filled):
                result = grade_submission(
                    prep, read_submission(path, assignment.id, ws.loaded, "key")
                )
                assert [q.id for q in result.questions if q.status is not Status.CORRECT] == [], (
                    path.name
                )
                assert result.raw_score == pytest.approx(result.max_score) and result.max_score > 0


@pytest.mark.parametrize("quoted", [True, False], ids=["quoted", "bare"])
def test_student_notebook_filled_by_metadata_with_the_key_earns_full_marks(
    graded, student_nb, tmp_path: Path, quoted: bool
) -> None:
    path = save_nb(fill(student_nb, graded[2], quoted=quoted), tmp_path / "nb1.ipynb")
    statuses = {i: q.status for i, q in grade(graded, path).items()}
    assert len(statuses) == 11 and set(statuses.values()) == {Status.CORRECT}


def test_moved_and_added_cells_do_not_matter(graded, student_nb, tmp_path: Path) -> None:
    nb = fill(student_nb, graded[2])
    nb["cells"].reverse()
    nb["cells"].insert(
        3,
        {
            "cell_type": "code",
            "id": "mine",
            "metadata": {},
            "source": "answer = 'True'",
            "outputs": [],
            "execution_count": None,
        },
    )
    nb["cells"].append(
        {"cell_type": "markdown", "id": "notes", "metadata": {}, "source": "my notes"}
    )
    path = save_nb(nb, tmp_path / "nb1.ipynb")
    assert all(q.status is Status.CORRECT for q in grade(graded, path).values())


def test_a_deleted_answer_cell_leaves_its_question_unanswered(
    graded, student_nb, tmp_path: Path
) -> None:
    nb = fill(student_nb, graded[2])
    del nb["cells"][answer_index(nb)["clone-basics/grad"]]
    path = save_nb(nb, tmp_path / "nb1.ipynb")
    loaded = graded[0]
    assert "clone-basics/grad" not in read_submission(path, "nb1", loaded, "ada").answers
    results = grade(graded, path)
    assert results["clone-basics/grad"].status is Status.UNANSWERED
    assert results["clone-basics/backward"].status is Status.CORRECT


def test_a_duplicated_answer_cell_counts_once_the_last_copy_with_a_note(
    graded, student_nb, tmp_path: Path
) -> None:
    nb = fill(student_nb, graded[2])
    index = answer_index(nb)["clone-basics/shares-memory"]
    wrong = copy.deepcopy(nb["cells"][index]) | {"id": "copy", "source": 'answer = "True"'}
    nb["cells"].insert(index, wrong)  # the wrong copy first: the right one, last, counts
    sub = read_submission(save_nb(nb, tmp_path / "nb1.ipynb"), "nb1", graded[0], "ada")
    assert sub.answers["clone-basics/shares-memory"] == "False"
    result = grade(graded, tmp_path / "nb1.ipynb")["clone-basics/shares-memory"]
    assert result.status is Status.CORRECT and (
        'has 2 answer cells for this question; the last one, `answer = "False"`, was graded.'
        in str(result.feedback)
    )


def test_a_pasted_experiment_does_not_replace_the_answer_above_it(
    graded, student_nb, tmp_path: Path
) -> None:
    """Jupyter's paste keeps metadata: a copy used to try something is an answer cell too."""
    nb = fill(student_nb, graded[2])
    index = answer_index(nb)["clone-basics/shares-memory"]
    tried = copy.deepcopy(nb["cells"][index]) | {
        "id": "tried",
        "source": "a.data_ptr() == b.data_ptr()",
    }
    nb["cells"].insert(index + 1, tried)
    result = grade(graded, save_nb(nb, tmp_path / "nb1.ipynb"))["clone-basics/shares-memory"]
    assert result.status is Status.CORRECT and result.answer == "False"
    assert (
        'the 1st, `answer = "False"`, was graded, the last one holding an answer the grader can '
        "read: the 2nd (`a.data_ptr() == b.data_ptr()`) holds no answer the grader can read."
    ) in str(result.feedback)


def test_when_no_copy_can_be_read_the_last_one_with_an_answer_reports_why(
    graded, student_nb, tmp_path: Path
) -> None:
    nb = fill(student_nb, {"clone-basics/shares-memory": "same as a"})
    index = answer_index(nb)["clone-basics/shares-memory"]
    nb["cells"].insert(
        index + 1, copy.deepcopy(nb["cells"][index]) | {"id": "c", "source": 'answer = "..."'}
    )
    result = grade(graded, save_nb(nb, tmp_path / "nb1.ipynb"))["clone-basics/shares-memory"]
    assert result.status is Status.INVALID and result.answer == "same as a"
    assert 'the 2nd (`answer = "..."`) is not answered' in str(result.feedback)


def test_outputs_are_ignored(graded, student_nb, tmp_path: Path) -> None:
    nb = fill(student_nb, {})
    cell = nb["cells"][answer_index(nb)["clone-basics/grad"]]
    cell["outputs"] = [
        {"output_type": "stream", "name": "stdout", "text": "answer = 'tensor(3.)'\n" * 50_000}
    ]
    sub = read_submission(save_nb(nb, tmp_path / "nb1.ipynb"), "nb1", graded[0], "ada")
    assert set(sub.answers) == {"independent-copy"}  # only the untouched code template
    assert (tmp_path / "nb1.ipynb").stat().st_size > 1_000_000


CELL_SHAPES = [
    pytest.param(
        "%pip install torch\nanswer = 'tensor(3.)'",
        Status.CORRECT,
        "move `%pip install torch` to a cell of its own",
        id="pip-magic",
    ),
    pytest.param(
        "!curl http://example.com\nanswer = 'tensor(3.)'",
        Status.CORRECT,
        "move `!curl http://example.com` to a cell of its own",
        id="shell-escape",
    ),
    pytest.param(
        "print(b.is_leaf)\nanswer = 'tensor(3.)'\nprint(answer)",
        Status.CORRECT,
        "move `print(b.is_leaf)`, `print(answer)` to a cell of its own. The grader read only "
        "the last `answer = ...` line.",
        id="print-lines",
    ),
    pytest.param(
        'answer = "tensor(3.)',
        Status.CORRECT,
        'The closing quote is missing: the grader read `tensor(3.)`; `answer = "tensor(3.)"` is',
        id="unclosed-quote",
    ),
    pytest.param(
        "answer == 'tensor(3.)'",
        Status.INVALID,
        "The grader found no `answer = ...` line in this answer cell",
        id="comparison",
    ),
    pytest.param(
        "!pip install torch", Status.INVALID, "IPython commands, not Python", id="only-a-magic"
    ),
]


@pytest.mark.parametrize(("source", "status", "note"), CELL_SHAPES)
def test_a_cell_that_is_not_one_answer_line_is_read_as_a_person_would_with_a_note(
    graded, student_nb, tmp_path: Path, source: str, status: Status, note: str
) -> None:
    nb = fill(student_nb, {})
    nb["cells"][answer_index(nb)["clone-basics/grad"]]["source"] = source
    result = grade(graded, save_nb(nb, tmp_path / "nb1.ipynb"))["clone-basics/grad"]
    assert result.status is status and note in str(result.feedback), str(result.feedback)


def test_an_instructor_notebook_for_another_assignment_is_refused(graded, tmp_path: Path) -> None:
    loaded, _, key = graded
    nb = json.loads(json.dumps(instructor_notebook(loaded, loaded.course.assignments[0], key)))
    nb["metadata"]["graders"]["assignment"] = "nb2"
    with pytest.raises(SubmissionError, match="this notebook is for assignment 'nb2', not 'nb1'"):
        read_submission(save_nb(nb, tmp_path / "x.ipynb"), "nb1", loaded, "ada")


def _notebook(**changes: Any) -> bytes:
    nb = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5} | changes
    return json.dumps(nb).encode()


BAD = [
    pytest.param(b"", "the file is empty", id="empty"),
    pytest.param(
        b'{"cells": [], "nbformat": 4, \xff\xfe}',
        "byte 0xff at offset 29 is not UTF-8 text",
        id="not-utf8",
    ),
    pytest.param(b'{"cells": [', "invalid JSON at line 1, column 12", id="not-json"),
    pytest.param(b"[1, 2, 3]", "JSON without notebook 'cells'", id="json-list"),
    pytest.param(
        b'{"answers": {"clone-basics/grad": "tensor(3.)"}}',
        "JSON without notebook 'cells'",
        id="json-not-notebook",
    ),
    pytest.param(b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply", id="json-bomb"),
    pytest.param(
        json.dumps(
            {"worksheets": [{"cells": []}], "metadata": {}, "nbformat": 3, "nbformat_minor": 0}
        ).encode(),
        "an nbformat 3 notebook",
        id="nbformat-3",
    ),
    pytest.param(_notebook(nbformat=5), "nbformat 5 is not supported", id="nbformat-5"),
    pytest.param(_notebook(cells={"a": 1}), "'cells' is not a list", id="cells-not-list"),
    pytest.param(
        _notebook(), "no answer cells (cells with metadata.graders)", id="no-answer-cells"
    ),
    pytest.param(_notebook(cells=["x"]), "cell 1 is not a JSON object", id="cell-not-object"),
    pytest.param(
        _notebook(
            cells=[
                {
                    "cell_type": "code",
                    "metadata": {"graders": {"question": "clone-basics/grad"}},
                    "source": 42,
                }
            ]
        ),
        "cell 1: 'source' is not text",
        id="source-not-text",
    ),
]


@pytest.mark.parametrize(("content", "message"), BAD)
def test_an_unreadable_submission_says_why(tmp_path: Path, content: bytes, message: str) -> None:
    loaded = load_course(copy_course(tmp_path / "course") / "course.yml")
    path = tmp_path / "ada.ipynb"
    path.write_bytes(content)
    with pytest.raises(SubmissionError) as info:
        read_submission(path, "nb1", loaded, "ada")
    assert message in str(info.value) and str(path) in str(info.value)


def test_a_notebook_over_the_size_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    loaded = load_course(copy_course(tmp_path / "course") / "course.yml")
    path = tmp_path / "huge.ipynb"
    with path.open("wb") as f:
        f.truncate(300 * 2**20)  # sparse: 300 MB of size, no data written
    with pytest.raises(SubmissionError, match=r"300 MB is larger than the 20 MB a notebook may be"):
        read_submission(path, "nb1", loaded, "ada")
    path.write_bytes(_notebook())
    with pytest.raises(SubmissionError, match="larger than the 10 bytes"):
        read_submission(path, "nb1", loaded, "ada", max_bytes=10)


def test_a_missing_file_is_a_submission_error(tmp_path: Path) -> None:
    loaded = load_course(copy_course(tmp_path / "course") / "course.yml")
    with pytest.raises(SubmissionError, match="cannot read: No such file or directory"):
        read_submission(tmp_path / "absent.ipynb", "nb1", loaded, "ada")


CODE = [
    pytest.param(
        "import torch\n\n\ndef independent_copy(t):\n    ...",
        {Status.UNANSWERED},
        None,
        id="template-untouched",
    ),
    pytest.param(
        "# YOUR CODE HERE\nraise NotImplementedError()",
        {Status.UNANSWERED},
        None,
        id="nbgrader-stub",
    ),
    pytest.param(
        "def independent_copy(t):\n    return t.clone().detach()\nraise NotImplementedError()",
        {Status.CORRECT},
        None,
        id="stub-left-below",
    ),
    pytest.param(
        "import torch\n\n\ndef independent_copy(t):\n    # YOUR CODE HERE\n"
        "    raise NotImplementedError()",
        {Status.UNANSWERED},
        None,
        id="nbgrader-stub-in-the-function",
    ),
    pytest.param(
        "def independent_copy(t):\n    return t.detach()",
        {Status.CORRECT, Status.WRONG},
        None,
        id="detach-alone-partial",
    ),
    pytest.param(
        "!pip install torch\ndef independent_copy(t):\n    return t.clone().detach()",
        {Status.INVALID},
        "IPython commands, not Python",
        id="shell-escape",
    ),
]


@pytest.mark.parametrize(("source", "statuses", "note"), CODE)
def test_code_cells_are_graded_from_their_source(
    graded, student_nb, tmp_path: Path, source: str, statuses: set[Status], note: str | None
) -> None:
    path = save_nb(fill(student_nb, {"independent-copy": source}), tmp_path / "nb1.ipynb")
    results = [q for i, q in grade(graded, path).items() if i.startswith("independent-copy/")]
    assert len(results) == 4 and {q.status for q in results} == statuses
    notes = read_submission(path, "nb1", graded[0], "ada").notes
    assert (note in str(notes["independent-copy"])) if note else "independent-copy" not in notes


@pytest.mark.parametrize("student", STUDENTS, ids=[s.name for s in STUDENTS])
def test_each_walkthrough_notebook_scores_what_a_ta_would_give(
    graded, student_nb, tmp_path: Path, student: Student
) -> None:
    path = save_nb(student.notebook(student_nb, graded[2]), tmp_path / "nb1.ipynb")
    total = sum(q.points for q in grade(graded, path).values())
    assert total == pytest.approx(student.points, abs=1e-3)
