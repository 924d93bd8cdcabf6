"""A submitted notebook -> a ``Submission``: answers as text, code as source, nothing run.

The notebook comes as its file or as its bytes (``read``: the same checks, the same words).

Answer cells are found by ``metadata.graders``; a deleted cell leaves its question
unanswered, a duplicated one counts once (the last copy holding a readable answer,
``counted``) with a note saying which, and a cell that is not ``answer = <prediction>``
is passed on whole so the parser reports it.
"""

from __future__ import annotations

from pathlib import Path

from ..course.loaded import LoadedCourse, get_assignment
from ..intake.text import shown, unstorable_at
from ..kinds.base import Submission
from ..kinds.contract import AnyKind
from ..kinds.registry import kind_of
from ..said import Told, paragraphs, say
from .counted import counted_cell
from .read import (
    MAX_NOTEBOOK_BYTES,
    FileOrBytes,
    Shown,
    answer_cells,
    read_notebook,
    released_for,
    shown_name,
)


def read_submission(
    notebook: FileOrBytes,
    assignment_id: str,
    loaded: LoadedCourse,
    student: str,
    *,
    name: Shown | None = None,
    max_bytes: int = MAX_NOTEBOOK_BYTES,
) -> Submission:
    """Read one student's notebook (its file, or its bytes) for ``assignment_id``;
    ``SubmissionError`` if unreadable, naming it ``name`` (by default, the file's path)."""
    notebook = notebook if isinstance(notebook, bytes) else Path(notebook)
    path = shown_name(notebook, name)
    found = answer_cells(path, read_notebook(notebook, max_bytes, name=path))
    released_in = found.meta.get("language")
    # The learner's notebook says it: one of the course's languages, or none at all.
    language = released_in if released_in in loaded.course.languages else None
    released_for(path, found, assignment_id, language)
    expected = expected_keys(loaded, assignment_id)
    answers: dict[str, str] = {}
    notes: dict[str, Told] = {}
    unreadable: dict[str, Told] = {}
    for found_key, found_cells in found.cells.items():
        # A notebook released before an exercise or question was renamed names it as it was.
        key = loaded.renamed.get(found_key, found_key)
        kind = expected.get(key)
        # Cells for another assignment, or with metadata edited by hand, are not answers.
        cells = [c for c in found_cells if kind is not None and c.reader.kind == kind.name]
        if kind is None or not cells:
            continue
        counted = counted_cell(cells)
        reading = kind.read_cell(counted.cell.source, counted.cell.meta)
        if reading.text is not None:
            # Half a character (a lone surrogate: JSON's ``"\ud800"``, or a string literal's
            # escape) cannot be stored: that answer is invalid, the rest are graded.
            answers[key] = shown(reading.text)
            problem = _unreadable(key, reading.text)
            if problem:
                unreadable[key] = problem
        for note in (*reading.notes, counted.note):
            _add_note(notes, key, note)
    return Submission(
        student, assignment_id, answers, notes=notes, language=language, unreadable=unreadable
    )


def expected_keys(loaded: LoadedCourse, assignment_id: str) -> dict[str, AnyKind]:
    """The answer keys of an assignment, as the course defines them, with their kind."""
    expected: dict[str, AnyKind] = {}
    for item in get_assignment(loaded, assignment_id).exercises:
        ex = loaded.exercises[item.id]
        expected.update((key, kind_of(ex)) for key in ex.kind.answer_keys(ex.exercise))
    return expected


def _unreadable(key: str, text: str) -> Told:
    """Why the answer ``text`` to ``key`` cannot be read ("": it can)."""
    at = unstorable_at(text)
    if at is None:
        return ""
    return say(
        "The answer to {key} holds {char} at character {index}, half of a character (a lone "
        "surrogate), which is not text: remove it and save again.",
        key=key,
        char=shown(text[at]),
        index=at + 1,
    )


def _add_note(notes: dict[str, Told], key: str, note: Told) -> None:
    if note:
        notes[key] = paragraphs(notes[key], note) if key in notes else note
