"""Grading one prediction: parse the learner's literal, compare it with torch's truth.

A wrong answer that matches a declared misconception gets that misconception's name and
explanation first; the author's explanation always follows, then the comparison's
one-sentence feedback, then any note about the answer cell itself.
"""

from __future__ import annotations

from functools import lru_cache

from ...answers.compare import compare, same_value
from ...answers.parse import AnswerSyntaxError, parse_answer
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
def parsed(text: str) -> Value:
    """``parse_answer``, once per distinct text: a class writes the same answers many times.

    Values are frozen and never changed by comparing, so one may serve every student.
    """
    return parse_answer(text)


def grade_question(
    exercise_id: str, q: Question, truths: Truths, given: ExerciseAnswers
) -> QuestionResult:
    """The result of one question for one submission."""
    item_id = f"{exercise_id}/{q.id}"
    text = given.answers.get(item_id)
    note = given.note(item_id)
    truth = truths.questions.get(q.id)
    if truth is None:
        said = join(NO_TRUTH, note)
        return QuestionResult(
            item_id, Status.ERROR, 0.0, q.points, text, feedback=said, explain=said
        )
    missed = QuestionResult(item_id, Status.UNANSWERED, 0.0, q.points, text, truth.literal)
    if text is None or text.strip() in UNANSWERED:
        return _with(missed, Status.UNANSWERED, q.explain, note)
    try:
        answer = parsed(text)
    except AnswerSyntaxError as exc:
        return _with(missed, Status.INVALID, str(exc), note)
    verdict = compare(answer, truth.value)
    if verdict.correct:
        said = join(q.explain, note)
        return QuestionResult(
            item_id, Status.CORRECT, q.points, q.points, text, truth.literal, said, explain=said
        )
    matched = misconception(q, answer)
    # The comparison ("got X, expected Y") shows the truth: it is left out of `explain`.
    feedback = join(matched.explain if matched else "", q.explain, verdict.feedback, note)
    said = join(matched.explain if matched else "", q.explain, note)
    name = matched.name if matched else None
    return QuestionResult(
        item_id, Status.WRONG, 0.0, q.points, text, truth.literal, feedback, name, explain=said
    )


def misconception(q: Question, answer: Value) -> Misconception | None:
    """The first declared misconception the answer matches."""
    for m in q.misconceptions:
        try:
            if same_value(parsed(m.answer), answer):
                return m
        except AnswerSyntaxError:
            continue  # reported by validate; never blocks grading
    return None


def _with(result: QuestionResult, status: Status, *feedback: str) -> QuestionResult:
    said = join(*feedback)  # about the learner's answer alone, never the truth
    return QuestionResult(
        result.id,
        status,
        0.0,
        result.max_points,
        result.answer,
        result.expected,
        said,
        explain=said,
    )


def join(*parts: str) -> str:
    """Feedback paragraphs, blank ones left out."""
    return "\n".join(p.strip() for p in parts if p and p.strip())
