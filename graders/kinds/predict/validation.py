"""What ``graders validate`` reports about a predict exercise beyond its model.

Before torch runs: code that does not parse, repeated question ids, misconception and
``article_says`` answers that are not answer literals. After: truths a learner could not
write (an opaque object, a value too large), a setup or question that crashed, and a
misconception whose answer earns the points (torch's value in another type, on a question
not marked ``strict:``).
"""

from __future__ import annotations

from typing import Any

from ... import syntax
from ...answers.compare import compare
from ...answers.judging import STRICT
from ...answers.parse import AnswerSyntaxError, is_writable, parse_answer
from ...answers.values import ExceptionValue, Opaque, Value
from ...course.marks import Marks, duplicate_ids
from ...course.model import SECTIONS, not_a_section
from ...errors import Problem, did_you_mean
from .model import PredictExercise, Question
from .truth import Truths

# Raised by a mistake in the exercise, not as the behaviour a question asks about.
AUTHOR_ERRORS = ("NameError", "SyntaxError", "UnboundLocalError")


def file_problems(exercise: PredictExercise, marks: Marks) -> list[Problem]:
    """Problems in the file that need no torch."""
    problems = _syntax_problem(exercise.setup, "exec", marks, ("setup",))
    ids = [q.id for q in exercise.questions]
    problems += duplicate_ids(ids, ("questions",), marks, "question", "id").values()
    for i, q in enumerate(exercise.questions):
        mode = "eval" if q.expr is not None else "exec"
        problems += _syntax_problem(
            q.expr or q.run or "", mode, marks, ("questions", i, q.source_field)
        )
        problems += _literal_problems(q, marks, i)
        if q.section is not None and q.section not in SECTIONS:
            hint = did_you_mean(q.section, list(SECTIONS))
            where = marks.at(("questions", i, "section"))
            problems.append(
                Problem(where, f"questions[{i}].section: {not_a_section(q.section, hint)}")
            )
    return problems


def truth_problems(exercise: PredictExercise, truths: Truths, marks: Marks) -> list[Problem]:
    """Problems found by running the exercise through torch."""
    if truths.error:
        return [Problem(marks.at(("setup",)), truths.error)]
    if truths.setup_error:
        return [Problem(marks.at(("setup",)), f"setup raised {truths.setup_error}")]
    problems = []
    for i, q in enumerate(exercise.questions):
        truth = truths.questions.get(q.id)
        broken = _broken_truth(truth.value) if truth else "no truth was computed"
        if broken:
            where = marks.at(("questions", i, q.source_field))
            problems.append(Problem(where, f"questions[{i}]: {broken}"))
        elif truth is not None:
            problems += _right_misconceptions(q, truth.value, marks, i)
    return problems


def _right_misconceptions(q: Question, truth: Value, marks: Marks, i: int) -> list[Problem]:
    """Misconceptions a learner could never be told about: their answer earns the points."""
    problems = []
    for j, m in enumerate(q.misconceptions):
        try:
            answer = parse_answer(m.answer)
        except AnswerSyntaxError:
            continue  # reported before torch ran
        if not compare(answer, truth, q.rules).correct:
            continue
        hint = (
            "; it is torch's value written as another type: if the type is the lesson, mark "
            "the question `strict: [dtype]` or `strict: [type]`"
            if not compare(answer, truth, STRICT).correct
            else ""
        )
        key = ("questions", i, "misconceptions", j, "answer")
        message = f"questions[{i}].misconceptions[{j}].answer: {m.answer!r} earns the points{hint}"
        problems.append(Problem(marks.at(key), message))
    return problems


def _syntax_problem(source: str, mode: str, marks: Marks, key: tuple[Any, ...]) -> list[Problem]:
    try:
        syntax.parse(source, mode)
    except SyntaxError as exc:
        what = "an expression" if mode == "eval" else "Python statements"
        field = ".".join(map(str, key))
        message = f"{field}: not valid {what}: {exc.msg} (line {exc.lineno} of the code)"
        return [Problem(marks.at(key), message)]
    return []


def _literal_problems(q: Question, marks: Marks, i: int) -> list[Problem]:
    literals: list[tuple[tuple[Any, ...], str]] = [
        (("misconceptions", j, "answer"), m.answer) for j, m in enumerate(q.misconceptions)
    ]
    literals += [(("accept", j), text) for j, text in enumerate(q.accept)]
    if q.article_says is not None:
        literals.append((("article_says",), q.article_says))
    problems = []
    for key, text in literals:
        try:
            parse_answer(text)
        except AnswerSyntaxError as exc:
            field = f"questions[{i}].{'.'.join(map(str, key))}"
            problems.append(
                Problem(marks.at(("questions", i, *key)), f"{field}: not an answer literal: {exc}")
            )
    return problems


def _broken_truth(truth: Value) -> str:
    if isinstance(truth, Opaque):
        return f"the value is a {truth.type_name}, which learners cannot write as an answer"
    if not is_writable(truth):
        return "the value is too large or too deeply nested for learners to write as an answer"
    if isinstance(truth, ExceptionValue) and truth.cls in AUTHOR_ERRORS:
        return (
            f"computing the truth raised {truth.cls}: {truth.message} (a mistake in the exercise?)"
        )
    return ""
