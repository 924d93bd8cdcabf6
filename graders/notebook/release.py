"""``graders release``: an assignment as a student, an instructor and an nbgrader notebook.

    DIR/<assignment>/<assignment>.ipynb              what learners fill in
    DIR/instructor/<assignment>/<assignment>.ipynb   with the key and explanations (never hand out)
    DIR/source/<assignment>/<assignment>.ipynb       for an nbgrader course (solution and
    DIR/source/<assignment>/graders-course.json        hidden test cells), and which course
                                                       the test cells grade with

Each notebook is the same ordered list of parts (``parts``) rendered by one small
function per part role; nothing is random, so the files are golden-testable. Nothing of
the instructor's machine goes into them: nbgrader hands the source folder's files out to
learners, so the course pointer names the course by its id, never by its path.

In the nbgrader source notebook, an answer cell whose solution goes inside a function of
its starter (a code exercise's ``def f(t):`` body) is a solution cell with that place
marked as a solution region, so that ``nbgrader generate_assignment`` keeps every other
line of the starter. nbgrader puts ``raise NotImplementedError()`` in a region's place,
which would stop the notebook at the top level of a cell; so an answer cell whose
solution is a whole line at the top level (a prediction, ``answer = "..."``) stays an
ordinary cell holding its starter, as in the student notebook. The hidden test cells
read the answers from the saved notebook (``graders.nbgrader``), not from the kernel.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_notebook

from ..course.loaded import LoadedCourse
from ..course.model import Assignment
from ..errors import UsageError
from ..i18n import N_, _, current_language
from ..kinds.notebook_side import Part
from . import META_KEY, POINTER_FILE
from .cells import cell_id, code, markdown, nbgrader_meta
from .kernel import CELL_KEY, cell_source
from .parts import assignment_labels, assignment_parts
from .service_client import service_url

SUBMIT_CALL = "import graders\ngraders.submit()"
SUBMIT_TEXT = N_("""\
## Submit

