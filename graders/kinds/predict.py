"""``kind: predict``: the learner predicts what torch gives; torch decides.

Each question has an ``expr`` (its value is the truth) or a ``run`` (its outcome is the
truth: ``no error`` or the exception class). Answers are parsed, never executed.
"""

from __future__ import annotations

import ast
from functools import cached_property, lru_cache
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator

from ..answers import AnswerSyntaxError, is_writable, parse_answer, render_answer
from ..compare import compare, same_value
from ..course_text import Text
from ..errors import Problem
from ..registry import Context, ExerciseAnswers, Item, did_you_mean, register
from ..results import QuestionResult, Status
from ..spec import SECTIONS, ExerciseBase, Ident, Strict, not_a_section
from ..truth import compute_truth
from ..values import ExceptionValue, Opaque, Value, from_json
from ..yamlsource import Marks, duplicate_ids


def _as_literal(value: Any) -> Any:
    # YAML turns `answer: False` into a bool; the learner's form of it is the text "False".
    return repr(value) if isinstance(value, (bool, int, float)) or value is None else value


AnswerText = Annotated[str, BeforeValidator(_as_literal)]
UNANSWERED = ("", "...", "Ellipsis")


class Misconception(Strict):
    """A typical wrong answer, the idea it reveals, and the explanation that targets it."""

    answer: AnswerText
    name: Ident
    explain: Text


class Question(Strict):
    """One prediction."""

    id: Ident
    prompt: Text
    expr: str | None = None
    run: str | None = None
    points: float = Field(1.0, gt=0)
    explain: Text
    misconceptions: list[Misconception] = []
    article_says: AnswerText | None = None
    section: str | None = None  # where it differs from the exercise's (a question going beyond the article)

    @model_validator(mode="after")
    def _one_of_expr_run(self) -> "Question":
        if (self.expr is None) == (self.run is None):
            raise ValueError("give exactly one of 'expr' (a value to predict) or 'run' (a statement whose outcome to predict)")
        return self


class PredictExercise(ExerciseBase):
    """An exercise file of kind ``predict``."""

    kind: Literal["predict"]
    setup: str = ""
    questions: list[Question] = Field(min_length=1)


@register
class PredictKind:
    """Grades predictions against truths computed by torch."""

    name = "predict"
    model = PredictExercise

    def check(self, exercise: PredictExercise, marks: Marks, root: Any) -> list[Problem]:
        problems = _syntax_problem(exercise.setup, "exec", marks, ("setup",))
        problems += duplicate_ids([q.id for q in exercise.questions], ("questions",), marks, "question", "id").values()
        for i, q in enumerate(exercise.questions):
            field = "expr" if q.expr is not None else "run"
            problems += _syntax_problem(q.expr or q.run or "", "eval" if q.expr is not None else "exec", marks, ("questions", i, field))
            problems += _literal_problems(q, marks, i)
            if q.section is not None and q.section not in SECTIONS:
                hint = did_you_mean(q.section, list(SECTIONS))
                problems.append(Problem(marks.at(("questions", i, "section")), f"questions[{i}].section: {not_a_section(q.section, hint)}"))
        return problems

    def items(self, exercise: PredictExercise) -> list[Item]:
        return [Item(f"{exercise.id}/{q.id}", q.points, q.prompt, q.section or exercise.section) for q in exercise.questions]

    def prepare(self, exercise: PredictExercise, ctx: Context) -> dict[str, Any]:
        questions = [{"id": q.id, "expr": q.expr} if q.expr is not None else {"id": q.id, "run": q.run} for q in exercise.questions]
        payload = {"seed": ctx.course.seed, "setup": exercise.setup, "questions": questions}
        return Truths(compute_truth(exercise.id, exercise.content_hash(), payload, ctx))

    def problems(self, exercise: PredictExercise, prepared: dict[str, Any], marks: Marks) -> list[Problem]:
        if prepared.get("error"):
            return [Problem(marks.at(("setup",)), prepared["error"])]
        if prepared.get("setup_error"):
            err = prepared["setup_error"]
            return [Problem(marks.at(("setup",)), f"setup raised {err['cls']}: {err['message']}")]
        problems = []
        for i, q in enumerate(exercise.questions):
            truth = from_json(prepared["questions"][q.id]["value"])
            broken = _broken_truth(truth)
            if broken:
                problems.append(Problem(marks.at(("questions", i, "expr" if q.expr else "run")), f"questions[{i}]: {broken}"))
        return problems

    def grade(self, exercise: PredictExercise, prepared: dict[str, Any], given: ExerciseAnswers, ctx: Context) -> list[QuestionResult]:
        return [_grade_question(exercise.id, q, prepared, given) for q in exercise.questions]

    def key(self, exercise: PredictExercise, prepared: dict[str, Any]) -> dict[str, str]:
        found = {q.id: _truth(prepared, q.id) for q in exercise.questions}
        return {f"{exercise.id}/{qid}": truth[1] for qid, truth in found.items() if truth is not None}


