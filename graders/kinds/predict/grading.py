"""Grading one prediction: parse the learner's literal, compare it with torch's truth.

A wrong answer that matches a declared misconception gets that misconception's name and
explanation first; the author's explanation always follows, then the comparison's
one-sentence feedback, then how Python spells what the learner wrote another way
(``true``, ``Runtime Error``), then any note about the answer cell itself. An answer that
cannot be read gets the reason, then the explanation.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ...answers.compare import compare, same_value
from ...answers.parse import AnswerSyntaxError, ReadAnswer, read_answer
from ...answers.values import Value
from ...results import QuestionResult, Status
from ..base import ExerciseAnswers
from .model import Misconception, Question
from .truth import Truths

UNANSWERED = ("", "...", "Ellipsis")
NO_TRUTH = (
    "This question could not be graded: its answer could not be computed. "
    "Your instructor has been told."
)


@lru_cache(maxsize=8192)
def parsed(text: str) -> ReadAnswer:
    """``read_answer``, once per distinct text: a class writes the same answers many times.

    Values are frozen and never changed by comparing, so one may serve every student.
    """
    return read_answer(text)


def grade_question(
    exercise_id: str, q: Question, truths: Truths, given: ExerciseAnswers
) -> QuestionResult:
    """The result of one question for one submission."""
    item_id = f"{exercise_id}/{q.id}"
    text = given.answers.get(item_id)
    note = given.note(item_id)
    truth = truths.questions.get(q.id)
    if truth is None:
        return QuestionResult(
            item_id, Status.ERROR, 0.0, q.points, text, feedback=join(NO_TRUTH, note)
        )
    missed = QuestionResult(item_id, Status.UNANSWERED, 0.0, q.points, text, truth.literal)
    if text is None or text.strip() in UNANSWERED:
        return _with(missed, Status.UNANSWERED, q.explain, note)
    try:
        read = parsed(text)
    except AnswerSyntaxError as exc:
        return _with(missed, Status.INVALID, str(exc), q.explain, note)
    right = QuestionResult(item_id, Status.CORRECT, q.points, q.points, text, truth.literal)
    return _judged(right, q, truth.value, read, note)


def _judged(
    right: QuestionResult, q: Question, truth: Value, read: ReadAnswer, note: str
) -> QuestionResult:
    """``right`` when the answer says what torch gave (or what the question also accepts),
    else the same result marked wrong; either way with its feedback."""
    spelling = "\n".join(read.notes)
    verdict = compare(read.value, truth)
    if verdict.correct:
        return replace(right, feedback=join(q.explain, spelling, note))
    accepted = next((a for a in q.accept if _same(a, read.value)), None)
    if accepted is not None:
        also = f"Accepted: the question takes `{accepted}` as well as `{right.expected}`."
        return replace(right, feedback=join(q.explain, also, spelling, note))
    matched = misconception(q, read.value)
    feedback = join(matched.explain if matched else "", q.explain, verdict.feedback, spelling, note)
    return replace(
        right,
        status=Status.WRONG,
        points=0.0,
        feedback=feedback,
        misconception=matched.name if matched else None,
    )


def misconception(q: Question, answer: Value) -> Misconception | None:
    """The first declared misconception the answer matches."""
    return next((m for m in q.misconceptions if _same(m.answer, answer)), None)


def _same(literal: str, answer: Value) -> bool:
    """Does ``answer`` say what the author's ``literal`` says?"""
    try:
        return same_value(parsed(literal).value, answer)
    except AnswerSyntaxError:
        return False  # reported by validate; never blocks grading


def _with(result: QuestionResult, status: Status, *feedback: str) -> QuestionResult:
    return QuestionResult(
        result.id, status, 0.0, result.max_points, result.answer, result.expected, join(*feedback)
    )


def join(*parts: str) -> str:
    """Feedback paragraphs, blank ones left out."""
    return "\n".join(p.strip() for p in parts if p and p.strip())
