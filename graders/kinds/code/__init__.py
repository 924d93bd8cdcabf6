"""``kind: code``: the learner writes a function; a sandbox child runs it; the grader judges.

    prepare: the reference solution runs through the exercise's checker (a file of the
             course, ``checker: checkers/<id>.py``) in a clean child; its observations and
             its time are cached like truths (per content, checker, seed and torch
             version). ``validate`` also grades the exercise's ``samples``.
    grade:   the learner's source runs through the same checker in a fresh child, which
             returns plain JSON observations (never a score, never a reference value);
             the sandbox's keeper holds them to the checker's ``Observations``; the
             checker's ``judge`` compares them with the reference's here, one verdict per
             check: ``<exercise-id>/<check-id>``.

A child that times out, crashes or tampers costs this exercise only: every check gets that
status and zero, with the sandbox's or the checker's message as feedback. Each exercise's
time budget comes from its reference: ``max(0.5 s, 50 x the reference's time)``, capped by
the course's ``limits.timeout_s`` (an exercise's ``timeout_s`` overrides it).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StringConstraints

from ...course.marks import Marks, duplicate_ids
from ...course.model import ExerciseBase, Ident, Strict
from ...course.text import Text
from ...errors import Location, Problem
from ...results import QuestionResult, Status
from ..base import Context, DeclaredMisconception, ExerciseAnswers, Item, Reading, Submission
from ..cache import cached, course_limits
from ..layout import Part, Placed
from ..registry import register
from . import layout as code_layout
from .checkers import Checker, CheckerError, digest, load_checker, sandbox_module
from .learner import DEFAULT_IMPORTS
from .outcome import FORGED, Judged, judge_outcome
from .samples import Sample, mismatches

SOLUTIONS_DIR = "solutions"
TASK, CHECK = "graders.kinds.code.child:run", "graders.kinds.code.child:check"
NO_REFERENCE = (
    "This exercise could not be graded: its reference solution could not be run. "
    "Your instructor has been told."
)
MIN_BUDGET_S, BUDGET_FACTOR = 0.5, 50.0
PyName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


def _inside_course(path: str) -> str:
    if ".." in path.split("/"):
        raise ValueError("must be a path inside the course folder, without '..'")
    return path


CoursePath = Annotated[
    str, StringConstraints(pattern=r"^[\w.-]+(/[\w.-]+)*\.py$"), AfterValidator(_inside_course)
]


class Check(Strict):
    """One graded property of the learner's function."""

    id: Ident
    points: float = Field(1.0, gt=0)
    explain: Text


class CodeExercise(ExerciseBase):
    """An exercise file of kind ``code``."""

    kind: Literal["code"]
    prompt: Text
    entry: PyName
    signature: str
    template: str  # code, the same in every language
    solution: str = Field(pattern=r"^[\w.-]+\.py$")
    checker: CoursePath
    checks: list[Check] = Field(min_length=1)
    samples: list[Sample] = Field(default_factory=list)
    timeout_s: float | None = Field(None, gt=0, le=600)  # else derived from the reference's time


