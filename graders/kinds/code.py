"""``kind: code``: the learner writes a function; a sandbox child runs it; the parent judges.

    prepare: the reference solution runs through the exercise's harness in a clean child;
             its observations are cached like truths (per content, seed and torch version).
    grade:   the learner's source runs through the same harness in a fresh child, which
             returns plain JSON observations (never a score, never a reference value);
             the harness's ``judge`` compares them with the reference's here, one verdict
             per check: ``<exercise-id>/<check-id>``.

A child that times out, crashes or tampers costs this exercise only: every check gets that
status and zero, with the sandbox's or the harness's message as feedback.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from .. import harness as harnesses
from ..errors import Problem
from ..registry import Context, ExerciseAnswers, Item, did_you_mean, register
from ..results import QuestionResult, Status
from ..spec import ExerciseBase, Ident, Strict
from ..truth import cached, course_limits
from ..yamlsource import Marks, duplicate_ids
from .code_feedback import Judged, judge_outcome

SOLUTIONS_DIR = "solutions"
NO_REFERENCE = "This exercise could not be graded: its reference solution could not be run. Your instructor has been told."
PyName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


class Check(Strict):
    """One graded property of the learner's function."""

    id: Ident
    points: float = Field(1.0, gt=0)
    explain: str


class CodeExercise(ExerciseBase):
    """An exercise file of kind ``code``."""

    kind: Literal["code"]
    prompt: str
    entry: PyName
    signature: str
    template: str
    solution: str = Field(pattern=r"^[\w.-]+\.py$")
    harness: PyName
    checks: list[Check] = Field(min_length=1)


@register
class CodeKind:
    """Grades learner functions by comparing their observed behaviour with a reference's."""

    name = "code"
    model = CodeExercise

    def check(self, exercise: CodeExercise, marks: Marks, root: Path) -> list[Problem]:
        problems = _harness_problems(exercise, marks)
        problems += _source_problems(exercise.template, exercise.entry, marks, ("template",), "template")
        if not exercise.signature.startswith(f"{exercise.entry}("):
            problems.append(Problem(marks.at(("signature",)), f"signature: must start with '{exercise.entry}(' (the entry function)"))
        path = root / SOLUTIONS_DIR / exercise.solution
        if not path.is_file():
            return problems + [Problem(marks.at(("solution",)), f"solution: no file {SOLUTIONS_DIR}/{exercise.solution}")]
        source = path.read_text(encoding="utf-8")
        return problems + _source_problems(source, exercise.entry, marks, ("solution",), f"{SOLUTIONS_DIR}/{exercise.solution}")

    def items(self, exercise: CodeExercise) -> list[Item]:
        return [Item(f"{exercise.id}/{c.id}", c.points, c.explain) for c in exercise.checks]

    def prepare(self, exercise: CodeExercise, ctx: Context) -> dict[str, Any]:
        source = (ctx.root / SOLUTIONS_DIR / exercise.solution).read_text(encoding="utf-8")

        def observe_reference() -> dict[str, Any]:
            judged = _run(exercise, source, ctx)
            if judged.observations is None:
                return {"error": judged.message, "solution": source}
            return {"observations": judged.observations, "solution": source}

        return cached(ctx, exercise.id, _content_hash(exercise, source), observe_reference)

    def problems(self, exercise: CodeExercise, prepared: dict[str, Any], marks: Marks) -> list[Problem]:
        where = marks.at(("solution",))
        if prepared.get("error"):
            return [Problem(where, f"solution: running {exercise.solution} through harness '{exercise.harness}' failed: {prepared['error']}")]
        verdicts = _judge(exercise, prepared["observations"], prepared)
        if verdicts is None:
            return [Problem(where, f"solution: harness '{exercise.harness}' cannot read the observations of {exercise.solution}")]
        return [Problem(where, f"solution: {exercise.solution} fails its own check '{c}': {v.feedback}") for c, v in verdicts.items() if not v.passed]

    def grade(self, exercise: CodeExercise, prepared: dict[str, Any], given: ExerciseAnswers, ctx: Context) -> list[QuestionResult]:
        note = given.note(exercise.id)
        results = self._grade(exercise, prepared, given.code, ctx)
        return [replace(r, feedback=f"{r.feedback}\n{note}") for r in results] if note else results

    def _grade(self, exercise: CodeExercise, prepared: dict[str, Any], source: str | None, ctx: Context) -> list[QuestionResult]:
        if source is None or not source.strip() or source.strip() == exercise.template.strip():
            return _all(exercise, Status.UNANSWERED, f"No code was submitted: define `{exercise.signature}`.")
        if prepared.get("error"):
            return _all(exercise, Status.ERROR, NO_REFERENCE)
        judged = _run(exercise, source, ctx)
        if judged.observations is None:
            return _all(exercise, judged.status, judged.message)
        verdicts = _judge(exercise, judged.observations, prepared)
        if verdicts is None:
            return _all(exercise, Status.INTEGRITY, "What came back from running your code was not written by the grader; this exercise scores zero.")
        return [_result(exercise.id, c, verdicts[c.id]) for c in exercise.checks]

    def key(self, exercise: CodeExercise, prepared: dict[str, Any]) -> dict[str, str]:
        # Keyed by exercise id, as answers files key their `code:` sources.
        return {exercise.id: prepared.get("solution", "")}


