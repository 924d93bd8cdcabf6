"""Grading one prediction: parse the learner's literal, compare it with torch's truth.

Answers are compared by the question's rules (``Question.rules``): by value, unless its
``strict:`` says its lesson is the type. A wrong answer that matches a declared
misconception gets that misconception's name and explanation first; the author's
explanation always follows, then the comparison's one-sentence feedback (for an answer
right by value only, how torch prints it; for one refused for its type alone, that the
question is about the type), then how Python spells what the learner wrote another way
(``true``, ``Runtime Error``, full-width punctuation), then any note about the answer cell
itself. An answer that cannot be read gets the reason, then the explanation. ``explain``
is the same feedback without anything computed from the truth (the comparison, the
expected answer, that a value refused for its type is right).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ...answers.compare import compare, same_value
from ...answers.judging import BY_VALUE
from ...answers.parse import AnswerSyntaxError, ReadAnswer, read_answer
from ...answers.values import Value
from ...i18n import N_, current_language
from ...results import QuestionResult, Status
from ...said import say
from ..base import ExerciseAnswers
from .model import Misconception, Question
from .truth import Truths

UNANSWERED = ("", "...", "Ellipsis")
NO_TRUTH = N_(
    "This question could not be graded: its answer could not be computed. "
    "Your instructor has been told."
)

KEPT_DTYPE = N_(
    "The value is right, but this question is about the dtype: write it as torch prints it "
    "(here an int is not a float)."
)
KEPT_TYPE = N_(
    "The value is right, but this question is about the type: write it as torch prints it "
    "(here a list or a number is not a tensor, and a tensor is not a number)."
)


def parsed(text: str) -> ReadAnswer:
    """``read_answer``, once per distinct text (and language, as its notes are words): a
    class writes the same answers many times.

    Values are frozen and never changed by comparing, so one may serve every student.
    """
    return _parsed(text, current_language())


@lru_cache(maxsize=8192)
def _parsed(text: str, language: str) -> ReadAnswer:
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
        said = join(say(NO_TRUTH), note)
        return QuestionResult(
            item_id, Status.ERROR, 0.0, q.points, text, feedback=said, explain=said
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
    verdict = compare(read.value, truth, q.rules)
    if verdict.correct:
        # Right by value: how torch prints it, from the learner's own values (not the truth's).
        said = join(q.explain, verdict.feedback if verdict.by_value else "", spelling, note)
        return replace(right, feedback=said, explain=said)
    accepted = next((a for a in q.accept if _same(a, read.value, q)), None)
    if accepted is not None:
        # "as well as `expected`" names the truth: `explain` says only what was accepted.
        also = say(
            "Accepted: the question takes `{accepted}` as well as `{expected}`.",
            accepted=accepted,
            expected=right.expected,
        )
        taken = say(
            "Accepted: `{accepted}` is one of the answers the question takes.", accepted=accepted
        )
        return replace(
            right,
            feedback=join(q.explain, also, spelling, note),
            explain=join(q.explain, taken, spelling, note),
        )
    matched = misconception(q, read.value)
    told = matched.explain if matched else ""
    # The comparison ("got X, expected Y") shows the truth: it is left out of `explain`.
    return replace(
        right,
        status=Status.WRONG,
        points=0.0,
        feedback=join(
            told, q.explain, verdict.feedback, _kept(q, read.value, truth), spelling, note
        ),
        misconception=matched.name if matched else None,
        explain=join(told, q.explain, spelling, note),
    )


def misconception(q: Question, answer: Value) -> Misconception | None:
    """The first declared misconception the answer matches."""
    return next((m for m in q.misconceptions if _same(m.answer, answer, q)), None)


def _same(literal: str, answer: Value, q: Question) -> bool:
    """Does ``answer`` say what the author's ``literal`` says (by ``q``'s rules)?"""
    try:
        return same_value(parsed(literal).value, answer, q.rules)
    except AnswerSyntaxError:
        return False  # reported by validate; never blocks grading


def _kept(q: Question, answer: Value, truth: Value) -> str:
    """For an answer right by value on a question whose lesson is the type: which one."""
    if not q.strict or not compare(answer, truth, BY_VALUE).correct:
        return ""
    by_dtype = compare(answer, truth, replace(q.rules, dtype=False)).correct
    return say(KEPT_DTYPE if by_dtype else KEPT_TYPE)


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
