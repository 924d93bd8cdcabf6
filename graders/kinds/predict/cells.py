"""A predict exercise in a notebook: its parts, and its answer cells read back as text.

Each question is a prompt and an answer cell ``answer = ...`` tagged
``metadata.graders.question``; reading a cell takes the prediction out as text
(``answer_cell``), never running it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...answers.parse import AnswerSyntaxError, read_answer
from ...i18n import N_, _
from ...said import Told, say, say_n, told
from ..base import Reading
from ..notebook_side import (
    MAGIC_NOTE,
    Filled,
    Part,
    Placed,
    exercise_header,
    has_magic,
    points_text,
)
from .answer_cell import UNANSWERED_LINE, Extracted, answer_line, extract_answer

CELL_TAG = "question"
LEAD = N_(
    "Run the setup cell below to explore. The questions continue from it in order: "
    "each one sees what the earlier ones ran."
)
HINT = N_("""\
Each question has an answer cell that starts as `answer = "..."`. Replace the `...`
between the quotes with your prediction, written the way torch prints it:

- `answer = "tensor(5.)"`, `answer = "(True, False)"`, `answer = "torch.Size([4, 3])"`
- `answer = "RuntimeError"` when an exception is raised, `answer = "no error"` when none is
- `answer = "<MulBackward0>"` for a `grad_fn`

Answers are strings: the grader reads the text between the quotes and never runs it, and
the quotes let the notebook run from top to bottom. Keep one `answer = ...` line per answer
cell and try things out in cells of your own. Run the setup cells to explore, but make your
prediction before you try it.
""")
NO_ANSWER_LINE = N_(
    'this cell has no `answer = ...` line: an answer cell holds one line, `answer = "<your '
    'prediction>"`'
)
MALFORMED_NOTE = N_(
    "The grader found no `answer = ...` line in this answer cell and read the whole cell as "
    'your answer: an answer cell holds one line, `answer = "<your prediction>"`.'
)
# An answer cell that does not run as it is, though the grader reads it.
# Released notebooks run such a cell as it is (their first cell reads answers as text), so
# the note says what Python itself would read, not that the notebook stops.
UNCLOSED = N_(
    "The closing quote is missing: the grader read `{read}`; `{line}` is the same answer "
    "with it, which also runs as Python."
)
TYPED_QUOTES = N_(
    "The quotes around the answer are not the ones Python reads: the grader read `{read}`; "
    "`{line}` is the same answer in Python's quotes."
)
SHOWN_LINES = 2  # of the other lines of an answer cell, named in the note


def layout(p: Placed, key: Mapping[str, str]) -> list[Part]:
    """Header, setup, then per question a prompt and an answer cell."""
    ex = p.loaded.exercise
    parts = [exercise_header(p, _(LEAD)), Part("setup", ex.id, setup_source(ex.setup, p.seed))]
    names = labels(p)
    for q in ex.questions:
        item = f"{ex.id}/{q.id}"
        points = q.points * p.scale
        heading = _("**{label}** ({points})").format(label=names[item], points=points_text(points))
        prompt = f"{heading}\n\n{q.prompt.strip()}"
        parts.append(Part("prompt", item, prompt))
        parts.append(_answer_part(item, points, key.get(item), q.explain.strip()))
    return parts


def labels(p: Placed) -> dict[str, str]:
    """Item id -> the question's heading in the notebook: ``Question 1.2``."""
    ex = p.loaded.exercise
    name = _("Question {exercise}.{question}")
    return {
        f"{ex.id}/{q.id}": name.format(exercise=p.number, question=n)
        for n, q in enumerate(ex.questions, 1)
    }


def _answer_part(item: str, points: float, literal: str | None, explain: str) -> Part:
    solution = answer_line(literal) if literal is not None else None
    return Part(
        "answer",
        item,
        UNANSWERED_LINE,
        points=points,
        solution=solution,
        explain=_("**Answer:** `{literal}`").format(literal=literal) + f"\n\n{explain}"
        if literal is not None
        else "",
        tag={CELL_TAG: item},
        cell="answer",
        filled=Filled(UNANSWERED_LINE, solution) if solution is not None else None,
    )


def setup_source(setup: str, seed: int) -> str:
    """The setup as learners run it: seeded the way the grader seeds it before every setup."""
    comment = _("the grader seeds torch before every setup")
    seeded = f"import torch; torch.manual_seed({seed})  # {comment}"
    return f"{seeded}\n{setup.rstrip()}"


def read_cell(source: str, meta: Mapping[str, Any]) -> Reading:
    """The prediction in an answer cell (None: unanswered), with notes on how it is written."""
    extracted = extract_answer(source)
    if extracted.text is None:
        return Reading(None)
    if extracted.malformed:
        return Reading(extracted.text, (say(MAGIC_NOTE if has_magic(source) else MALFORMED_NOTE),))
    runs = extracted.quoted and not (extracted.unclosed or extracted.typed_quotes)
    rewrite = None if runs else answer_line(extracted.text)
    return Reading(extracted.text, _notes(extracted), rewrite)


def cell_problem(source: str, meta: Mapping[str, Any]) -> Told | None:
    """None: unanswered; "": readable; else why the grader cannot read it."""
    extracted = extract_answer(source)
    if extracted.text is None:
        return None
    if extracted.malformed:
        if has_magic(source):
            return say(
                "Lines starting with `!` or `%` are not Python; {then}", then=say(NO_ANSWER_LINE)
            )
        return say(NO_ANSWER_LINE)
    try:
        read_answer(extracted.text)
    except AnswerSyntaxError as exc:
        return told(exc)
    return ""


def _notes(extracted: Extracted) -> tuple[Told, ...]:
    notes: list[Told] = []
    if extracted.ignored:
        shown: Told = ", ".join(f"`{_short(line)}`" for line in extracted.ignored[:SHOWN_LINES])
        more = len(extracted.ignored) - SHOWN_LINES
        if more > 0:
            shown = say_n(
                "{lines} and {count} more line", "{lines} and {count} more lines", more, lines=shown
            )
        notes.append(
            say(
                "An answer cell must hold only the answer line: move {shown} to a cell of its "
                "own. The grader read only the last `answer = ...` line.",
                shown=shown,
            )
        )
    quotes = TYPED_QUOTES if extracted.typed_quotes else UNCLOSED if extracted.unclosed else None
    if quotes is not None:
        read, line = _short(extracted.text or ""), _short(answer_line(extracted.text))
        notes.append(say(quotes, read=read, line=line))
    return tuple(notes)


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:57] + "..."


def kernel_answer(answer: Any) -> str | None:
    """A Python value as the answer literal a learner would type (None: unanswered)."""
    if answer is Ellipsis:
        return None
    if isinstance(answer, str):
        return answer  # the literal itself, as in a notebook cell read by `graders grade`
    if isinstance(answer, type) and issubclass(answer, BaseException):
        return answer.__name__
    if isinstance(answer, BaseException):
        return type(answer).__name__
    return repr(answer)  # torch prints tensors, sizes, dtypes and grad_fns as literals
