"""An assignment as an ordered list of ``Part``: what every notebook flavour shows, in order.

The student, instructor and nbgrader notebooks differ only in how they render a part
(``release``); what the parts are, and their order, is decided here once. Each exercise
lays out its own parts through its kind (``Kind.layout``); this module adds the
introduction, with the answering hints of the kinds the assignment uses.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..course.loaded import LoadedCourse
from ..course.model import Assignment, LatePolicy, in_article, section_label
from ..course.times import time_text
from ..i18n import N_, _, ngettext
from ..kinds.notebook_side import Part, Placed, points_scale, points_text
from ..kinds.registry import all_kinds, kind_of
from . import LABEL_SEPARATOR

CHECK_HINT = N_("""\
Before you submit, save the notebook and run `graders check {name}.ipynb` (or
`from graders import check; check()` in a new cell). It lists the answers the grader
cannot read and the cells that would stop the notebook running from top to bottom; it
never tells you whether an answer is right. To install it: `pip install '{install}'`.
""")
NBGRADER_NOTE = N_("""\
`nbgrader validate` (the Validate button) only runs the notebook: the questions are graded
by hidden tests, so its "Success!" does not mean that your answers are right.
""")


def assignment_parts(
    loaded: LoadedCourse,
    assignment: Assignment,
    key: Mapping[str, str],
    *,
    nbgrader: bool = False,
) -> list[Part]:
    """Every part of ``assignment``'s notebook, in order (``key`` may be empty); the
    nbgrader flavour's introduction also says what `nbgrader validate` does not tell."""
    placed = place_exercises(loaded, assignment)
    body = [part for p in placed for part in kind_of(p.loaded).layout(p, key)]
    hints = how_to_answer({p.loaded.kind.name for p in placed})
    if nbgrader:
        hints.append(_(NBGRADER_NOTE))
    return [Part("intro", "", intro_text(loaded, assignment, placed, hints)), *body]


def place_exercises(loaded: LoadedCourse, assignment: Assignment) -> list[Placed]:
    """The assignment's exercises, numbered from 1, with the points scale the pipeline uses."""
    placed = []
    for number, item in enumerate(assignment.exercises, start=1):
        ex = loaded.exercises[item.id]
        placed.append(Placed(number, ex, points_scale(ex, item.points), loaded.course.seed))
    return placed


def assignment_labels(loaded: LoadedCourse, assignment: Assignment) -> dict[str, str]:
    """Answer key and item id -> how the notebook names it, with its exercise's title:
    ``Question 1.2 — clone() of a tensor that requires grad``. Every place that names a
    question to a learner (the check, feedback pages, the class report) uses these."""
    labels: dict[str, str] = {}
    for p in place_exercises(loaded, assignment):
        title = p.loaded.exercise.title
        names = kind_of(p.loaded).labels(p)
        labels.update((key, f"{name}{LABEL_SEPARATOR}{title}") for key, name in names.items())
    return labels


def question_names(loaded: LoadedCourse, assignment_id: str) -> dict[str, str]:
    """``assignment_labels`` of the assignment ``assignment_id`` ({} for one the course
    does not have): how CI logs and Gradescope name each question, as the notebook does."""
    found = loaded.course.assignment(assignment_id)
    return assignment_labels(loaded, found) if found is not None else {}


def exercise_headings(loaded: LoadedCourse, assignment: Assignment) -> dict[str, str]:
    """Exercise id -> its heading in the notebook: ``1. clone() of a tensor ...``."""
    return {
        p.loaded.exercise.id: f"{p.number}. {p.loaded.exercise.title}"
        for p in place_exercises(loaded, assignment)
    }


def how_to_answer(kinds: set[str]) -> list[str]:
    """The instructions for the kinds of answer cells the notebook has, in registry order."""
    return [_("## How to answer") + "\n", *(k.hint() for k in all_kinds() if k.name in kinds)]


def intro_text(
    loaded: LoadedCourse, assignment: Assignment, placed: list[Placed], hints: list[str]
) -> str:
    """The introduction: title, due date, and the article sections the exercises follow."""
    due = time_text(assignment.due)
    total = sum(p.points for p in placed)
    rows = [
        f"| {p.number} | {p.loaded.exercise.title} | {section_label(p.loaded.exercise.section)} | "
        f"{round(p.points, 2):g} |"
        for p in placed
    ]
    description = (
        [loaded.course.description.strip(), ""] if loaded.course.description.strip() else []
    )
    return "\n".join(
        [
            f"# {assignment.title}",
            "",
            _("*{course}*, assignment `{assignment}`: due {due}, {points}.").format(
                course=loaded.course.title,
                assignment=assignment.id,
                due=due,
                points=points_text(total),
            ),
            "",
            late_rule(assignment.late),
            "",
            *description,
            _follows([p.loaded.exercise.section for p in placed]),
            "",
            _("| # | exercise | article section | points |"),
            "|---|---|---|---|",
            *rows,
            "",
            *hints,
            _(CHECK_HINT).format(name=assignment.id, install=learner_install(loaded)),
        ]
    )


def late_rule(policy: LatePolicy) -> str:
    """The late policy in words, as learners read it in the notebook's introduction."""
    grace = policy.grace_minutes
    grace_text = (
        ngettext(
            " (the first {n} minute after it count as on time)",
            " (the first {n} minutes after it count as on time)",
            1 if grace == 1 else 2,
        ).format(n=f"{grace:g}")
        if grace
        else ""
    )
    days = policy.cutoff_days
    cutoff = ngettext("{n} day", "{n} days", 1 if days == 1 else 2).format(n=f"{days:g}")
    if not policy.cutoff_days:
        rule = _("Work handed in after the due date{grace} scores 0.").format(grace=grace_text)
    elif policy.penalty_per_day:
        rule = _(
            "Late work: each started day after the due date{grace} costs {percent} of the "
            "score; work more than {cutoff} late scores 0."
        ).format(grace=grace_text, percent=f"{policy.penalty_per_day * 100:g}%", cutoff=cutoff)
    else:
        rule = _(
            "Work handed in up to {cutoff} after the due date{grace} is accepted without a "
            "penalty; later work scores 0."
        ).format(cutoff=cutoff, grace=grace_text)
    return rule + _(" An extension from your instructor moves your due date.")


def learner_install(loaded: LoadedCourse) -> str:
    """The pip requirement learners install the check from: the course's, else this graders."""
    from .. import __distribution__, __version__

    return loaded.course.learner_install.strip() or f"{__distribution__}=={__version__}"


def _follows(sections: list[str]) -> str:
    """The sentence that says which article sections the exercises follow."""
    cited = list(dict.fromkeys(s for s in sections if in_article(s)))
    if not cited:
        return _("The exercises go beyond the article:")
    beyond = _("; some go beyond the article") if not all(in_article(s) for s in sections) else ""
    follows = ngettext(
        "The exercises follow the article's section {sections}{beyond}:",
        "The exercises follow the article's sections {sections}{beyond}:",
        len(cited),
    )
    return follows.format(sections=", ".join(cited), beyond=beyond)
