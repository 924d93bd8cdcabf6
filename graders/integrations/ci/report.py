"""What a CI job says about one graded notebook: log lines, a job summary, the outcome.

Every text about a question is the one the Gradescope export writes (verdict,
misconception, the author's explanation), so a learner reads the same feedback in a
GitHub log, a pytest failure and on Gradescope. Each of them shows what the assignment's
feedback policy lets learners see at the time (``course.visibility``): ``learner_view``
is the document they are made from. They speak the language spoken (``i18n.speaking``),
with the learner's results already in it (``course.learner_language``); the last line,
``graders: SCORE/MAX points``, is the same in every language, for scripts to read.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum
from pathlib import Path

from ...course.model import Assignment, Shown
from ...course.times import time_text
from ...course.visibility import closes, document_for, shown_at
from ...exports.gradescope_results import gradescope_result, question_text
from ...exports.junit import Family, junit_xml
from ...exports.results_files import write_atomic
from ...exports.status_names import status_name
from ...i18n import _
from ...results import (
    NOT_GRADED,
    ResultsDocument,
    StudentResult,
    format_points,
    lines_alike,
    without_lines,
)

Labels = Mapping[str, str]
MARK = {"correct": "✓", "wrong": "✗", "unanswered": "–", "invalid": "?"}  # anything else: "!"


class CiExit(IntEnum):
    """Exit codes of ``graders ci``."""

    PASSED = 0  # graded, and the score reaches the minimum
    BELOW = 1  # graded, below the minimum
    UNGRADABLE = 2  # the notebook could not be graded (usage errors exit 2 as well)


@dataclass(frozen=True)
class Threshold:
    """``--min-score``: points (``7.5``) or a share of the maximum (``70%``)."""

    value: float
    percent: bool = False

    @classmethod
    def parse(cls, text: str) -> Threshold:
        """``"7.5"`` or ``"70%"``; ``ValueError`` for anything else."""
        number = text.strip().removesuffix("%")
        value = float(number)
        if not value >= 0 or value == float("inf"):
            raise ValueError(f"not a score: {text!r}")
        return cls(value, text.strip().endswith("%"))

    def points(self, max_score: float) -> float:
        """The minimum in points for an assignment worth ``max_score``."""
        return max_score * self.value / 100 if self.percent else self.value

    def __str__(self) -> str:
        return f"{self.value:g}%" if self.percent else f"{self.value:g}"


def student_of(doc: ResultsDocument) -> StudentResult:
    """The one student of a CI results document."""
    return doc.students[0]


def outcome(doc: ResultsDocument, minimum: Threshold | None) -> CiExit:
    """Passed, below the minimum, or ungradable."""
    s = student_of(doc)
    if s.status in NOT_GRADED:
        return CiExit.UNGRADABLE
    if minimum is not None and round(s.score, 4) + 1e-9 < minimum.points(round(s.max_score, 4)):
        return CiExit.BELOW
    return CiExit.PASSED


def score_line(score: float, max_score: float) -> str:
    """``graders: 7/11 points``: the last line of every CI output, easy to grep (and so
    never translated)."""
    return f"graders: {format_points(score)}/{format_points(max_score)} points"


def feedback_texts(s: StudentResult, labels: Labels | None = None) -> dict[str, str]:
    """Question id -> what the learner reads about it (the Gradescope export's text), each
    misconception by its label in ``labels``."""
    return {q.id: question_text(q, labels=labels) for q in s.questions}


def missed_texts(s: StudentResult, labels: Labels | None = None) -> dict[str, str]:
    """``feedback_texts`` of the questions not passed, in order, what every missed check of
    an exercise was told alike (a crash, a timeout) said once, under the first."""
    texts = feedback_texts(s, labels)
    missed: dict[str, list[str]] = {}
    for q in s.questions:
        if not q.passed:
            missed.setdefault(q.exercise, []).append(q.id)
    found: dict[str, str] = {}
    for ids in missed.values():
        alike = lines_alike([texts[i] for i in ids])
        found[ids[0]] = texts[ids[0]]
        found.update((i, without_lines(texts[i], alike).strip("\n")) for i in ids[1:])
    return found


@dataclass(frozen=True)
class LearnerView:
    """A graded notebook as its learner may see it now, and what is held back until when."""

    doc: ResultsDocument
    shown: Shown
    later: Shown | None = None  # what is shown once the assignment closes, if it is more
    until: datetime | None = None  # when it closes

    def notice(self) -> str | None:
        """One line saying what is held back, or None when nothing is."""
        if self.later is None or self.until is None:
            return None
        levels = (Shown.CHECKS, Shown.FULL)
        held = [level for level in levels if self.shown.rank < level.rank <= self.later.rank]
        notice = {
            (Shown.CHECKS,): _(
                "The explanations are shown after {until}, when {assignment} closes."
            ),
            (Shown.FULL,): _(
                "The expected answers are shown after {until}, when {assignment} closes."
            ),
            (Shown.CHECKS, Shown.FULL): _(
                "The explanations and expected answers are shown after {until}, when "
                "{assignment} closes."
            ),
        }[tuple(held)]
        return notice.format(until=time_text(self.until), assignment=self.doc.assignment)


def learner_view(
    doc: ResultsDocument, assignment: Assignment, now: datetime | None = None
) -> LearnerView:
    """``doc`` with only what learners may see of ``assignment`` at ``now``."""
    shown = shown_at(assignment, now)
    after = assignment.feedback.after_due
    if after.rank <= shown.rank:
        return LearnerView(document_for(doc, shown), shown)
    return LearnerView(document_for(doc, shown), shown, after, closes(assignment))


def log_lines(
    doc: ResultsDocument,
    minimum: Threshold | None,
    notice: str | None = None,
    labels: Labels | None = None,
    names: Labels | None = None,
) -> list[str]:
    """A plain-text report for a CI log: one line per question, named as the notebook names
    it (``names``) with its id on the next line, and feedback under the misses."""
    s = student_of(doc)
    lines = [
        f"{doc.course} · {doc.assignment} · torch {doc.torch_version} · "
        + _("isolation {level}").format(level=doc.isolation or "-")
    ]
    if notice:
        lines.append(notice)
    if s.error:
        lines.append(_("could not be graded: {error}").format(error=s.error))
    texts = missed_texts(s, labels)
    for q in s.questions:
        lines.append(
            f"  {MARK.get(q.status, '!')} {(names or {}).get(q.id, q.id)}  "
            f"{format_points(q.points)}/{format_points(q.max_points)}"
        )
        if names and q.id in names:
            lines.append(f"      ({q.id})")
        if q.id in texts:
            lines += [f"      {line}" if line else "" for line in texts[q.id].splitlines()]
    return lines + [_verdict_line(doc, minimum)]


def _verdict_line(doc: ResultsDocument, minimum: Threshold | None) -> str:
    s = student_of(doc)
    line = score_line(s.score, s.max_score)
    if minimum is None:
        return line
    verdict = _("passed") if outcome(doc, minimum) is CiExit.PASSED else _("not reached")
    lowest = format_points(minimum.points(s.max_score))
    return line + " " + _("(minimum {minimum}: {verdict})").format(minimum=lowest, verdict=verdict)


def step_summary(
    doc: ResultsDocument,
    minimum: Threshold | None,
    notice: str | None = None,
    labels: Labels | None = None,
    names: Labels | None = None,
) -> str:
    """Markdown for a job summary (``$GITHUB_STEP_SUMMARY``): the score, a table, the feedback."""
    s = student_of(doc)
    out = [
        f"### {_md(doc.assignment)}: {_md(_verdict_line(doc, minimum))}",
        "",
        f"torch {_md(doc.torch_version or '-')}, "
        + _md(_("isolation {level}").format(level=doc.isolation or "-")),
        "",
    ]
    if notice:
        out += [_md(notice), ""]
    if s.error:
        out += [f"**{_md(_('Could not be graded:'))}** {_md(str(s.error))}", ""]
    if s.questions:
        out += [f"| | {_md(_('question'))} | {_md(_('points'))} |", "|---|---|---|"]
        out += [
            f"| {MARK.get(q.status, '!')} | {_named(q.id, names)} | "
            f"{format_points(q.points)}/{format_points(q.max_points)} |"
            for q in s.questions
        ]
    texts = missed_texts(s, labels)
    for q in s.questions:
        if texts.get(q.id):
            body = "<br>".join(_md(line) for line in texts[q.id].splitlines())
            out += [
                "",
                f"<details><summary>{_md((names or {}).get(q.id, q.id))}: "
                f"{_md(status_name(q.status.value))}</summary>",
                "",
                body,
                "",
                "</details>",
            ]
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Reports:
    """Which reports to write (None: not that one)."""

    json_path: Path | None = None
    junit: Path | None = None
    junit_family: Family = "xunit2"
    gradescope: Path | None = None
    summary: Path | None = None
    execution_time: float | None = None  # seconds, for Gradescope
    labels: Labels | None = None  # misconception name -> what the learner reads for it
    names: Labels | None = None  # item id -> how the notebook names it


def write_reports(
    doc: ResultsDocument, minimum: Threshold | None, assignment: Assignment, reports: Reports
) -> LearnerView:
    """Write each report asked for, and return the view they were made from.

    Every report shows what learners may see now, except Gradescope's, which holds each
    view with the ``visibility`` that shows it when the policy allows. The job summary is
    appended to, as GitHub expects.
    """
    view = learner_view(doc, assignment)
    if reports.json_path is not None:
        write_atomic(reports.json_path, view.doc.dumps() + "\n")
    if reports.junit is not None:
        write_atomic(reports.junit, junit_xml(view.doc, reports.junit_family))
    if reports.gradescope is not None:
        result = gradescope_result(
            student_of(doc),
            assignment.feedback,
            reports.execution_time,
            reports.labels,
            reports.names,
        )
        write_atomic(reports.gradescope, json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    if reports.summary is not None:
        with reports.summary.open("a", encoding="utf-8") as handle:
            handle.write(
                step_summary(view.doc, minimum, view.notice(), reports.labels, reports.names)
            )
    return view


def _named(item_id: str, names: Labels | None) -> str:
    """A question as the notebook names it, its id below (Markdown table cell)."""
    if not names or item_id not in names:
        return _md(item_id)
    return f"{_md(names[item_id])}<br>{_md(item_id)}"


def _md(text: str) -> str:
    # A learner's answer ends up here: no HTML, no table breaks, no links or images.
    return re.sub(r"([|\[\]`*_\\])", r"\\\1", html.escape(str(text), quote=False))
