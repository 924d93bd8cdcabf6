"""Grading one prediction: parse the learner's literal, compare it with torch's truth.

Answers are compared by the question's rules (``Question.rules``): by value, unless its
``strict:`` says its lesson is the type. A wrong answer that matches a declared
misconception gets that misconception's name and explanation first; the author's
explanation always follows, then the comparison's one-sentence feedback (for an answer
right by value only, how torch prints it; for one refused for its type alone, that the
question is about the type), then how Python spells what the learner wrote another way
(``true``, ``Runtime Error``, full-width punctuation), then any note about the answer cell
itself. An answer that cannot be read gets the reason, then the explanation; so does one
that is read but answers nothing (``answers.answerable``: a bare word such as ``maybe``, a
yes/no where the answer is what happens), unless it earns the points. ``explain``
is what a learner reads while the key is held back: the same feedback without anything
computed from the truth (the comparison, the expected answer, that a value refused for
its type is right) and, for an answer that is not right, without the author's explanation
of the question, which may state the answer (unless the question says it does not:
``explain_before_due``); a sentence says it comes with the key.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from ...answers.answerable import not_an_answer
from ...answers.compare import compare, same_value
from ...answers.judging import BY_VALUE
from ...answers.parse import AnswerSyntaxError, ReadAnswer, read_answer
from ...answers.values import Value
from ...i18n import N_, current_language
from ...results import QuestionResult, Status
from ...said import Said, Told, authored, paragraphs, say, told
from ..base import ExerciseAnswers
from .model import Misconception, Question
from .truth import Truths

UNANSWERED = ("", "...", "Ellipsis")
NO_TRUTH = N_(
    "This question could not be graded: its answer could not be computed. "
    "Your instructor has been told."
)

HELD_BACK = N_("The explanation of this question comes with the expected answer.")

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


@dataclass(frozen=True)
class Asked:
    """A question as graded: itself, and where its texts are in its exercise (for feedback
    to name the author's texts, which a page shows in its reader's language)."""

    exercise: str
    index: int
    q: Question

    @property
    def explain(self) -> Said:
        """The author's explanation of the question."""
        return authored(self.exercise, ("questions", self.index, "explain"), self.q.explain)

    def told(self, m: Misconception) -> Said:
        """The author's explanation of the misconception ``m`` of the question."""
        where = ("questions", self.index, "misconceptions", self.q.misconceptions.index(m))
        return authored(self.exercise, (*where, "explain"), m.explain)


def grade_question(
    exercise_id: str, q: Question, truths: Truths, given: ExerciseAnswers, index: int = 0
) -> QuestionResult:
    """The result of one question (the ``index``-th of its exercise) for one submission."""
    item_id = f"{exercise_id}/{q.id}"
    asked = Asked(exercise_id, index, q)
    text = given.answers.get(item_id)
    note = given.note(item_id)
    truth = truths.questions.get(q.id)
    if truth is None:
        said = paragraphs(say(NO_TRUTH), note)
        return QuestionResult(
            item_id, Status.ERROR, 0.0, q.points, text, feedback=said, explain=said
        )
    missed = QuestionResult(item_id, Status.UNANSWERED, 0.0, q.points, text, truth.literal)
    if given.problem(item_id):
        return _missed(missed, Status.INVALID, asked, given.problem(item_id), note)
    if text is None or text.strip() in UNANSWERED:
        return _missed(missed, Status.UNANSWERED, asked, "", note)
    try:
        read = parsed(text)
    except AnswerSyntaxError as exc:
        return _missed(missed, Status.INVALID, asked, told(exc), note)
    right = QuestionResult(item_id, Status.CORRECT, q.points, q.points, text, truth.literal)
    judged = _judged(right, asked, truth.value, read, note)
    outcome = q.run is not None  # the question asks what happens: an error, or none
    unread = None
    if judged.status is not Status.CORRECT:
        unread = not_an_answer(read.value, truth.value, outcome=outcome)
    if unread is not None:
        # A bare word, or a yes/no where the answer is what happens: not an answer, so not
        # wrong (the question's accept list and the comparison came first: never fewer points).
        return _missed(missed, Status.INVALID, asked, told(AnswerSyntaxError(unread)), note)
    return judged


def _judged(
    right: QuestionResult, asked: Asked, truth: Value, read: ReadAnswer, note: Told
) -> QuestionResult:
    """``right`` when the answer says what torch gave (or what the question also accepts),
    else the same result marked wrong; either way with its feedback."""
    q = asked.q
    spelling = paragraphs(*read.notes)
    verdict = compare(read.value, truth, q.rules)
    if verdict.correct:
        # Right by value: how torch prints it, from the learner's own values (not the truth's).
        by_value = verdict.feedback if verdict.by_value else ""
        said = paragraphs(asked.explain, by_value, spelling, note)
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
            feedback=paragraphs(asked.explain, also, spelling, note),
            explain=paragraphs(asked.explain, taken, spelling, note),
        )
    matched = misconception(q, read.value)
    why = asked.told(matched) if matched else ""
    # The comparison ("got X, expected Y") shows the truth: it is left out of `explain`.
    kept = _kept(q, read.value, truth)
    return replace(
        right,
        status=Status.WRONG,
        points=0.0,
        feedback=paragraphs(why, asked.explain, verdict.feedback, kept, spelling, note),
        misconception=matched.name if matched else None,
        explain=paragraphs(why, before_due(asked), spelling, note),
    )


def before_due(asked: Asked) -> Said:
    """The author's explanation as a learner who missed a question reads it while the key
    is held back: itself when the author says it gives nothing away, else that it will come."""
    return asked.explain if asked.q.explain_before_due else say(HELD_BACK)


def misconception(q: Question, answer: Value) -> Misconception | None:
    """The first declared misconception the answer matches."""
    return next((m for m in q.misconceptions if _same(m.answer, answer, q)), None)


def _same(literal: str, answer: Value, q: Question) -> bool:
    """Does ``answer`` say what the author's ``literal`` says (by ``q``'s rules)?"""
    try:
        return same_value(parsed(literal).value, answer, q.rules)
    except AnswerSyntaxError:
        return False  # reported by validate; never blocks grading


def _kept(q: Question, answer: Value, truth: Value) -> Told:
    """For an answer right by value on a question whose lesson is the type: which one."""
    if not q.strict or not compare(answer, truth, BY_VALUE).correct:
        return ""
    by_dtype = compare(answer, truth, replace(q.rules, dtype=False)).correct
    return say(KEPT_DTYPE if by_dtype else KEPT_TYPE)


def _missed(
    result: QuestionResult, status: Status, asked: Asked, reason: Told, note: Told
) -> QuestionResult:
    """Unanswered, or not an answer: why (about the learner's text alone), the explanation."""
    return QuestionResult(
        result.id,
        status,
        0.0,
        result.max_points,
        result.answer,
        result.expected,
        paragraphs(reason, asked.explain, note),
        explain=paragraphs(reason, before_due(asked), note),
    )
