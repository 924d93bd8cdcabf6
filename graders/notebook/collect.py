"""A submitted notebook -> a ``Submission``: answers as text, code as source, nothing run.

Answer cells are found by ``metadata.graders``; a deleted cell leaves its question
unanswered, a duplicated one counts once (the last copy) with a note saying so, and a
cell that is not ``answer = <prediction>`` is passed on whole so the parser reports it.
"""

from __future__ import annotations

from pathlib import Path

from ..course.load import LoadedCourse, get_assignment
from ..errors import SubmissionError
from ..kinds.base import AnyKind, Submission
from .read import MAX_NOTEBOOK_BYTES, AnswerCell, NotebookAnswers, answer_cells, read_notebook


def read_submission(
    path: Path,
    assignment_id: str,
    loaded: LoadedCourse,
    student: str,
    *,
    max_bytes: int = MAX_NOTEBOOK_BYTES,
) -> Submission:
    """Read one student's notebook for ``assignment_id``; ``SubmissionError`` if unreadable."""
    path = Path(path)
    found = answer_cells(path, read_notebook(path, max_bytes))
    _check_assignment(path, found, assignment_id)
    expected = expected_keys(loaded, assignment_id)
    answers: dict[str, str] = {}
    notes: dict[str, str] = {}
    for key, cells in found.cells.items():
        last = cells[-1]
        kind = expected.get(key)
        if kind is None or last.kind is not kind:
            continue  # a cell for another assignment, or metadata edited by hand
        reading = kind.read_cell(last.source, last.meta)
        if reading.text is not None:
            answers[key] = reading.text
        for note in reading.notes:
            _add_note(notes, key, note)
        if len(cells) > 1:
            _add_note(notes, key, duplicate_note(cells))
    return Submission(student=student, assignment=assignment_id, answers=answers, notes=notes)


def expected_keys(loaded: LoadedCourse, assignment_id: str) -> dict[str, AnyKind]:
    """The answer keys of an assignment, as the course defines them, with their kind."""
    expected: dict[str, AnyKind] = {}
    for item in get_assignment(loaded, assignment_id).exercises:
        ex = loaded.exercises[item.id]
        expected.update((key, ex.kind) for key in ex.kind.answer_keys(ex.exercise))
    return expected


def duplicate_note(cells: list[AnswerCell]) -> str:
    """What a learner reads when one question has several answer cells."""
    where = ", ".join(str(c.index + 1) for c in cells)
    return (
        f"Your notebook has {len(cells)} answer cells for this (cells {where}); only the last one "
        "was graded."
    )


def _check_assignment(path: Path, found: NotebookAnswers, assignment_id: str) -> None:
    declared = found.meta.get("assignment")
    if isinstance(declared, str) and declared != assignment_id:
        raise SubmissionError(
            f"{path}: this notebook is for assignment '{declared}', not '{assignment_id}'"
        )
    if not found.cells:
        raise SubmissionError(
            f"{path}: no answer cells (cells with metadata.graders) in this notebook: "
            "is it the notebook released for this assignment?"
        )


def _add_note(notes: dict[str, str], key: str, note: str) -> None:
    notes[key] = f"{notes[key]}\n{note}" if key in notes else note
