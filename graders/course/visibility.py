"""What a learner may see of a grade, and when: the one rule every learner-facing output follows.

    shown = shown_at(assignment, now)       # Shown.CHECKS until the assignment closes
    view = seen_by_learner(result, shown)   # what a feedback page, a CI log, a job summary show

An assignment's ``feedback`` (course.yml) says what is shown before it closes and after:

    feedback: {before_due: checks, after_due: full}     # the default

``score`` shows each question's points; ``checks`` adds its status, the misconception the
answer matches and what was said about the answer without the key (``explain``: the
author's explanation of a question answered right, or marked safe to read before the key);
``full`` adds the expected answer, the comparison ("got X, expected Y") and every
explanation. A crash (an error, a timeout, tampering) is about the learner's code, never
the key: ``checks`` shows what was said of it whole, so the learner knows what to fix.

The assignment *closes* when the last submission that still counts may come in: its due
date, plus the late policy's cutoff, or the latest due date an extension gave a learner,
plus that cutoff. Until then, a key shown to one learner could reach another who has yet
to submit.

Gradescope hides and shows tests by itself; ``gradescope_visibility`` gives its ``visibility``
value for content of a level, so that its results hold both views at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from ..results import CRASHED, QuestionResult, ResultsDocument, StudentResult
from ..said import Text
from .model import Assignment, FeedbackPolicy, Shown


def closes(assignment: Assignment, extended: Iterable[datetime] = ()) -> datetime:
    """When the last submission that still counts may come in: the due date plus the late
    cutoff, or the latest of the ``extended`` due dates (students' own) plus that cutoff."""
    last = max([assignment.due, *extended])
    return last + timedelta(days=assignment.late.cutoff_days)


def shown_at(
    assignment: Assignment, now: datetime | None = None, extended: Iterable[datetime] = ()
) -> Shown:
    """What learners may see of their grades of ``assignment`` at ``now`` (default: now),
    ``extended`` being the due dates extensions gave some of them."""
    moment = now or datetime.now(UTC)
    policy = assignment.feedback
    return policy.after_due if moment >= closes(assignment, extended) else policy.before_due


def seen_by_learner(result: StudentResult, shown: Shown) -> StudentResult:
    """``result`` with nothing a learner may not see yet (points and status stay)."""
    if shown is Shown.FULL:
        return result
    return replace(result, questions=tuple(question_for(q, shown) for q in result.questions))


def question_for(q: QuestionResult, shown: Shown) -> QuestionResult:
    """One question as a learner may see it."""
    if shown is Shown.FULL:
        return q
    if shown is Shown.CHECKS:
        # A result written before `explain` existed shows no feedback rather than the truth.
        feedback = q.feedback if q.status in CRASHED else q.explain or Text()
        return replace(q, expected=None, feedback=feedback)
    return replace(q, expected=None, feedback=Text(), explain=None, misconception=None)


def document_for(doc: ResultsDocument, shown: Shown) -> ResultsDocument:
    """Every student of ``doc`` as ``seen_by_learner`` gives them."""
    return replace(doc, students=tuple(seen_by_learner(s, shown) for s in doc.students))


def gradescope_visibility(policy: FeedbackPolicy, level: Shown) -> str:
    """Gradescope's ``visibility`` for content of ``level``: ``visible``, ``after_due_date``
    (shown once the due date has passed), or ``hidden`` (the instructor's alone)."""
    if level.rank <= policy.before_due.rank:
        return "visible"
    return "after_due_date" if level.rank <= policy.after_due.rank else "hidden"
