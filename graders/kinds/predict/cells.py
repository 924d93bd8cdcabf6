"""A predict exercise in a notebook: its parts, and its answer cells read back as text.

Each question is a prompt and an answer cell ``answer = ...`` tagged
``metadata.graders.question``; reading a cell takes the prediction out as text
(``answer_cell``), never running it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...answers.parse import AnswerSyntaxError, parse_answer
from ..base import Reading
from ..layout import MAGIC_NOTE, Part, Placed, exercise_header, has_magic, points_text
from .answer_cell import UNANSWERED_LINE, answer_line, extract_answer

CELL_TAG = "question"
TEST_GIVEN = (
    'globals().pop("answer", ...)'  # pop: an unanswered cell must not reuse the last answer
)
LEAD = (
    "Run the setup cell below to explore. The questions continue from it in order: "
    "each one sees what the earlier ones ran."
)
HINT = """\
Each question has an answer cell that starts as `answer = ...`. Replace `...` with
your prediction, written the way torch prints it, in quotes:

- `answer = "tensor(5.)"`, `answer = "(True, False)"`, `answer = "torch.Size([4, 3])"`
- `answer = "RuntimeError"` when an exception is raised, `answer = "no error"` when none is
- `answer = "<MulBackward0>"` for a `grad_fn`

{reading}
Keep one `answer = ...` per answer cell and do not delete answer cells. Run the setup
cells to explore, but make your prediction before you try it.
"""
READ_AS_TEXT = "Your answer is read as text and never run, so the quotes are optional here."
RUN_BY_NBGRADER = (
    "This notebook is run when it is graded, so keep the quotes: an answer cell that "
    "raises an error counts as unanswered."
)
MALFORMED_NOTE = (
    "The grader read this whole answer cell as your answer: an answer cell must hold "
    "one assignment, `answer = <your prediction>`, and nothing else."
)
CELL_SHAPE = "an answer cell must hold one line, `answer = <your prediction>`, and nothing else"


def layout(p: Placed, key: Mapping[str, str]) -> list[Part]:
    """Header, setup, then per question a prompt and an answer cell."""
    ex = p.loaded.exercise
    parts = [exercise_header(p, LEAD), Part("setup", ex.id, setup_source(ex.setup, p.seed))]
    for n, q in enumerate(ex.questions, start=1):
        item = f"{ex.id}/{q.id}"
        points = q.points * p.scale
        prompt = f"**Question {p.number}.{n}** ({points_text(points)})\n\n{q.prompt.strip()}"
        parts.append(Part("prompt", item, prompt))
        parts.append(_answer_part(item, points, key.get(item), q.explain.strip()))
    return parts


def _answer_part(item: str, points: float, literal: str | None, explain: str) -> Part:
    return Part(
        "answer",
        item,
        UNANSWERED_LINE,
        points=points,
        solution=answer_line(literal) if literal is not None else None,
        explain=f"**Answer:** `{literal}`\n\n{explain}" if literal is not None else "",
        tag={CELL_TAG: item},
        cell="answer",
        test_given=TEST_GIVEN,
    )


def setup_source(setup: str, seed: int) -> str:
    """The setup as learners run it: seeded the way the grader seeds it before every setup."""
    seeded = f"import torch; torch.manual_seed({seed})  # the grader seeds torch before every setup"
    return f"{seeded}\n{setup.rstrip()}"


def hint(runs_answers: bool) -> str:
    """How to write a prediction; whether the quotes matter depends on who runs the cell."""
    return HINT.format(reading=RUN_BY_NBGRADER if runs_answers else READ_AS_TEXT)


def read_cell(source: str, meta: Mapping[str, Any]) -> Reading:
    """The prediction in an answer cell (None: unanswered), with a note if malformed."""
    extracted = extract_answer(source)
    if extracted.text is None or not extracted.malformed:
        return Reading(extracted.text)
    return Reading(extracted.text, (MAGIC_NOTE if has_magic(source) else MALFORMED_NOTE,))


def cell_problem(source: str, meta: Mapping[str, Any]) -> str | None:
    """None: unanswered; "": readable; else why the grader cannot read it."""
    extracted = extract_answer(source)
    if extracted.text is None:
        return None
    try:
        parse_answer(extracted.text)
    except AnswerSyntaxError as exc:
        hint = "Lines starting with `!` or `%` are not Python. " if has_magic(source) else ""
        return f"{hint}{CELL_SHAPE if extracted.malformed else exc}"
    return ""
