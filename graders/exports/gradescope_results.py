"""One student's results in Gradescope's autograder format (``results.json``).

    gradescope_result(student, policy, execution_time=2.5)

Gradescope shows and hides tests by itself (``visibility``), so the results hold every
view the assignment's feedback policy allows, each at the moment it allows it: one scored
test per question with what learners see before the due date (``visible``), then, where
the policy shows more later, an unscored test with that view (``after_due_date``), and an
unscored test with the expected answer for the instructor when learners never see it
(``hidden``). Outputs are Markdown (``output_format: "md"``): the course's texts use
backticks, and a learner's answer is shown as code, never as Markdown of its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..course.model import FeedbackPolicy, Shown, read_as
from ..course.visibility import gradescope_visibility, question_for
from ..i18n import N_, _
from ..results import QuestionResult, StudentResult, SubmissionStatus, format_points
from .junit import verdict

MARKDOWN = "md"
LABEL = {Shown.CHECKS: N_("explanation"), Shown.FULL: N_("expected answer")}


def gradescope_result(
    s: StudentResult,
    policy: FeedbackPolicy | None = None,
    execution_time: float | None = None,
    labels: Mapping[str, str] | None = None,
    names: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ``results.json`` Gradescope reads for one submission, in the language spoken
    (``i18n.speaking``; ``s`` already in it: ``course.learner_language``), misconceptions
    named by their ``labels`` in it, each test by the notebook's name of its question
    (``names``: ``Question 1.3 — ...``) with the question's id as its output's first line."""
    policy = policy or FeedbackPolicy()
    named = names or {}
    result: dict[str, Any] = {
        "score": round(s.score, 4),
        "output": summary(s),
        "output_format": MARKDOWN,
        "visibility": "visible",
        # graders' own log names the grading machine's isolation: the instructor's to read.
        "stdout_visibility": "hidden",
        "tests": [
            test
            for i, q in enumerate(s.questions, 1)
            for test in _tests(i, q, policy, labels, named.get(q.id, q.id))
        ],
    }
    if execution_time is not None:
        result["execution_time"] = max(0, round(execution_time))
    return result


def refused_result(reason: str) -> dict[str, Any]:
    """The ``results.json`` of a submission graders would not grade at all (its learner in
    no row of the roster, no notebook uploaded): no score, and why, for the learner and
    their instructor to read."""
    return {
        "score": 0,
        "output": f"**{_('The submission could not be graded.')}**\n\n{reason}",
        "output_format": MARKDOWN,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [],
    }


def summary(s: StudentResult) -> str:
    """The top of the results page: the score, how the questions went, why points were lost."""
    score = _("Score: {score} / {max_score}").format(
        score=format_points(s.score), max_score=format_points(s.max_score)
    )
    lines = [f"**{score}**"]
    if s.status is not SubmissionStatus.GRADED:
        lines += ["", str(s.error or _("The submission could not be graded."))]
    elif s.questions:
        right = sum(q.full_marks for q in s.questions)
        full = _("{right} of {count} questions and checks earned full marks.")
        lines += ["", full.format(right=right, count=len(s.questions))]
    if s.late_factor < 1 and s.status is SubmissionStatus.GRADED:
        late = _("Late penalty: the score is multiplied by {factor}.")
        lines += ["", late.format(factor=f"{s.late_factor:g}")]
    return "\n".join(lines)


def _tests(
    number: int,
    q: QuestionResult,
    policy: FeedbackPolicy,
    labels: Mapping[str, str] | None,
    name: str,
) -> list[dict[str, Any]]:
    first = policy.before_due
    tests = [_test(q, first, labels, name) | _scored(number, q)]
    later = [policy.after_due] if policy.after_due is not first else []
    if Shown.FULL not in (first, policy.after_due):
        later.append(Shown.FULL)
    for level in later:
        extra = _test(q, level, labels, name)
        extra["name"] = f"{name}: {_(LABEL[level]) if level in LABEL else level.value}"
        extra["visibility"] = gradescope_visibility(policy, level)
        tests.append(extra)
    return tests


def _test(
    q: QuestionResult, level: Shown, labels: Mapping[str, str] | None, name: str
) -> dict[str, Any]:
    text = question_text(question_for(q, level), markdown=True, labels=labels)
    test: dict[str, Any] = {
        "name": name,
        "status": "passed" if q.full_marks else "failed",
        # The question's id, for the instructor, under the name the learner knows it by.
        "output": code_span(q.id) + (f"\n\n{text}" if text else ""),
        "output_format": MARKDOWN,
        "visibility": "visible",
        "tags": [q.section] if q.section else [],
    }
    return test


def _scored(number: int, q: QuestionResult) -> dict[str, Any]:
    return {"number": str(number), "score": round(q.points, 4), "max_score": round(q.max_points, 4)}


def question_text(
    q: QuestionResult, *, markdown: bool = False, labels: Mapping[str, str] | None = None
) -> str:
    """What a learner reads about one question: the verdict, the misconception (by its
    label in ``labels``, else its name), the feedback.

    With ``markdown``, the learner's answer and the expected one are code spans.
    """
    if q.full_marks:
        lines = []
    elif markdown:
        lines = [verdict(q, quote=code_span, stress=lambda status: f"**{status}**")]
    else:
        lines = [verdict(q)]
    if q.misconception:
        matches = _("This answer matches a common misconception: {name}.")
        lines.append(matches.format(name=read_as(q.misconception, labels or {})))
    if q.feedback:
        lines += ["", str(q.feedback)] if lines else [str(q.feedback)]
    if q.override is not None:  # as the feedback page says it
        adjusted = _(
            "Adjusted by the instructor: {reason} ({points} / {max_points} points)"
        ).format(
            reason=q.override.reason,
            points=format_points(q.points),
            max_points=format_points(q.max_points),
        )
        lines += ["", adjusted] if lines else [adjusted]
    return "\n".join(lines)


def code_span(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"
