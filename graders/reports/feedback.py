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

from pathlib import Path
from typing import Any

from jinja2 import Template

from ..course.learner_language import LearnerLanguages
from ..course.loaded import LoadedCourse, get_assignment
from ..course.model import Shown
from ..course.times import zone_of
from ..course.visibility import seen_by_learner, shown_at
from ..errors import UsageError
from ..exports.results_files import file_owners, write_atomic
from ..gradebook import store as gradebook
from ..gradebook.adjustments import extended_due_dates
from ..i18n import N_, _, current_language, speaking
from ..intake.identity import safe_student
from ..notebook.parts import assignment_labels, exercise_headings
from ..results import STATUS_WORDS, StudentResult, SubmissionStatus
from .course_info import course_info
from .feedback_view import ADJUSTED, feedback_view, short_label, shown_status
from .learner_setup import learner_context
from .page_templates import html_environment

TEMPLATE = "feedback.html.j2"
STATUS_TEXT = {**STATUS_WORDS, ADJUSTED: N_("adjusted by the instructor")}


def write_feedback(
    loaded: LoadedCourse, assignment: str, db_url: str, out: Path, language: str | None = None
) -> list[Path]:
    """Write ``out/<student>.html`` for every graded student of ``assignment``; return the paths.

    Each page speaks ``language`` when it is given (one of the course's); otherwise the
    language of the notebook its learner handed in (the one it was released in), else the
    course's first: the course's texts, the explanations in each feedback and the page's
    own words. The pages are written a student at a time, as the gradebook is read.
    """
    languages = LearnerLanguages(loaded, assignment, forced=language)
    results = gradebook.class_results(db_url, loaded.course.id, assignment, loaded.renamed)
    if not results.count:
        raise UsageError(
            f"nothing graded for {assignment} in the gradebook yet (run `graders autograde "
            f"{assignment} ...` first)"
        )
    _remove_dropped(results.dropped, out)
    # What learners may see today: an extension keeps the key back until its own cutoff.
    with gradebook.open_gradebook(db_url).connect() as conn:
        extended = extended_due_dates(conn, loaded.course.id, assignment)
    visible = shown_at(get_assignment(loaded, assignment), extended=extended)
    # One page per name, whatever the disk's case (Alice.html and alice.html are one file).
    owners = file_owners(results)
    pages = _Pages(languages, visible, out)
    written = []
    for student in results.students():
        if student.student not in owners:
            continue  # such a folder was never graded; its name must not become a path
        if student.status is SubmissionStatus.MISSING:
            continue  # nothing was handed in: there is nothing to give feedback on
        written.append(pages.write(student))
    return sorted(written)


class _Pages:
    """Writes pages in each learner's language, each language's template and course texts
    made once."""

    def __init__(self, languages: LearnerLanguages, visible: Shown, out: Path) -> None:
        self.languages, self.visible, self.out = languages, visible, out
        self._courses: dict[str, dict[str, Any]] = {}
        self._template = html_environment().get_template(TEMPLATE)

    def write(self, student: StudentResult) -> Path:
        """``student``'s page, in their language."""
        spoken = self.languages.language_of(student)
        path = self.out / f"{student.student}.html"
        with speaking(spoken):
            context = feedback_context(self.languages, student, self.visible, self._course(spoken))
            write_atomic(path, self._template.render(context))
        return path

    def _course(self, spoken: str) -> dict[str, Any]:
        if spoken not in self._courses:
            shown = self.languages.course_in(spoken)
            self._courses[spoken] = _course_context(shown, self.languages.assignment)
        return self._courses[spoken]


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
    result = languages.result_in(seen_by_learner(student, visible), spoken)
    return page_context(result, context)


def _remove_dropped(dropped: tuple[str, ...], out: Path) -> None:
    """A dropped student's page from an earlier run goes: no output shows their grade."""
    for student in dropped:
        if safe_student(student):
            (out / f"{student}.html").unlink(missing_ok=True)


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