@register
class CodeKind:
    """Grades learner functions by comparing their observed behaviour with a reference's."""

    name = "code"
    model = CodeExercise

    def check(self, exercise: CodeExercise, marks: Marks, root: Path) -> list[Problem]:
        problems = _checker_problems(exercise, marks, root)
        problems += _source_problems(
            exercise.template, exercise.entry, marks, ("template",), "template"
        )
        if not exercise.signature.startswith(f"{exercise.entry}("):
            problems.append(
                Problem(
                    marks.at(("signature",)),
                    f"signature: must start with '{exercise.entry}(' (the entry function)",
                )
            )
        problems += _sample_problems(exercise, marks, root)
        path = root / SOLUTIONS_DIR / exercise.solution
        if not path.is_file():
            return problems + [
                Problem(
                    marks.at(("solution",)),
                    f"solution: no file {SOLUTIONS_DIR}/{exercise.solution}",
                )
            ]
        source = path.read_text(encoding="utf-8")
        return problems + _source_problems(
            source, exercise.entry, marks, ("solution",), f"{SOLUTIONS_DIR}/{exercise.solution}"
        )

    def items(self, exercise: CodeExercise) -> list[Item]:
        return [Item(f"{exercise.id}/{c.id}", c.points, c.explain) for c in exercise.checks]

    def sandbox_modules(self, exercise: CodeExercise, root: Path) -> dict[str, tuple[str, str]]:
        """What the warm fork servers import before forking: this exercise's checker."""
        try:
            return sandbox_module(load_checker(root / exercise.checker))
        except CheckerError:
            return {}  # check() reports it

    def prepare(self, exercise: CodeExercise, ctx: Context) -> dict[str, Any]:
        source = (ctx.root / SOLUTIONS_DIR / exercise.solution).read_text(encoding="utf-8")
        checker = load_checker(ctx.root / exercise.checker)

        def observe_reference() -> dict[str, Any]:
            judged, took = _run(exercise, checker, source, ctx, course_limits(ctx).timeout_s)
            if judged.observations is None:
                return {"error": judged.message, "solution": source}
            prepared = {
                "observations": judged.observations,
                "solution": source,
                "reference_s": took,
            }
            return prepared | {"reference_fails": _own_failures(exercise, checker, prepared)}

        return cached(
            ctx, exercise.id, _content_hash(exercise, source, checker, ctx), observe_reference
        )

    def problems(
        self, exercise: CodeExercise, prepared: dict[str, Any], marks: Marks
    ) -> list[Problem]:
        where = marks.at(("solution",))
        if prepared.get("error"):
            return [
                Problem(
                    where,
                    f"solution: running {exercise.solution} through {exercise.checker} "
                    f"failed: {prepared['error']}",
                )
            ]
        return [
            Problem(where, f"solution: {exercise.solution} {failure}")
            for failure in prepared.get("reference_fails", [])
        ]

    def self_test(
        self, exercise: CodeExercise, prepared: dict[str, Any], ctx: Context, marks: Marks
    ) -> list[Problem]:
        """Every sample graded, and where it went otherwise than it expects (``validate``
        only: grading never pays for samples). Cached like the reference."""
        if prepared.get("error") or not exercise.samples:
            return []
        # Checked here, not when loading: grading needs no sample (a CI bundle has none).
        missing = [
            Problem(marks.at(("samples", i, "file")), f"samples[{i}].file: no file {s.file}")
            for i, s in enumerate(exercise.samples)
            if not (ctx.root / s.file).is_file()
        ]
        if missing:
            return missing
        checker = load_checker(ctx.root / exercise.checker)
        key = _content_hash(exercise, prepared["solution"], checker, ctx) + _samples_hash(
            exercise, ctx
        )
        found = cached(
            ctx,
            f"{exercise.id}-samples",
            key,
            lambda: {"outcomes": _sample_outcomes(exercise, checker, prepared, ctx)},
        )
        pairs = zip(exercise.samples, found["outcomes"], strict=True)
        return [
            Problem(marks.at(("samples", i, "file")), f"samples[{i}]: {sample.file}: {wrong}")
            for i, (sample, outcome) in enumerate(pairs)
            for wrong in outcome
        ]

    def grade(
        self, exercise: CodeExercise, prepared: dict[str, Any], given: ExerciseAnswers, ctx: Context
    ) -> list[QuestionResult]:
        note = given.note(exercise.id)
        results = self._grade(exercise, prepared, given.code, ctx)
        return [replace(r, feedback=f"{r.feedback}\n{note}") for r in results] if note else results

    def _grade(
        self, exercise: CodeExercise, prepared: dict[str, Any], source: str | None, ctx: Context
    ) -> list[QuestionResult]:
        if source is None or not source.strip() or source.strip() == exercise.template.strip():
            return _all(
                exercise,
                Status.UNANSWERED,
                f"No code was submitted: define `{exercise.signature}`.",
            )
        if prepared.get("error"):
            return _all(exercise, Status.ERROR, NO_REFERENCE)
        return _graded(exercise, load_checker(ctx.root / exercise.checker), prepared, source, ctx)

    def key(self, exercise: CodeExercise, prepared: dict[str, Any]) -> dict[str, str]:
        # Keyed by exercise id, as answers files key their `code:` sources.
        return {exercise.id: prepared.get("solution", "")}

    # The rest of the kind contract (kinds.base.Kind): notebooks, bundles and reports.
    cell_tag = code_layout.CELL_TAG
    literal_answers = False  # answers are programs: a report does not group them
    answers_section = "code"  # exercise id -> source

    def fingerprint(self, prepared: dict[str, Any]) -> Any:
        return prepared

    def given(self, exercise: CodeExercise, submission: Submission) -> ExerciseAnswers:
        return code_layout.given(exercise, submission)

    def answer_keys(self, exercise: CodeExercise) -> list[str]:
        return [exercise.id]

    def layout(self, placed: Placed, key: Mapping[str, str]) -> list[Part]:
        return code_layout.layout(placed, key)

    def hint(self, runs_answers: bool) -> str:
        return code_layout.HINT

    def read_cell(self, source: str, meta: Mapping[str, Any]) -> Reading:
        return code_layout.read_cell(source, meta)

    def cell_problem(self, source: str, meta: Mapping[str, Any]) -> str | None:
        return code_layout.cell_problem(source, meta)

    def files(self, exercise: CodeExercise) -> list[str]:
        return [f"{SOLUTIONS_DIR}/{exercise.solution}", exercise.checker]

    def misconceptions(
        self, exercise: CodeExercise
    ) -> dict[str, tuple[DeclaredMisconception, ...]]:
        return {}