Save the notebook first (File > Save, or Ctrl+S), then run the cell below: it runs the
pre-submit check, hands the saved notebook in and shows its feedback here. The first time,
it asks for the token your instructor gave you and keeps it on this computer, never in the
notebook.
""")
ANSWERS_AS_TEXT = N_(
    "Answer cells hold your predictions as text: graders reads them, and nothing in them runs."
)
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
Render = Callable[[Part], list[NotebookNode]]


@dataclass(frozen=True)
class Released:
    """Where ``write_release`` put each file."""

    student: Path
    instructor: Path
    source: Path
    pointer: Path


def student_notebook(
    loaded: LoadedCourse, assignment: Assignment, service: str | None = None
) -> NotebookNode:
    """The notebook learners fill in: locked texts and setups, one answer cell per question;
    with ``service`` (the URL of a ``graders serve``), a last cell that submits it there."""
    parts = assignment_parts(loaded, assignment, {})
    nb = _notebook(loaded, assignment, parts, _student_cells)
    return nb if service is None else _with_submit(nb, service)


def instructor_notebook(
    loaded: LoadedCourse, assignment: Assignment, key: Mapping[str, str]
) -> NotebookNode:
    """The student notebook with every answer filled in from ``key`` and explained."""
    parts = assignment_parts(loaded, assignment, key)
    return _notebook(loaded, assignment, parts, _instructor_cells)


def nbgrader_notebook(
    loaded: LoadedCourse, assignment: Assignment, key: Mapping[str, str]
) -> NotebookNode:
    """An nbgrader source notebook: solution cells from ``key``, hidden autograder tests."""
    parts = assignment_parts(loaded, assignment, key, nbgrader=True)
    render = partial(_nbgrader_cells, assignment=assignment.id)
    return _notebook(loaded, assignment, parts, render, for_nbgrader=True)


def write_release(
    loaded: LoadedCourse,
    assignment: Assignment,
    key: Mapping[str, str],
    out: Path,
    service: str | None = None,
) -> Released:
    """Write the three notebooks (each validated by nbformat) and the course pointer; the
    student notebook submits to ``service`` when one is named."""
    _require_key(loaded, assignment, key)
    where = Released(
        student=out / assignment.id / f"{assignment.id}.ipynb",
        instructor=out / "instructor" / assignment.id / f"{assignment.id}.ipynb",
        source=out / "source" / assignment.id / f"{assignment.id}.ipynb",
        pointer=out / "source" / assignment.id / POINTER_FILE,
    )
    _write(student_notebook(loaded, assignment, service), where.student)
    _write(instructor_notebook(loaded, assignment, key), where.instructor)
    _write(nbgrader_notebook(loaded, assignment, key), where.source)
    pointer = {"course_id": loaded.course.id, "assignment": assignment.id}
    where.pointer.write_text(json.dumps(pointer, indent=1) + "\n", encoding="utf-8")
    return where


def answer_keys(parts: list[Part]) -> list[str]:
    """The ``metadata.graders`` keys a complete notebook has: item ids and code exercise ids."""
    return [p.key for p in parts if p.role == "answer"]


def _notebook(
    loaded: LoadedCourse,
    assignment: Assignment,
    parts: list[Part],
    render: Render,
    for_nbgrader: bool = False,
) -> NotebookNode:
    nb: NotebookNode = new_notebook(cells=[cell for part in parts for cell in render(part)])
    # After the title and introduction, before any answer cell: answers bind their text.
    ident = cell_id(CELL_KEY)
    meta = nbgrader_meta(ident, locked=True) if for_nbgrader else None
    kernel = code(ident, cell_source(_(ANSWERS_AS_TEXT)), locked=True, nbgrader=meta)
    nb.cells.insert(1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0, kernel)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    keys = answer_keys(parts)
    labels = assignment_labels(loaded, assignment)
    nb.metadata[META_KEY] = {
        "course": loaded.course.id,
        "assignment": assignment.id,
        "answers": keys,
        "labels": {k: labels[k] for k in keys if k in labels},
    }
    # The language the notebook speaks, for `graders check` to answer in: presentation
    # only (grading never reads it). Left out in the course's default language.
    if current_language() != loaded.course.languages[0]:
        nb.metadata[META_KEY]["language"] = current_language()
    return nb


def _with_submit(nb: NotebookNode, service: str) -> NotebookNode:
    """``nb`` naming ``service`` in its metadata (an address, not a secret: the learner's
    token is kept in their own config folder, never in a notebook) and ending with the
    cell that submits it."""
    nb.metadata[META_KEY]["service"] = service_url(service)
    nb.cells.append(markdown(cell_id("submit", "text"), _(SUBMIT_TEXT)))
    nb.cells.append(code(cell_id("submit", "call"), SUBMIT_CALL, locked=True))
    return nb


def _write(nb: NotebookNode, path: Path) -> None:
    nbformat.validate(nb)
    path.parent.mkdir(parents=True, exist_ok=True)
    text: str = nbformat.writes(nb)
    path.write_text(text, encoding="utf-8")


def _require_key(loaded: LoadedCourse, assignment: Assignment, key: Mapping[str, str]) -> None:
    wanted = answer_keys(assignment_parts(loaded, assignment, {}))
    missing = [k for k in wanted if k not in key]
    if missing:
        raise UsageError(
            f"no answer could be computed for {', '.join(missing)}: run `graders validate` to see "
            "why"
        )


def _student_cells(part: Part) -> list[NotebookNode]:
    if part.role == "answer":
        return [code(cell_id(part.cell, part.key), part.text, graders=dict(part.tag))]
    return [_shown(part)]


def _instructor_cells(part: Part) -> list[NotebookNode]:
    if part.role != "answer":
        return [_shown(part)]
    cells = [code(cell_id(part.cell, part.key), part.solution or part.text, graders=dict(part.tag))]
    if part.explain:
        cells.append(markdown(cell_id("explain", part.key), part.explain))
    return cells


def _nbgrader_cells(part: Part, assignment: str) -> list[NotebookNode]:
    if part.role == "answer":
        return [_solution_cell(part), _test_cell(part, assignment)]
    ident = cell_id(part.role, part.key)
    meta = nbgrader_meta(ident, locked=True)
    if part.role == "setup":
        return [code(ident, part.text, locked=True, nbgrader=meta)]
    return [markdown(ident, part.text, nbgrader=meta)]


def _shown(part: Part) -> NotebookNode:
    ident = cell_id(part.role, part.key)
    return (
        code(ident, part.text, locked=True) if part.role == "setup" else markdown(ident, part.text)
    )


def _solution_cell(part: Part) -> NotebookNode:
    """The starter with its solution in a region, when the region is inside a function;
    else the starter as learners get it (see the module docstring)."""
    ident = cell_id(part.cell, part.key)
    filled = part.filled
    if filled is None or filled.placeholder == filled.placeholder.lstrip():
        return code(ident, part.text, graders=dict(part.tag))
    indent = filled.placeholder[: len(filled.placeholder) - len(filled.placeholder.lstrip())]
    region = f"{indent}{BEGIN_SOLUTION}\n{filled.lines.rstrip()}\n{indent}{END_SOLUTION}"
    lines = [region if line == filled.placeholder else line for line in part.text.splitlines()]
    meta = nbgrader_meta(ident, solution=True)
    return code(ident, "\n".join(lines), graders=dict(part.tag), nbgrader=meta)


def _test_cell(part: Part, assignment: str) -> NotebookNode:
    """A hidden, locked autograder cell that grades the saved answer with graders' engine."""
    ident = cell_id("test", part.key)
    call = f'graders.nbgrader.check("{part.key}", assignment="{assignment}")'
    source = f"### BEGIN HIDDEN TESTS\nimport graders.nbgrader\n{call}\n### END HIDDEN TESTS"
    meta = nbgrader_meta(ident, grade=True, locked=True, points=part.points)
    return code(ident, source, locked=True, nbgrader=meta)
