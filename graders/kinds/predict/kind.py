"""``kind: predict``: the learner predicts what torch gives; torch decides.

Each question has an ``expr`` (its value is the truth) or a ``run`` (its outcome is the
truth: ``no error`` or the exception class). Answers are parsed, never executed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...course.kinds import Item
from ...course.marks import Marks
from ...errors import Problem
from ...i18n import _
from ...results import QuestionResult
from ...said import Told
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
from . import cells, validation
from .held_back import key_in_texts
from .judge import grade_question
from .model import PredictExercise
from .truth import Truths, compute_truths, compute_truths_many

if TYPE_CHECKING:
    from ...sandbox import Job
    from ..contract import Kind


@register
class PredictKind:
    """Grades predictions against truths computed by torch."""

    name = "predict"
    model = PredictExercise
    cell_tag = cells.CELL_TAG
    literal_answers = True
    runs_jobs = False  # predictions are parsed and compared here
    answers_section = "answers"  # item id -> literal

    def file_problems(self, exercise: PredictExercise, marks: Marks, root: Path) -> list[Problem]:
        return validation.file_problems(exercise, marks)

    def items(self, exercise: PredictExercise) -> list[Item]:
        names = (exercise.id, *exercise.formerly)
        return [
            Item(
                f"{exercise.id}/{q.id}",
                q.points,
                q.prompt,
                q.section or exercise.section,
                tuple(f"{name}/{old}" for name in names for old in q.formerly),
            )
            for q in exercise.questions
        ]

    def prepare(self, exercise: PredictExercise, ctx: Context, store: TruthStore) -> Truths:
        return compute_truths(exercise, ctx, store)

    def prepare_many(
        self, exercises: Sequence[PredictExercise], ctx: Context, store: TruthStore
    ) -> list[Truths]:
        return compute_truths_many(exercises, ctx, store)  # one warm child for all variants

    def fingerprint(self, prepared: Truths) -> Any:
        return prepared.raw

    def problems(self, exercise: PredictExercise, prepared: Truths, marks: Marks) -> list[Problem]:
        return validation.truth_problems(exercise, prepared, marks) + key_in_texts(
            exercise, prepared, marks
        )

    def given(self, exercise: PredictExercise, submission: Submission) -> ExerciseAnswers:
        keys = self.answer_keys(exercise)
        answers = {k: submission.answers[k] for k in keys if k in submission.answers}
        return ExerciseAnswers(
            answers,
            notes={k: submission.notes[k] for k in keys if k in submission.notes},
            unreadable={k: submission.unreadable[k] for k in keys if k in submission.unreadable},
        )

    def jobs(
        self, exercise: PredictExercise, prepared: Truths, given: ExerciseAnswers, ctx: Context
    ) -> list[Job]:
        return []  # predictions are parsed and compared with the truths, here

    def grade(
        self, exercise: PredictExercise, prepared: Truths, given: ExerciseAnswers, ctx: Context
    ) -> list[QuestionResult]:
        questions = enumerate(exercise.questions)
        return [grade_question(exercise.id, q, prepared, given, i) for i, q in questions]

    def key(self, exercise: PredictExercise, prepared: Truths) -> dict[str, str]:
        found = {q.id: prepared.questions.get(q.id) for q in exercise.questions}
        return {
            f"{exercise.id}/{qid}": truth.literal
            for qid, truth in found.items()
            if truth is not None
        }

    def answer_keys(self, exercise: PredictExercise) -> list[str]:
        return [item.id for item in self.items(exercise)]

    def layout(self, placed: Placed, key: Mapping[str, str]) -> list[Part]:
        return cells.layout(placed, key)

    def labels(self, placed: Placed) -> dict[str, str]:
        return cells.labels(placed)

    def hint(self) -> str:
        return _(cells.HINT)

    def read_cell(self, source: str, meta: Mapping[str, Any]) -> Reading:
        return cells.read_cell(source, meta)

    def cell_problem(self, source: str, meta: Mapping[str, Any]) -> Told | None:
        return cells.cell_problem(source, meta)

    def kernel_answer(self, value: Any) -> str | None:
        return cells.kernel_answer(value)

    def files(self, exercise: PredictExercise) -> list[str]:
        return []  # everything a prediction needs is in its exercise file

    def misconceptions(
        self, exercise: PredictExercise
    ) -> dict[str, tuple[DeclaredMisconception, ...]]:
        return {
            f"{exercise.id}/{q.id}": tuple(
                DeclaredMisconception(m.name, m.answer, m.explain.strip()) for m in q.misconceptions
            )
            for q in exercise.questions
        }


if TYPE_CHECKING:  # the type checker holds the class to the whole contract, typed
    _fulfils: Kind[PredictExercise, Truths] = PredictKind()