def budget_s(exercise: CodeExercise, prepared: dict[str, Any], ctx: Context) -> float:
    """The exercise's time budget: its own, else a multiple of the reference's time."""
    cap = course_limits(ctx).timeout_s
    if exercise.timeout_s is not None:
        return min(exercise.timeout_s, cap)
    return min(cap, max(MIN_BUDGET_S, BUDGET_FACTOR * float(prepared.get("reference_s", cap))))


def _graded(
    exercise: CodeExercise, checker: Checker, prepared: dict[str, Any], source: str, ctx: Context
) -> list[QuestionResult]:
    budget = budget_s(exercise, prepared, ctx)
    judged, _took = _run(exercise, checker, source, ctx, budget)
    if judged.observations is None:
        message = judged.message
        if judged.status is Status.TIMEOUT and "reference_s" in prepared:
            message += f" (the reference solution takes {prepared['reference_s'] * 1000:.0f} ms)."
        return _all(exercise, judged.status, message)
    verdicts = _judge(checker, judged.observations, prepared)
    if verdicts is None:
        return _all(
            exercise,
            Status.INTEGRITY,
            FORGED,
        )
    return [_result(exercise.id, c, verdicts[c.id]) for c in exercise.checks]


def _run(
    exercise: CodeExercise, checker: Checker, source: str, ctx: Context, timeout_s: float
) -> tuple[Judged, float]:
    from ...sandbox import Job

    limits = replace(course_limits(ctx), timeout_s=timeout_s)
    payload = {
        "checker": checker.name,
        "source": source,
        "entry": exercise.entry,
        "seed": ctx.course.seed,
        "imports": list(_imports(ctx)),
    }
    outcome = ctx.runner.run(Job(task=TASK, payload=payload, limits=limits, check=CHECK))
    return judge_outcome(outcome, exercise.entry, exercise.signature), outcome.duration_s


def _judge(checker: Checker, observations: Any, prepared: dict[str, Any]) -> dict[str, Any] | None:
    """Verdicts per check id, or None when the observations are not the checker's."""
    try:
        return checker.judge(observations, prepared["observations"])
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None


def _own_failures(exercise: CodeExercise, checker: Checker, prepared: dict[str, Any]) -> list[str]:
    """How the reference solution fails its own checks (it must not)."""
    verdicts = _judge(checker, prepared["observations"], prepared)
    if verdicts is None:
        return [f"wrote observations {exercise.checker} cannot read"]
    return [
        f"fails its own check '{c}': {v.feedback}"
        for c, v in verdicts.items()
        if c in _check_ids(exercise) and not v.passed
    ]


