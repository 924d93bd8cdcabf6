"""One handed-in notebook graded (``grading.handed_in.grade_notebook``): from its file or
from its bytes alike, every message naming it as the learner knows it, never raising."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from small_course import ON_TIME, RIGHT, WRONG, notebook, open_small_course

from graders.course.loaded import LoadedCourse
from graders.errors import SubmissionError
from graders.grading.handed_in import HandedIn, grade_notebook
from graders.grading.pipeline import PreparedAssignment, prepare_assignment
from graders.notebook import collect
from graders.results import StudentResult, SubmissionStatus

SHOWN = "ada's ps1 (2).ipynb"  # the name the learner knows their notebook by

# Notebooks graded and notebooks refused, each reader's refusal of its own.
HANDED = [
    pytest.param(notebook(RIGHT).encode(), id="right"),
    pytest.param(notebook(WRONG).encode(), id="wrong"),
    pytest.param(b"", id="empty"),
    pytest.param(b"\xff\xfe{}", id="not-utf8"),
    pytest.param(b'{"cells": [', id="not-json"),
    pytest.param(b'{"nbformat": 3, "worksheets": []}', id="nbformat-3"),
    pytest.param(json.dumps({"cells": [], "nbformat": 4}).encode(), id="no-answer-cells"),
    pytest.param(
        json.dumps(
            {"cells": [], "nbformat": 4, "metadata": {"graders": {"assignment": "ps2"}}}
        ).encode(),
        id="another-assignment",
    ),
    pytest.param(
        notebook(RIGHT).replace('"answer = False"', '"answer = \\"\\ud800\\""').encode(),
        id="half-a-character",
    ),
]


Prepared = tuple[LoadedCourse, PreparedAssignment]


@pytest.fixture(scope="module")
def ps1(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prepared]:
    """The small course's ps1, prepared in process (its runner open while it is graded)."""
    with open_small_course(tmp_path_factory.mktemp("handed-in") / "course") as ws:
        yield ws.loaded, prepare_assignment(ws.loaded, "ps1", ws.ctx)


@pytest.mark.parametrize("content", HANDED)
def test_a_notebooks_bytes_and_its_file_grade_alike(
    tmp_path: Path, ps1: Prepared, content: bytes
) -> None:
    loaded, prep = ps1
    path = tmp_path / "where graders keeps it" / "ps1.ipynb"
    path.parent.mkdir()
    path.write_bytes(content)
    graded = [
        grade_notebook(prep, loaded, HandedIn("ada", notebook, SHOWN, ON_TIME))
        for notebook in (path, content)
    ]
    (from_file, retry_file), (from_bytes, retry_bytes) = graded
    assert from_file.dumps() == from_bytes.dumps() and retry_file is retry_bytes is False
    # Whatever was said names the notebook as the learner knows it, never graders' place.
    assert str(path.parent) not in from_file.dumps()
    if from_file.status is SubmissionStatus.UNGRADABLE:
        assert SHOWN in str(from_file.error)


def test_a_notebook_over_the_size_cap_is_refused_alike_as_bytes_and_as_a_file(
    tmp_path: Path, ps1: Prepared
) -> None:
    loaded, _ = ps1
    path = tmp_path / "ps1.ipynb"
    path.write_text(notebook(RIGHT), encoding="utf-8")
    said = []
    for given in (path, path.read_bytes()):
        with pytest.raises(SubmissionError) as info:
            collect.read_submission(given, "ps1", loaded, "ada", name=SHOWN, max_bytes=10)
        said.append(str(info.value))
    assert said[0] == said[1]
    assert said[0].startswith(f"{SHOWN}: ") and "larger than the 10 bytes" in said[0]


def test_nothing_handed_in_is_ungradable_for_the_reason_given(ps1: Prepared) -> None:
    loaded, prep = ps1
    handed = HandedIn("ada", None, "ada", error="two notebooks: a, b")
    result, retry = grade_notebook(prep, loaded, handed)
    assert (result.status, str(result.error), retry) == (
        SubmissionStatus.UNGRADABLE,
        "two notebooks: a, b",
        False,
    )


@pytest.mark.parametrize("given", ["file", "bytes"])
def test_a_reader_bug_is_internal_and_graded_again(
    tmp_path: Path, ps1: Prepared, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    loaded, prep = ps1
    path = tmp_path / "ps1.ipynb"
    path.write_text(notebook(RIGHT), encoding="utf-8")

    def broken(*args: object, **kwargs: object) -> StudentResult:
        raise KeyError("a bug")

    monkeypatch.setattr(collect, "read_submission", broken)
    handed = HandedIn("ada", path if given == "file" else path.read_bytes(), SHOWN)
    result, retry = grade_notebook(prep, loaded, handed)
    assert (result.status, retry) == (SubmissionStatus.INTERNAL, True)
    assert f"internal error while reading {SHOWN}: KeyError" in str(result.error)


def test_a_notebooks_bytes_are_not_shown_in_its_record() -> None:
    handed = HandedIn("ada", b"x" * 5_000_000, SHOWN)
    assert "<5000000 bytes>" in repr(handed) and len(repr(handed)) < 200
