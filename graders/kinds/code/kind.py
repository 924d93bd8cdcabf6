"""``kind: code``: the learner writes a function; a sandbox child runs it; the grader judges.

    prepare: the reference solution runs through the exercise's checker (a file of the
             course, ``checker: checkers/<id>.py``) in a clean child; its observations and
             its time are kept like truths, in the ``TruthStore`` grading hands in (per
             content and checker; the store adds seed and torch version). ``validate``
             also grades the exercise's ``samples``.
    grade:   the learner's source runs through the same checker in a fresh child, which
             returns plain JSON observations (never a score, never a reference value);
             the sandbox's keeper holds them to the checker's ``Observations``; the
             checker's ``judge`` compares them with the reference's here, one verdict per
             check: ``<exercise-id>/<check-id>``.

With ``params``, each variant is prepared on its own (its texts, solution and samples
rendered, ``sources``), and the checker gets the variant's values in the child and in
``judge``; a learner is graded in their variant, their jobs still run as one list.

A child that times out, crashes or tampers costs this exercise only: every check gets that
status and zero, with the sandbox's or the checker's message as feedback. Each exercise's
time budgets come from its reference: wall time ``max(2 s, 50 x the reference's time)``
and CPU time ``max(1 s, 50 x the reference's time)``, capped by the course's
``limits.timeout_s`` (an exercise's ``timeout_s`` sets both).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...course.kinds import Item
from ...course.marks import Marks
from ...errors import Problem
from ...i18n import N_, _
from ...results import QuestionResult, Status
from ...said import Told, paragraphs, say
from ..base import (
    Context,
    DeclaredMisconception,
    ExerciseAnswers,
    Reading,
    Submission,
    TruthStore,
)
from ..notebook_side import Part, Placed
from ..registry import register
from . import cells as code_layout
from .checker_file import CheckerError, load_checker, sandbox_module
from .judge import (
    all_checks,
    budget_s,
    checker_job,
    content_hash,
    cpu_budget_s,
    grade_source,
    own_failures,
    run_checker,
    sample_outcomes,
    samples_hash,
)
from .model import SOLUTIONS_DIR, CodeExercise
from .reference import Reference
from .sources import read_source
from .validation import course_problems

if TYPE_CHECKING:
    from ...sandbox import Job
    from ..contract import Kind

NO_REFERENCE = N_(
    "This exercise could not be graded: its reference solution could not be run. "
    "Your instructor has been told."
)


@register
class CodeKind:
    """Grades learner functions by comparing their observed behaviour with a reference's."""

    name = "code"
    model = CodeExercise

    def file_problems(self, exercise: CodeExercise, marks: Marks, root: Path) -> list[Problem]:
        return course_problems(exercise, marks, root)

    def items(self, exercise: CodeExercise) -> list[Item]:
        return [Item(f"{exercise.id}/{c.id}", c.points, c.explain) for c in exercise.checks]

    def sandbox_modules(self, exercise: CodeExercise, root: Path) -> dict[str, tuple[str, str]]:
        """What the warm fork servers import before forking: this exercise's checker."""
        try:
            return sandbox_module(load_checker(root / exercise.checker))
        except CheckerError:
            return {}  # check() reports it

    def prepare(self, exercise: CodeExercise, ctx: Context, store: TruthStore) -> Reference:
        source = read_source(exercise, ctx.root / SOLUTIONS_DIR / exercise.solution)
        checker = load_checker(ctx.root / exercise.checker)

        def observe_reference() -> dict[str, Any]:
            judged, took = run_checker(exercise, checker, source, ctx, ctx.limits.timeout_s)
            if judged.observations is None:
                return Reference(source, error=str(judged.message)).as_json()
            observed = Reference(source, judged.observations, took)
            fails = own_failures(exercise, checker, observed)
            return replace(observed, failures=tuple(fails)).as_json()

        key = content_hash(exercise, source, checker, ctx)
        return Reference.from_json(store.cached(exercise.id, key, observe_reference))

    def prepare_many(
        self, exercises: Sequence[CodeExercise], ctx: Context, store: TruthStore
    ) -> list[Reference]:
        # Each reference runs alone: its time sets the budget of learners' code.
        return [self.prepare(exercise, ctx, store) for exercise in exercises]

    def problems(self, exercise: CodeExercise, prepared: Reference, marks: Marks) -> list[Problem]:
        where = marks.at(("solution",))
        if prepared.error:
            return [
                Problem(
                    where,
                    f"solution: running {exercise.solution} through {exercise.checker} "
                    f"failed: {prepared.error}",
                )
            ]
        return [
            Problem(where, f"solution: {exercise.solution} {failure}")
            for failure in prepared.failures
        ]

    def self_test(
        self,
        exercise: CodeExercise,
        prepared: Reference,
        ctx: Context,
        marks: Marks,
        store: TruthStore,
    ) -> list[Problem]:
        """Every sample graded, and where it went otherwise than it expects (``validate``
        only: grading never pays for samples). Kept in ``store`` like the reference."""
        if prepared.error or not exercise.samples:
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
        key = content_hash(exercise, prepared.solution, checker, ctx) + samples_hash(exercise, ctx)
        found = store.cached(
            f"{exercise.id}-samples",
            key,
            lambda: {"outcomes": sample_outcomes(exercise, checker, prepared, ctx)},
        )
        pairs = zip(exercise.samples, found["outcomes"], strict=True)
        return [
            Problem(marks.at(("samples", i, "file")), f"samples[{i}]: {sample.file}: {wrong}")
            for i, (sample, outcome) in enumerate(pairs)
            for wrong in outcome
        ]

    def grade(
        self, exercise: CodeExercise, prepared: Reference, given: ExerciseAnswers, ctx: Context
    ) -> list[QuestionResult]:
        note = given.note(exercise.id)
        problem = given.problem(exercise.id)
        if problem:  # never run: the source the learner sees is not the text it holds
            results = all_checks(exercise, Status.INVALID, problem)
        else:
            results = self._grade(exercise, prepared, given.code, ctx)
        # Each check's answer is the code it judged, for feedback pages to show beside them.
        code = given.code if given.code is not None and _submitted(exercise, given.code) else None
        if not note:
            return [replace(r, answer=code) for r in results]
        # A note about the answer cell is about the learner's work: learners read it in
        # `explain` (the feedback without the truth) too.
        return [
            replace(
                r,
                answer=code,
                feedback=paragraphs(r.feedback, note),
                explain=paragraphs(r.explain, note),
            )
            for r in results
        ]

    def jobs(
        self, exercise: CodeExercise, prepared: Reference, given: ExerciseAnswers, ctx: Context
    ) -> list[Job]:
        source = given.code
        if source is None or not _submitted(exercise, source) or prepared.error:
            return []
        if given.problem(exercise.id):
            return []
        checker = load_checker(ctx.root / exercise.checker)
        return [
            checker_job(
                exercise,
                checker,
                source,
                ctx,
                budget_s(exercise, prepared, ctx),
                cpu_budget_s(exercise, prepared, ctx),
            )
        ]

    def _grade(
        self, exercise: CodeExercise, prepared: Reference, source: str | None, ctx: Context
    ) -> list[QuestionResult]:
        if source is None or not _submitted(exercise, source):
            return all_checks(
                exercise,
                Status.UNANSWERED,
                say("No code was submitted: define `{signature}`.", signature=exercise.signature),
            )
        if prepared.error:
            return all_checks(exercise, Status.ERROR, say(NO_REFERENCE))
        return grade_source(
            exercise, load_checker(ctx.root / exercise.checker), prepared, source, ctx
        )

    def key(self, exercise: CodeExercise, prepared: Reference) -> dict[str, str]:
        # Keyed by exercise id, as answers files key their `code:` sources.
        return {exercise.id: prepared.solution}

    # The rest of the kind contract (kinds.contract): notebooks, bundles and reports.
    cell_tag = code_layout.CELL_TAG
    literal_answers = False  # answers are programs: a report does not group them
    runs_jobs = True  # the learner's program, in the sandbox
    answers_section = "code"  # exercise id -> source

    def fingerprint(self, prepared: Reference) -> Any:
        return prepared.as_json()

    def given(self, exercise: CodeExercise, submission: Submission) -> ExerciseAnswers:
        return code_layout.given(exercise, submission)

    def answer_keys(self, exercise: CodeExercise) -> list[str]:
        return [exercise.id]

    def layout(self, placed: Placed, key: Mapping[str, str]) -> list[Part]:
        return code_layout.layout(placed, key)

    def labels(self, placed: Placed) -> dict[str, str]:
        return code_layout.labels(placed)

    def hint(self) -> str:
        return _(code_layout.HINT)

    def read_cell(self, source: str, meta: Mapping[str, Any]) -> Reading:
        return code_layout.read_cell(source, meta)

    def cell_problem(self, source: str, meta: Mapping[str, Any]) -> Told | None:
        return code_layout.cell_problem(source, meta)

    def kernel_answer(self, value: Any) -> str | None:
        return code_layout.kernel_answer(value)

    def files(self, exercise: CodeExercise) -> list[str]:
        return [f"{SOLUTIONS_DIR}/{exercise.solution}", exercise.checker]

    def misconceptions(
        self, exercise: CodeExercise
    ) -> dict[str, tuple[DeclaredMisconception, ...]]:
        return {}


def _submitted(exercise: CodeExercise, source: str) -> bool:
    """Is there code of the learner's own: not nothing, not the template unchanged, not only
    comments, not the function still its placeholder (``...``, or the stub nbgrader's
    generate_assignment put in its place)?"""
    if not source.strip() or source.strip() == exercise.template.strip():
        return False
    return code_layout.cell_problem(source, {"entry": exercise.entry}) is not None


if TYPE_CHECKING:  # the type checker holds the class to the whole contract, typed
    _fulfils: Kind[CodeExercise, Reference] = CodeKind()
