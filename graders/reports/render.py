"""Render class reports as single self-contained HTML files (inline CSS, SVG and script).

The page never loads anything: no fonts, images, stylesheets or scripts from elsewhere,
and its Content-Security-Policy forbids it, so a report mailed to a colleague or opened
offline looks the same. Every value from a results document is escaped by Jinja2.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from jinja2 import Environment

from ..exports.results_files import write_atomic
from ..exports.status_names import status_name
from ..i18n import current_language
from ..kinds.notebook_side import points_text
from .aggregate import QUESTION_STATUSES
from .charts import share_bar, stacked_bar
from .items import MIN_ANSWERS
from .model import AssignmentReport
from .page_templates import html_environment
from .summary import CourseSummary

STATUS_MARKS = {
    "correct": "✓",
    "wrong": "✗",
    "invalid": "?",
    "unanswered": "–",
    "error": "!",
    "timeout": "⏱",
    "integrity": "⚠",
}


def environment() -> Environment:
    """The Jinja2 environment of the report templates, with the report's filters."""
    env = html_environment()
    env.filters.update(
        pct=percent,
        anchor=section_anchor,
        slug=slug,
        quoted=quoted,
        status_name=status_name,
    )
    env.globals.update(
        statuses=QUESTION_STATUSES,
        marks=STATUS_MARKS,
        stacked_bar=stacked_bar,
        share_bar=share_bar,
        zip=zip,
        points_text=points_text,
    )
    return env


def render_page(template: str, **context: Any) -> str:
    """Render one of the page templates (``assignment.html.j2``, ``course.html.j2``)."""
    return environment().get_template(template).render(lang=current_language(), **context)


def render_assignment(report: AssignmentReport) -> str:
    """The class report of one assignment, as one HTML page."""
    return "".join(assignment_pieces(report))


def assignment_pieces(report: AssignmentReport) -> Iterator[str]:
    """``render_assignment`` a piece at a time, as Jinja2 makes it: a page of any class is
    written as its students are read, never held."""
    template = environment().get_template("assignment.html.j2")
    return template.generate(
        lang=current_language(),
        r=report,
        course_title=report.course_title,
        min_answers=MIN_ANSWERS,
    )


def render_course(summary: CourseSummary, links: Mapping[str, str] | None = None) -> str:
    """The course summary, as one HTML page; ``links`` maps assignments to their reports."""
    return render_page(
        "course.html.j2", c=summary, links=links or {}, course_title=summary.course_title
    )


def write_page(html: str | Iterable[str], out: Path) -> Path:
    """Write a rendered page (or its pieces) atomically, creating its folder; return the path
    written."""
    write_atomic(out, html)
    return out


def percent(share: float | None) -> str:
    """0.4 -> '40%'; None -> '–'."""
    return "–" if share is None else f"{share:.0%}"


def section_anchor(section: str) -> str:
    """The id of a section's row in the report: '§1a' -> 'section-1a'."""
    return "section-" + (re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-") or "unknown")


def slug(text: str) -> str:
    """An HTML id for an item or misconception: 'ex/q' -> 'ex--q'."""
    return re.sub(r"[^a-zA-Z0-9_-]", "--", text)


def quoted(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is valid YAML)."""
    return json.dumps(text, ensure_ascii=False)
