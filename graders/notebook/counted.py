"""Which of a question's answer cells counts, when a learner copied or pasted one.

Jupyter's copy and paste keeps a cell's metadata, so an answer cell copied to try
something out (``a.data_ptr() == b.data_ptr()``) is a second answer cell for the same
question. The last cell that holds an answer the grader can read counts; when none can
be read, the last one that holds an answer at all (its problem is then reported); else
the last one. The learner is told which cell counted by its first line and its place
among the question's cells, as the notebook shows them, never by a cell number.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import N_
from ..said import Told, joined, say
from .read import AnswerCell

SNIPPET_CHARS = 50


@dataclass(frozen=True)
class Counted:
    """The cell that counts for one answer key, and what the learner is told about it."""

    cell: AnswerCell
    note: Told = ""  # "" when the question has one answer cell


def counted_cell(cells: list[AnswerCell]) -> Counted:
    """The cell that counts among a question's answer cells (in notebook order)."""
    problems = [c.reader.cell_problem(c.source, c.meta) for c in cells]
    readable = [i for i, p in enumerate(problems) if p == ""]
    answered = [i for i, p in enumerate(problems) if p is not None]
    chosen = (readable or answered or [len(cells) - 1])[-1]
    if len(cells) == 1:
        return Counted(cells[0])
    return Counted(cells[chosen], _note(cells, chosen, problems))


def _note(cells: list[AnswerCell], chosen: int, problems: list[Told | None]) -> Told:
    total = len(cells)
    used = f"`{first_line(cells[chosen].source)}`"
    if chosen == total - 1:
        return say(
            "Your notebook has {total} answer cells for this question; the last one, {used}, "
            "was graded.",
            total=total,
            used=used,
        )
    unanswered = N_("the {nth} (`{line}`) is not answered")
    unreadable = N_("the {nth} (`{line}`) holds no answer the grader can read")
    later = [
        say(
            unanswered if problems[i] is None else unreadable,
            nth=ordinal(i + 1),
            line=first_line(cells[i].source),
        )
        for i in range(chosen + 1, total)
    ]
    return say(
        "Your notebook has {total} answer cells for this question; the {nth}, {used}, was "
        "graded, the last one holding an answer the grader can read: {later}.",
        total=total,
        nth=ordinal(chosen + 1),
        used=used,
        later=joined(later),
    )


def first_line(source: str) -> str:
    """A cell's first non-blank line, shortened: how the learner recognises it."""
    line = next((s.strip() for s in source.splitlines() if s.strip()), "")
    return line if len(line) <= SNIPPET_CHARS else line[: SNIPPET_CHARS - 3] + "..."


def ordinal(n: int) -> Told:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    endings = {1: N_("{n}st"), 2: N_("{n}nd"), 3: N_("{n}rd")}
    ending = N_("{n}th") if 10 <= n % 100 <= 20 else endings.get(n % 10, N_("{n}th"))
    return say(ending, n=n)
