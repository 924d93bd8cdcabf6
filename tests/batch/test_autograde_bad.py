"""A named corpus of bad submissions: each is its student's own error, the rest is graded."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from small_course import RIGHT, hand_in, notebook, open_small_course, students
from stored_text import english

from graders.batch.autograde import autograde
from graders.notebook.read import MAX_NOTEBOOK_BYTES

MB = 1 << 20


def with_outputs(size: int) -> str:
    """A right notebook whose first answer cell carries ``size`` bytes of output."""
    nb = nbformat.reads(notebook(RIGHT), as_version=4)
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * size)]
    return nbformat.writes(nb)


def sparse(folder: Path, student: str, size: int) -> None:
    path = folder / student / "ps1.ipynb"
    path.parent.mkdir(parents=True)
    with path.open("wb") as handle:
        handle.truncate(size)  # as large as a real one for stat(), without writing it


def two_notebooks(folder: Path, student: str) -> None:
    hand_in(folder / student, "ps1", notebook(RIGHT), name="first.ipynb")
    hand_in(folder / student, "ps1", notebook(RIGHT), name="second.ipynb")


BAD: dict[str, tuple[Callable[[Path, str], object], str]] = {
    "not-json": (lambda d, s: hand_in(d, s, b"print('hello')\n"), "invalid JSON"),
    "json-not-notebook": (
        lambda d, s: hand_in(d, s, b'{"hello": "world"}'),
        "JSON without notebook 'cells'",
    ),
    "nbformat-3": (
        lambda d, s: hand_in(
            d, s, json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": []}]})
        ),
        "nbformat 3",
    ),
    "empty-file": (lambda d, s: hand_in(d, s, b""), "empty"),
    "over-size-limit": (lambda d, s: sparse(d, s, MAX_NOTEBOOK_BYTES + 1), "larger than"),
    "not-utf8": (
        lambda d, s: hand_in(d, s, b'{"cells": [], "nbformat": 4, "x": "caf\xe9"}'),
        "is not UTF-8",
    ),
    "huge-outputs": (
        lambda d, s: hand_in(d, s, with_outputs(MAX_NOTEBOOK_BYTES)),
        "clear the outputs",
    ),
    "no-answer-cells": (
        lambda d, s: hand_in(d, s, nbformat.writes(nbformat.v4.new_notebook())),
        "no answer cells",
    ),
    "missing-notebook": (
        lambda d, s: hand_in(d, s, notebook(RIGHT), name="ps2.ipynb"),
        "no notebook for ps1",
    ),
    "two-notebooks": (two_notebooks, "2 notebooks for ps1"),
    "..dots-in-name": (lambda d, s: hand_in(d, s, notebook(RIGHT)), "is not allowed"),
}


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory):
    """A class with one good notebook, one notebook with big outputs, and every bad one, graded
    once."""
    root = tmp_path_factory.mktemp("bad")
    folder = root / "subs"
    hand_in(folder, "good", notebook(RIGHT))
    hand_in(folder, "big-outputs", with_outputs(4 * MB))
    for student, (make, _) in BAD.items():
        make(folder, student)
    with open_small_course(root / "course") as workspace:
        summary = autograde(workspace, "ps1", folder)
        yield workspace, folder, summary, json.loads((summary.out_dir / "results.json").read_text())


@pytest.mark.parametrize("student", list(BAD))
def test_each_bad_submission_is_its_own_ungradable_entry(batch, student: str) -> None:
    _, _, summary, doc = batch
    entry = students(doc)[student]
    assert entry["status"] == "ungradable" and entry["score"] == 0
    assert BAD[student][1] in english(entry["error"])
    assert (student, english(entry["error"])) in summary.ungradable


def test_the_rest_of_the_batch_is_graded(batch) -> None:
    _, _, summary, doc = batch
    by = students(doc)
    assert (by["good"]["status"], by["good"]["score"]) == ("graded", 6.0)
    assert (by["big-outputs"]["status"], by["big-outputs"]["score"]) == (
        "graded",
        6.0,
    )  # outputs are ignored
    assert summary.graded == len(BAD) + 2 and len(summary.ungradable) == len(BAD)


def test_messages_name_the_file_inside_the_submissions_folder(batch) -> None:
    _, folder, _, doc = batch
    assert all(
        str(folder) not in english(s["error"]) for s in doc["students"] if english(s["error"])
    )
    assert english(students(doc)["not-json"]["error"]).startswith("not-json/ps1.ipynb: ")


def test_a_second_run_grades_none_of_them_again(batch) -> None:
    workspace, folder, _, _ = batch
    summary = autograde(workspace, "ps1", folder)
    assert (summary.graded, summary.skipped) == (0, len(BAD) + 2)
    assert len(summary.ungradable) == len(BAD)  # still reported: they are still not graded
