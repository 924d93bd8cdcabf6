"""Feedback pages: one self-contained HTML file per student, made from the gradebook.

Each page shows the score, and for every question the prompt, the learner's answer, the
expected answer, whether it was right, the explanation, the misconception the answer
matches and the article section to reread: as much of it as the assignment's feedback
policy shows learners on the day the pages are written (``course.visibility``). Pages load
nothing from the network: the style sheet is inline and there are no scripts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, Template, select_autoescape
from markupsafe import Markup, escape

from ..batch import gradebook
from ..batch.exports import write_atomic
from ..batch.submissions import safe_student
from ..course.load import LoadedCourse, get_assignment
from ..course.model import in_article, section_label
from ..course.visibility import for_learner, shown_at
from ..errors import UsageError
from ..results import QuestionResult, StudentResult, SubmissionStatus, format_points

TEMPLATE = "feedback.html.j2"
STATUS_TEXT = {
    "correct": "correct",
    "wrong": "not correct",
    "unanswered": "not answered",
    "invalid": "not an answer",
    "error": "error",
    "timeout": "timed out",
    "integrity": "tampered with grading",
}
_FENCE = re.compile(r"```[\w+-]*\n(.*?)```", re.S)
_INLINE = re.compile(r"`([^`\n]+)`")


@dataclass(frozen=True)
class Exercise:
    """What a page shows about an exercise: its title and article section."""

    title: str
    section: str | None


def write_feedback(loaded: LoadedCourse, assignment: str, db_url: str, out: Path) -> list[Path]:
    """Write ``out/<student>.html`` for every graded student of ``assignment``; return the paths."""
    doc = gradebook.results_document(db_url, loaded.course.id, assignment)
    if not doc.students:
        raise UsageError(
            f"nothing graded for {assignment} in the gradebook yet (run `graders autograde "
            f"{assignment} ...` first)"
        )
    template = environment().get_template(TEMPLATE)
    context = _course_context(loaded, assignment)
    shown = shown_at(get_assignment(loaded, assignment))  # what learners may see today
    written = []
    for student in doc.students:
        if not safe_student(student.student):
            continue  # such a folder was never graded; its name must not become a path
        if student.status is SubmissionStatus.MISSING:
            continue  # nothing was handed in: there is nothing to give feedback on
        path = out / f"{student.student}.html"
        write_atomic(path, render_page(template, for_learner(student, shown), context))
        written.append(path)
    return written


def environment() -> Environment:
    """The Jinja2 environment of feedback pages (HTML-escaped by default)."""
    env = Environment(
        loader=PackageLoader("graders.reports", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["prose"] = prose
    env.filters["num"] = format_points
    env.filters["human"] = lambda name: name.replace("-", " ")
    env.filters["section_label"] = section_label
    env.tests["in_article"] = in_article
    return env


def render_page(template: Template, student: StudentResult, context: dict[str, Any]) -> str:
    """One student's page."""
    groups: dict[str, list[QuestionResult]] = {}
    for q in student.questions:
        groups.setdefault(q.exercise, []).append(q)
    return template.render(student=student, groups=groups, status_text=STATUS_TEXT, **context)


def _course_context(loaded: LoadedCourse, assignment: str) -> dict[str, Any]:
    found = loaded.course.assignment(assignment)
    exercises = {
        ex_id: Exercise(ex.exercise.title, ex.exercise.section)
        for ex_id, ex in loaded.exercises.items()
    }
    # Prompts are the course's words, not part of a grade: taken from the course as it is now.
    prompts = {
        item.id: item.prompt
        for ex in loaded.exercises.values()
        for item in ex.kind.items(ex.exercise)
    }
    return {
        "course_title": loaded.course.title,
        "assignment_id": assignment,
        "assignment_title": found.title if found else assignment,
        "exercises": exercises,
        "prompts": prompts,
    }


def prose(text: str | None) -> Markup:
    """Author text as HTML: paragraphs, ```code blocks``` and `inline code`; everything escaped."""
    if not text:
        return Markup("")
    parts: list[str] = []
    last = 0
    for match in _FENCE.finditer(text):
        parts.append(_paragraphs(text[last : match.start()]))
        parts.append(f"<pre><code>{escape(match.group(1).rstrip())}</code></pre>")
        last = match.end()
    parts.append(_paragraphs(text[last:]))
    return Markup("".join(parts))


def _paragraphs(text: str) -> str:
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]
    return "".join("<p>" + _INLINE.sub(r"<code>\1</code>", str(escape(b))) + "</p>" for b in blocks)