class Truths(dict):  # type: ignore[type-arg]
    """An exercise's prepared truths, as cached (plain JSON), plus each one decoded once.

    Every student's answers are compared with the same truths: decoding and rendering
    them once per batch, not once per student and question, is most of what grading a
    prediction would otherwise cost.
    """

    @cached_property
    def decoded(self) -> dict[str, tuple[Value, str]]:
        """Question id -> (truth, the literal that earns full marks)."""
        return {qid: _decode(entry) for qid, entry in self.get("questions", {}).items()}


def _decode(entry: dict[str, Any]) -> tuple[Value, str]:
    value = from_json(entry["value"])
    return value, render_answer(value)


def _truth(prepared: dict[str, Any], question_id: str) -> tuple[Value, str] | None:
    if isinstance(prepared, Truths):
        return prepared.decoded.get(question_id)
    entry = prepared.get("questions", {}).get(question_id)
    return _decode(entry) if entry else None


@lru_cache(maxsize=8192)
def _parsed(text: str) -> Value:
    """``parse_answer``, once per distinct text: a class writes the same answers many times.

    Values are frozen and never changed by comparing, so one may serve every student.
    """
    return parse_answer(text)


def _grade_question(exercise_id: str, q: Question, prepared: dict[str, Any], given: ExerciseAnswers) -> QuestionResult:
    item_id = f"{exercise_id}/{q.id}"
    text = given.answers.get(item_id)
    result = QuestionResult(item_id, Status.UNANSWERED, 0.0, q.points, answer=text)
    found = _truth(prepared, q.id)
    note = given.note(item_id)
    if found is None:
        return _with(result, Status.ERROR, "This question could not be graded: its answer could not be computed. Your instructor has been told.", note)
    truth, expected = found
    result = QuestionResult(item_id, Status.UNANSWERED, 0.0, q.points, answer=text, expected=expected)
    if text is None or text.strip() in UNANSWERED:
        return _with(result, Status.UNANSWERED, q.explain, note)
    try:
        answer = _parsed(text)
    except AnswerSyntaxError as exc:
        return _with(result, Status.INVALID, str(exc), note)
    verdict = compare(answer, truth)
    if verdict.correct:
        return QuestionResult(item_id, Status.CORRECT, q.points, q.points, text, result.expected, _join(q.explain, note))
    matched = _misconception(q, answer)
    feedback = _join(matched.explain if matched else "", q.explain, verdict.feedback, note)
    return QuestionResult(item_id, Status.WRONG, 0.0, q.points, text, result.expected, feedback, matched.name if matched else None)


def _misconception(q: Question, answer: Value) -> Misconception | None:
    for m in q.misconceptions:
        try:
            if same_value(_parsed(m.answer), answer):
                return m
        except AnswerSyntaxError:
            continue  # reported by validate; never blocks grading
    return None


def _with(result: QuestionResult, status: Status, *feedback: str) -> QuestionResult:
    return QuestionResult(result.id, status, 0.0, result.max_points, result.answer, result.expected, _join(*feedback))


def _join(*parts: str) -> str:
    return "\n".join(p.strip() for p in parts if p and p.strip())


def _syntax_problem(source: str, mode: str, marks: Marks, key: tuple[Any, ...]) -> list[Problem]:
    try:
        ast.parse(source, mode=mode)
    except SyntaxError as exc:
        what = "an expression" if mode == "eval" else "Python statements"
        return [Problem(marks.at(key), f"{'.'.join(map(str, key))}: not valid {what}: {exc.msg} (line {exc.lineno} of the code)")]
    return []


def _literal_problems(q: Question, marks: Marks, i: int) -> list[Problem]:
    literals = [(("misconceptions", j, "answer"), m.answer) for j, m in enumerate(q.misconceptions)]
    if q.article_says is not None:
        literals.append((("article_says",), q.article_says))
    problems = []
    for key, text in literals:
        try:
            parse_answer(text)
        except AnswerSyntaxError as exc:
            problems.append(Problem(marks.at(("questions", i) + key), f"questions[{i}].{'.'.join(map(str, key))}: not an answer literal: {exc}"))
    return problems


def _broken_truth(truth: Value) -> str:
    if isinstance(truth, Opaque):
        return f"the value is a {truth.type_name}, which learners cannot write as an answer"
    if not is_writable(truth):
        return "the value is too large or too deeply nested for learners to write as an answer"
    if isinstance(truth, ExceptionValue) and truth.cls in ("NameError", "SyntaxError", "UnboundLocalError"):
        return f"computing the truth raised {truth.cls}: {truth.message} (a mistake in the exercise?)"
    return ""
