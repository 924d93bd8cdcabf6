"""In the learner's kernel: an answer cell binds the prediction graders reads, as text.

A prediction is data: graders reads an answer cell's source and never runs it
(``kinds.predict.answer_cell``). Run as Python in the kernel, the same cell can stop Run
All where graders reads it well: a keyboard's quotes (``answer = “False”``, which a
Chinese input method types), an unquoted repr (``answer = tensor(2.)``, a ``NameError``).
The first cell of a released notebook calls ``answers_as_text``: from then on, a cell that
holds only ``answer = ...`` runs as ``answer = "<what graders reads>"``, so Run All goes
on, and ``answer`` in the kernel is the text that will be graded. Any other cell (one with
more lines than the answer, a code exercise, the learner's own) runs as written.

``graders check`` asks ``as_read`` too when it says which cells would stop Run All
(``runall``): one rule, where it runs and where it is reported.
"""

from __future__ import annotations

from typing import Any

from ..answers.keyboard import comment_marks
from ..kinds.predict.answer_cell import TARGET, extract_answer, py_string

CELL_KEY = "answers-as-text"
_IMPORT = "from graders.notebook.kernel import answers_as_text"


def cell_source(comment: str) -> str:
    """The first cell of a released notebook, under a ``comment`` in its language. Without
    graders in the kernel (a learner who never installed it), answer cells run as Python,
    as in notebooks released before it."""
    return f"# {comment}\ntry:\n    {_IMPORT}\n    answers_as_text()\nexcept ImportError:\n    pass"


def as_read(source: str) -> str | None:
    """The cell ``source`` as it runs under ``answers_as_text``: ``answer = "<text>"`` for a
    cell that holds only ``answer = ...`` (``answer = "..."`` while unanswered, even when
    only ``answer =`` is left); None (run as written) for any other cell."""
    found = extract_answer(source)
    lines = [line.strip() for line in source.splitlines()]
    first = next((line for line in lines if line and not line.startswith(comment_marks())), "")
    if found.malformed or found.ignored or not first.startswith(TARGET):
        return None
    return f"answer = {py_string('...' if found.text is None else found.text)}\n"


def turns_answers_to_text(source: str) -> bool:
    """Whether running the cell ``source`` calls ``answers_as_text`` (as the released
    notebook's first cell does)."""
    return _IMPORT in source and "answers_as_text()" in source


def answers_as_text(shell: Any = None) -> None:
    """From now on in this kernel, answer cells bind their text (running this again adds
    nothing)."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None:
        return  # not in IPython: nothing runs the cells
    cleanup = shell.input_transformers_cleanup
    cleanup[:] = [step for step in cleanup if step is not _as_read_lines]
    cleanup.append(_as_read_lines)


def _as_read_lines(lines: list[str]) -> list[str]:
    """IPython's cleanup transform: a cell's lines in, the lines to run out."""
    read = as_read("".join(lines))
    return lines if read is None else [read]
