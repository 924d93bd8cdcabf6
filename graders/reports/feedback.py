"""Feedback pages: one self-contained HTML file per student, made from the gradebook.

Each page opens with a summary (the score, how late and what it cost, points per article
section, links to the questions to review; ``feedback_view``), then shows for every
question the prompt, the learner's answer, the expected answer, whether it was right, the
explanation, the misconception the answer matches and the article section to reread; a
code exercise shows the learner's code once, with each check's explanation once. Every
question is named as the notebook names it. All of it as far as the assignment's feedback
policy shows learners on the day the pages are written (``course.visibility``). Pages load
nothing from the network: the style sheet is inline and there are no scripts.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, Template, select_autoescape
from markupsafe import Markup, escape

from ..batch import gradebook
from ..batch.adjustments import extended_due_dates
from ..batch.exports import write_atomic
from ..batch.submissions import safe_student
from ..course.learner_language import LearnerLanguages
from ..course.load import LoadedCourse, get_assignment
from ..course.model import Shown, in_article, read_as, section_label
from ..course.times import time_text, zone_of
from ..course.visibility import for_learner, shown_at
from ..errors import UsageError
from ..i18n import N_, _, current_language, ngettext, speaking
from ..intake.identity import one_file_each
from ..notebook.layout import assignment_labels, exercise_headings
from ..results import StudentResult, SubmissionStatus, format_points
from ..said import Text
from .course_info import course_info
from .feedback_view import ADJUSTED, feedback_view, short_label, shown_status
from .learner_setup import learner_context

TEMPLATE = "feedback.html.j2"
STATUS_TEXT = {
    "correct": N_("correct"),
    "wrong": N_("not correct"),
    "unanswered": N_("not answered"),
    "invalid": N_("not an answer"),
    "error": N_("error"),
    "timeout": N_("timed out"),
    "integrity": N_("tampered with grading"),
    ADJUSTED: N_("adjusted by the instructor"),
}
_FENCE = re.compile(r"```[\w+-]*\n(.*?)```", re.S)
_INLINE = re.compile(r"`([^`\n]+)`")


def write_feedback(
    loaded: LoadedCourse, assignment: str, db_url: str, out: Path, language: str | None = None
) -> list[Path]:
    """Write ``out/<student>.html`` for every graded student of ``assignment``; return the paths.

    Each page speaks ``language`` when it is given (one of the course's); otherwise the
    language of the notebook its learner handed in (the one it was released in), else the
    course's first: the course's texts, the explanations in each feedback and the page's
    own words.
    """
    languages = LearnerLanguages(loaded, assignment, forced=language)
    doc = gradebook.results_document(db_url, loaded.course.id, assignment, loaded.renamed)
    if not doc.students:
        raise UsageError(
            f"nothing graded for {assignment} in the gradebook yet (run `graders autograde "
            f"{assignment} ...` first)"
        )
    _remove_dropped(doc.dropped, out)
    # What learners may see today: an extension keeps the key back until its own cutoff.
    with gradebook.open_gradebook(db_url).connect() as conn:
        extended = extended_due_dates(conn, loaded.course.id, assignment)
    visible = shown_at(get_assignment(loaded, assignment), extended=extended)
    by_language: dict[str, list[StudentResult]] = {}
    graded = (s.student for s in doc.students if s.status is not SubmissionStatus.UNGRADABLE)
    # One page per name, whatever the disk's case (Alice.html and alice.html are one file).
    owners = one_file_each((s.student for s in doc.students), graded)
    for student in doc.students:
        if student.student not in owners:
            continue  # such a folder was never graded; its name must not become a path
        if student.status is SubmissionStatus.MISSING:
            continue  # nothing was handed in: there is nothing to give feedback on
        by_language.setdefault(languages.language_of(student), []).append(student)
    written = []
    for spoken, students in by_language.items():
        with speaking(spoken):
            written += _write_pages(languages, students, visible, out)
    return sorted(written)


def _write_pages(
    languages: LearnerLanguages, students: list[StudentResult], visible: Shown, out: Path
) -> list[Path]:
    """The pages of ``students``, in the language spoken."""
    template = environment().get_template(TEMPLATE)
    context = _course_context(languages.course_in(current_language()), languages.assignment)
    written = []
    for student in students:
        path = out / f"{student.student}.html"
        write_atomic(path, template.render(feedback_context(languages, student, visible, context)))
        written.append(path)
    return written


def feedback_context(
    languages: LearnerLanguages,
    student: StudentResult,
    visible: Shown,
    course: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What ``student``'s feedback shows, in the language spoken, as far as ``visible``
    allows: the context of ``feedback.html.j2`` (a file) and ``feedback_body.html.j2`` (the
    same content on another page). ``course``: the course's part, when made already."""
    spoken, assignment = current_language(), languages.assignment
    shown = languages.course_in(spoken)
    context = {
        **(course or _course_context(shown, assignment)),
        **learner_context(shown, assignment, student.student),
    }
    result = languages.result_in(for_learner(student, visible), spoken)
    return page_context(result, context)


def _remove_dropped(dropped: tuple[str, ...], out: Path) -> None:
    """A dropped student's page from an earlier run goes: no output shows their grade."""
    for student in dropped:
        if safe_student(student):
            (out / f"{student}.html").unlink(missing_ok=True)


def environment() -> Environment:
    """The Jinja2 environment of feedback pages (HTML-escaped by default)."""
    env = Environment(
        loader=PackageLoader("graders.reports", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    # The page's own words, in the language the command speaks (``i18n.speaking``).
    env.install_gettext_callables(gettext=_, ngettext=ngettext, newstyle=True)  # type: ignore[attr-defined]
    env.filters["prose"] = prose
    env.filters["num"] = format_points
    env.filters["read_as"] = read_as
    env.filters["section_label"] = section_label
    env.filters["when"] = time_text
    env.tests["in_article"] = in_article
    return env


def render_page(template: Template, student: StudentResult, context: dict[str, Any]) -> str:
    """One student's page."""
    return template.render(page_context(student, context))


def page_context(student: StudentResult, context: dict[str, Any]) -> dict[str, Any]:
    """The template context of ``student``'s page (shown as it is), the course's given."""
    view = feedback_view(
        student, context["assignment"], context["info"], context["labels"], context["headings"]
    )
    status_text = {status: _(text) for status, text in STATUS_TEXT.items()}
    return {
        **context,
        "student": student,
        "view": view,
        "status_text": status_text,
        "shown_status": shown_status,
        "lang": current_language(),
    }


def _course_context(loaded: LoadedCourse, assignment: str) -> dict[str, Any]:
    found = loaded.course.assignment(assignment)
    # Prompts, titles and labels are the course's words, not part of a grade: taken from
    # the course as it is now.
    labels = assignment_labels(loaded, found) if found else {}
    headings = exercise_headings(loaded, found) if found else {}
    info = course_info(loaded)
    return {
        "course_title": loaded.course.title,
        "assignment_id": assignment,
        "assignment_title": found.title if found else assignment,
        "assignment": found,
        "zone": zone_of(found),
        "info": info,
        "prompts": {item_id: item.prompt for item_id, item in info.items.items()},
        "labels": labels,
        "headings": headings,
        "label": lambda item_id: short_label(labels, item_id),
        "misconception_labels": loaded.course.misconception_labels(),
    }


def prose(text: str | Text | None) -> Markup:
    """Author text as HTML: paragraphs, ```code blocks``` and `inline code`; everything escaped
    (a text is written in the reader's language already: ``result_in``)."""
    if not text:
        return Markup("")
    text = str(text)
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
