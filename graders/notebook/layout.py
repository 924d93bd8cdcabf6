"""An assignment as an ordered list of ``Part``: what every notebook flavour shows, in order.

The student, instructor and nbgrader notebooks differ only in how they render a part
(``release``); what the parts are, and their order, is decided here once. Each exercise
kind has a layout, chosen by its registered name (never by the shape of its data).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal, Mapping

from ..errors import UsageError
from ..load import LoadedCourse, LoadedExercise
from ..spec import Assignment, in_article, section_label
from .cells import points_text

Role = Literal["intro", "exercise", "setup", "prompt", "answer", "code"]


@dataclass(frozen=True)
class Part:
    """One thing a notebook shows: a text, a setup, or a place to answer."""

    role: Role
    key: str  # "" (intro), an exercise id, or an item id "<exercise>/<question>"
    text: str  # markdown (intro, exercise, prompt) or source (setup, code template)
    points: float = 0.0  # answer and code parts: what they are worth in this assignment
    solution: str | None = None  # answer: the key's literal; code: the reference source
    explain: str = ""  # the author's explanation, shown in the instructor notebook
    entry: str | None = None  # code: the function learners must define


@dataclass(frozen=True)
class Placed:
    """An exercise as placed in an assignment: its number and its points scale."""

    number: int
    loaded: LoadedExercise
    scale: float  # assignment points override / the exercise's own total (1.0 if none)
    seed: int  # the course seed, which the grader sets before every setup

    @property
    def points(self) -> float:
        return sum(i.points for i in self.loaded.kind.items(self.loaded.exercise)) * self.scale


Layout = Callable[[Placed, Mapping[str, str]], list[Part]]

PREDICT_HINT = """\
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
CODE_HINT = """\
For a code exercise, write the function in its code cell, keeping its name. The grader
runs that cell alone, in a sandbox, so put every import and helper it needs in it.
"""
CHECK_HINT = """\
Before you submit, save the notebook and run `graders check {name}.ipynb` (or
`from graders import check; check()` in a new cell). It lists the answers the grader
cannot read; it never tells you whether an answer is right.
"""


def assignment_parts(loaded: LoadedCourse, assignment: Assignment, key: Mapping[str, str], *, runs_answers: bool = False) -> list[Part]:
    """Every part of ``assignment``'s notebook, in order (``key`` may be empty)."""
    placed = place_exercises(loaded, assignment)
    body = [part for p in placed for part in layout_for(p.loaded)(p, key)]
    hints = how_to_answer({part.role for part in body}, runs_answers)
    return [Part("intro", "", intro_text(loaded, assignment, placed, hints)), *body]


def place_exercises(loaded: LoadedCourse, assignment: Assignment) -> list[Placed]:
    """The assignment's exercises, numbered from 1, with the points scale the pipeline uses."""
    placed = []
    for number, item in enumerate(assignment.exercises, start=1):
        ex = loaded.exercises[item.id]
        total = sum(i.points for i in ex.kind.items(ex.exercise))
        scale = (item.points / total) if item.points and total else 1.0
        placed.append(Placed(number, ex, scale, loaded.course.seed))
    return placed


def layout_for(ex: LoadedExercise) -> Layout:
    """The layout of an exercise's kind, or a usage error for a kind notebooks cannot show."""
    layout = LAYOUTS.get(ex.kind.name)
    if layout is None:
        raise UsageError(f"exercise '{ex.exercise.id}': notebooks cannot show exercises of kind '{ex.kind.name}' yet")
    return layout


def how_to_answer(roles: set[str], runs_answers: bool) -> list[str]:
    """The instructions for the kinds of answer cells the notebook has."""
    hints = ["## How to answer\n"]
    if "answer" in roles:
        hints.append(PREDICT_HINT.format(reading=RUN_BY_NBGRADER if runs_answers else READ_AS_TEXT))
    if "code" in roles:
        hints.append(CODE_HINT)
    return hints


def intro_text(loaded: LoadedCourse, assignment: Assignment, placed: list[Placed], hints: list[str]) -> str:
    """The introduction: title, due date, and the article sections the exercises follow."""
    due = assignment.due.isoformat(sep=" ", timespec="minutes")
    total = sum(p.points for p in placed)
    rows = [f"| {p.number} | {p.loaded.exercise.title} | {section_label(p.loaded.exercise.section)} | {round(p.points, 2):g} |" for p in placed]
    description = [loaded.course.description.strip(), ""] if loaded.course.description.strip() else []
    return "\n".join([
        f"# {assignment.title}",
        "",
        f"*{loaded.course.title}*, assignment `{assignment.id}`: due {due}, {points_text(total)}.",
        "",
        *description,
        _follows([p.loaded.exercise.section for p in placed]),
        "",
        "| # | exercise | article section | points |",
        "|---|---|---|---|",
        *rows,
        "",
        *hints,
        CHECK_HINT.format(name=assignment.id),
    ])


def _follows(sections: list[str]) -> str:
    """The sentence that says which article sections the exercises follow."""
    cited = list(dict.fromkeys(s for s in sections if in_article(s)))
    if not cited:
        return "The exercises go beyond the article:"
    beyond = "; some go beyond the article" if not all(in_article(s) for s in sections) else ""
    return f"The exercises follow the article's section{'s' if len(cited) > 1 else ''} {', '.join(cited)}{beyond}:"


def exercise_header(p: Placed, lead: str) -> Part:
    """The exercise's title, its article section and what to do."""
    ex = p.loaded.exercise
    where = f"Article section **{ex.section}**" if in_article(ex.section) else f"**{section_label(ex.section).capitalize()}**"
    text = f"## {p.number}. {ex.title}\n\n{where} · {points_text(p.points)}.\n\n{lead}"
    return Part("exercise", ex.id, text)


def setup_source(setup: str, seed: int) -> str:
    """The setup as learners run it: seeded the way the grader seeds it before every setup."""
    seeded = f"import torch; torch.manual_seed({seed})  # the grader seeds torch before every setup"
    return f"{seeded}\n{setup.rstrip()}"


def predict_layout(p: Placed, key: Mapping[str, str]) -> list[Part]:
    """A predict exercise: header, setup, then per question a prompt and an answer cell."""
    ex = p.loaded.exercise
    lead = "Run the setup cell below to explore. The questions continue from it in order: each one sees what the earlier ones ran."
    parts = [exercise_header(p, lead), Part("setup", ex.id, setup_source(ex.setup, p.seed))]
    for n, q in enumerate(ex.questions, start=1):
        item = f"{ex.id}/{q.id}"
        points = q.points * p.scale
        parts.append(Part("prompt", item, f"**Question {p.number}.{n}** ({points_text(points)})\n\n{q.prompt.strip()}"))
        parts.append(Part("answer", item, "", points=points, solution=key.get(item), explain=q.explain.strip()))
    return parts


def code_layout(p: Placed, key: Mapping[str, str]) -> list[Part]:
    """A code exercise: header with the task, then one cell holding the template."""
    ex = p.loaded.exercise
    checks = ", ".join(f"`{c.id}`" for c in ex.checks)
    lead = (
        f"{ex.prompt.strip()}\n\nDefine `{ex.signature}` in the code cell below, with everything it needs "
        f"in that cell. The grader runs it in a sandbox on inputs of its own and checks: {checks}."
    )
    code = Part("code", ex.id, ex.template, points=p.points, solution=key.get(ex.id), entry=ex.entry)
    return [exercise_header(p, lead), code]


LAYOUTS: dict[str, Layout] = {"predict": predict_layout, "code": code_layout}