def _sample_outcomes(
    exercise: CodeExercise, checker: Checker, prepared: dict[str, Any], ctx: Context
) -> list[list[str]]:
    """For each sample, what went otherwise than it expects (empty when it got its outcome)."""
    found = []
    for sample in exercise.samples:
        source = (ctx.root / sample.file).read_text(encoding="utf-8")
        results = _graded(exercise, checker, prepared, source, ctx)
        found.append(mismatches(sample, _check_ids(exercise), results))
    return found


def _imports(ctx: Context) -> tuple[str, ...]:
    """The modules a code answer may import: the course's list, else the default one."""
    return tuple(ctx.course.code_imports or DEFAULT_IMPORTS)


def _check_ids(exercise: CodeExercise) -> list[str]:
    return [c.id for c in exercise.checks]


def _result(exercise_id: str, check: Check, verdict: Any) -> QuestionResult:
    item = f"{exercise_id}/{check.id}"
    if verdict.passed:
        return QuestionResult(
            item, Status.CORRECT, check.points, check.points, feedback=check.explain.strip()
        )
    status = Status.ERROR if verdict.errored else Status.WRONG
    return QuestionResult(
        item, status, 0.0, check.points, feedback=f"{check.explain.strip()}\n{verdict.feedback}"
    )


def _all(exercise: CodeExercise, status: Status, message: str) -> list[QuestionResult]:
    return [
        QuestionResult(f"{exercise.id}/{c.id}", status, 0.0, c.points, feedback=message)
        for c in exercise.checks
    ]


def _content_hash(exercise: CodeExercise, source: str, checker: Checker, ctx: Context) -> str:
    # The cached observations depend on the exercise, the solution, the checker and the
    # toolkit it runs on, and the course's allowlist.
    h = hashlib.sha256(
        exercise.content_hash().encode() + source.encode() + digest(checker).encode()
    )
    h.update(repr(sorted(_imports(ctx))).encode())
    return h.hexdigest()[:16]


def _samples_hash(exercise: CodeExercise, ctx: Context) -> str:
    h = hashlib.sha256()
    for sample in exercise.samples:
        h.update((ctx.root / sample.file).read_bytes())
    return h.hexdigest()[:8]


def _checker_problems(exercise: CodeExercise, marks: Marks, root: Path) -> list[Problem]:
    path = root / exercise.checker
    if not path.is_file():
        return [Problem(marks.at(("checker",)), f"checker: no file {exercise.checker}")]
    try:
        checker = load_checker(path)
    except CheckerError as exc:
        if exc.line:
            return [Problem(Location(str(path), exc.line, 1), str(exc))]
        return [Problem(marks.at(("checker",)), f"checker: {exc}")]
    known = checker.checks
    repeats = duplicate_ids([c.id for c in exercise.checks], ("checks",), marks, "check", "id")
    problems = list(repeats.values())
    for i, c in enumerate(exercise.checks):
        if i not in repeats and c.id not in known:
            message = (
                f"checks[{i}].id: {exercise.checker} has no check '{c.id}'; "
                f"it has: {', '.join(known)}"
            )
            problems.append(Problem(marks.at(("checks", i, "id")), message))
    return problems


def _sample_problems(exercise: CodeExercise, marks: Marks, root: Path) -> list[Problem]:
    problems = []
    ids = set(_check_ids(exercise)) | {"all"}
    for i, sample in enumerate(exercise.samples):
        for name in sample.expect:
            if name not in ids:
                problems.append(
                    Problem(
                        marks.at(("samples", i, "expect", name)),
                        f"samples[{i}].expect: no check '{name}' in this exercise",
                    )
                )
    return problems


def _source_problems(
    source: str, entry: str, marks: Marks, key: tuple[Any, ...], what: str
) -> list[Problem]:
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [
            Problem(
                marks.at(key),
                f"{key[0]}: {what} is not valid Python: {exc.msg} (line {exc.lineno})",
            )
        ]
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if entry not in defined:
        return [Problem(marks.at(key), f"{key[0]}: {what} does not define a function '{entry}'")]
    return []
