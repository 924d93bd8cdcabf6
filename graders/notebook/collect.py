"""A submitted notebook -> a ``Submission``: answers as text, code as source, nothing run.

Answer cells are found by ``metadata.graders``; a deleted cell leaves its question
unanswered, a duplicated one counts once (the last copy) with a note saying so, and a
cell that is not ``answer = <prediction>`` is passed on whole so the parser reports it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ..errors import SubmissionError
from ..grade import Submission, get_assignment
from ..load import LoadedCourse
from .answer import code_source, extract_answer
from .read import MAX_NOTEBOOK_BYTES, AnswerCell, NotebookAnswers, answer_cells, read_notebook

MALFORMED_NOTE = (
    "The grader read this whole answer cell as your answer: an answer cell must hold "
    "one assignment, `answer = <your prediction>`, and nothing else."
)
MAGIC_NOTE = (
    "Lines starting with `!` or `%` are IPython commands, not Python; the grader runs "
    "Python only, so this cell cannot be graded as written."
)


def read_submission(
    path: Path, assignment_id: str, loaded: LoadedCourse, student: str, *, max_bytes: int = MAX_NOTEBOOK_BYTES,
) -> Submission:
    """Read one student's notebook for ``assignment_id``; ``SubmissionError`` if unreadable."""
    path = Path(path)
    found = answer_cells(path, read_notebook(path, max_bytes))
    _check_assignment(path, found, assignment_id)
    questions, exercises = expected_keys(loaded, assignment_id)
    answers: dict[str, str] = {}
    code: dict[str, str] = {}
    notes: dict[str, str] = {}
    for key, cells in found.cells.items():
        last = cells[-1]
        if key in questions and last.kind == "question":
            _read_question(last, answers, notes)
        elif key in exercises and last.kind == "exercise":
            _read_code(last, code, notes)
        else:
            continue  # a cell for another assignment, or metadata edited by hand
        if len(cells) > 1:
            _add_note(notes, key, duplicate_note(cells))
    return Submission(student=student, assignment=assignment_id, answers=answers, code=code, notes=notes)


def expected_keys(loaded: LoadedCourse, assignment_id: str) -> tuple[set[str], set[str]]:
    """The item ids and the exercise ids of an assignment, as the course defines them."""
    assignment = get_assignment(loaded, assignment_id)
    exercises = {item.id for item in assignment.exercises}
    items = {i.id for e in exercises for i in loaded.exercises[e].kind.items(loaded.exercises[e].exercise)}
    return items, exercises


def duplicate_note(cells: list[AnswerCell]) -> str:
    """What a learner reads when one question has several answer cells."""
    where = ", ".join(str(c.index + 1) for c in cells)
    return f"Your notebook has {len(cells)} answer cells for this (cells {where}); only the last one was graded."


def _check_assignment(path: Path, found: NotebookAnswers, assignment_id: str) -> None:
    declared = found.meta.get("assignment")
    if isinstance(declared, str) and declared != assignment_id:
        raise SubmissionError(f"{path}: this notebook is for assignment '{declared}', not '{assignment_id}'")
    if not found.cells:
        raise SubmissionError(
            f"{path}: no answer cells (cells with metadata.graders) in this notebook: "
            "is it the notebook released for this assignment?"
        )


def _read_question(cell: AnswerCell, answers: dict[str, str], notes: dict[str, str]) -> None:
    extracted = extract_answer(cell.source)
    if extracted.text is None:
        return  # unanswered: absent, as if the cell had been deleted
    answers[cell.key] = extracted.text
    if extracted.malformed:
        _add_note(notes, cell.key, MAGIC_NOTE if has_magic(cell.source) else MALFORMED_NOTE)


def _read_code(cell: AnswerCell, code: dict[str, str], notes: dict[str, str]) -> None:
    source = code_source(cell.source)
    if source is None:
        return  # only comments or nbgrader's stub: unanswered
    code[cell.key] = source
    if has_magic(source):
        _add_note(notes, cell.key, MAGIC_NOTE)


def has_magic(source: str) -> bool:
    """Is ``source`` not Python because of IPython lines (``!cmd``, ``%pip``)?

    Only a source that does not parse counts: a line starting with ``%`` can be the
    continuation of a valid expression.
    """
    if not any(line.lstrip().startswith(("!", "%")) for line in source.splitlines()):
        return False
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return False


def _add_note(notes: dict[str, str], key: str, note: str) -> None:
    notes[key] = f"{notes[key]}\n{note}" if key in notes else note