def _run(exercise: CodeExercise, source: str, ctx: Context) -> Judged:
    from ..sandbox import Job

    payload = {"harness": exercise.harness, "source": source, "entry": exercise.entry, "seed": ctx.course.seed}
    outcome = ctx.runner.run(Job(task=harnesses.TASK, payload=payload, limits=course_limits(ctx), check=harnesses.CHECK))
    return judge_outcome(outcome, exercise.entry, exercise.signature)


def _judge(exercise: CodeExercise, observations: Any, prepared: dict[str, Any]) -> dict[str, Any] | None:
    """Verdicts per check id, or None when the observations are not the harness's."""
    module = harnesses.load(exercise.harness)
    assert module is not None  # check() refused unknown harnesses
    try:
        return module.judge(observations, prepared["observations"])
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def _result(exercise_id: str, check: Check, verdict: Any) -> QuestionResult:
    item = f"{exercise_id}/{check.id}"
    if verdict.passed:
        return QuestionResult(item, Status.CORRECT, check.points, check.points, feedback=check.explain.strip())
    status = Status.ERROR if verdict.errored else Status.WRONG
    return QuestionResult(item, status, 0.0, check.points, feedback=f"{check.explain.strip()}\n{verdict.feedback}")


def _all(exercise: CodeExercise, status: Status, message: str) -> list[QuestionResult]:
    return [QuestionResult(f"{exercise.id}/{c.id}", status, 0.0, c.points, feedback=message) for c in exercise.checks]


def _content_hash(exercise: CodeExercise, source: str) -> str:
    # The cached observations depend on the exercise, the solution and the harness code.
    digest = hashlib.sha256(exercise.content_hash().encode() + source.encode())
    for path in sorted(Path(harnesses.__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _harness_problems(exercise: CodeExercise, marks: Marks) -> list[Problem]:
    if harnesses.load(exercise.harness) is None:
        hint = did_you_mean(exercise.harness, list(harnesses.HARNESSES))
        return [Problem(marks.at(("harness",)), f"harness: unknown harness '{exercise.harness}'{hint}; known: {', '.join(harnesses.HARNESSES)}")]
    known = harnesses.check_ids(exercise.harness)
    repeats = duplicate_ids([c.id for c in exercise.checks], ("checks",), marks, "check", "id")
    problems = list(repeats.values())
    for i, c in enumerate(exercise.checks):
        if i not in repeats and c.id not in known:
            hint = did_you_mean(c.id, list(known))
            message = f"checks[{i}].id: harness '{exercise.harness}' has no check '{c.id}'{hint}; it has: {', '.join(known)}"
            problems.append(Problem(marks.at(("checks", i, "id")), message))
    return problems


def _source_problems(source: str, entry: str, marks: Marks, key: tuple[Any, ...], what: str) -> list[Problem]:
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [Problem(marks.at(key), f"{key[0]}: {what} is not valid Python: {exc.msg} (line {exc.lineno})")]
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if entry not in defined:
        return [Problem(marks.at(key), f"{key[0]}: {what} does not define a function '{entry}'")]
    return []
