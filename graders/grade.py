"""The grading pipeline, top to bottom: prepare truths once -> judge each submission.

    prepare_assignment(workspace, "ps1")       # every exercise's truth, once, in torch
    grade_submission(prepared, submission)     # kinds judge answers; late policy applied

A broken submission costs that student, never the batch: anything unexpected while
grading one submission becomes that submission's ``ungradable`` result.
"""

from __future__ import annotations

import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Iterator, Mapping

from .errors import Problem, UsageError
from .load import LoadedCourse, LoadedExercise
from .registry import Context, ExerciseAnswers, did_you_mean
from .results import QuestionResult, Status, SubmissionResult, SubmissionStatus
from .spec import Assignment, AssignmentItem


@dataclass(frozen=True)
class Submission:
    """What one student handed in for one assignment, as plain data."""

    student: str
    assignment: str
    answers: Mapping[str, str] = field(default_factory=dict)  # "ex/q" -> literal
    code: Mapping[str, str] = field(default_factory=dict)  # "ex" -> source
    submitted_at: datetime | None = None
    notes: Mapping[str, str] = field(default_factory=dict)  # "ex/q" -> extra feedback


@dataclass(frozen=True)
class PreparedExercise:
    """An exercise of an assignment with its truth, and its points scale in it."""

    loaded: LoadedExercise
    prepared: dict[str, Any]
    scale: float


@dataclass(frozen=True)
class PreparedAssignment:
    """An assignment ready to grade submissions against."""

    assignment: Assignment
    exercises: tuple[PreparedExercise, ...]
    ctx: Context


def get_assignment(loaded: LoadedCourse, assignment_id: str) -> Assignment:
    """The assignment named on the command line, or a usage error with a hint."""
    found = loaded.course.assignment(assignment_id)
    if found is None:
        ids = [a.id for a in loaded.course.assignments]
        raise UsageError(f"no assignment '{assignment_id}' in the course{did_you_mean(assignment_id, ids)}; assignments: {', '.join(ids)}")
    return found


def prepare_exercises(loaded: LoadedCourse, ids: Iterable[str], ctx: Context) -> dict[str, dict[str, Any]]:
    """Compute each exercise's truth once, in parallel, each in its own child."""
    ids = list(dict.fromkeys(ids))
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = pool.map(lambda i: loaded.exercises[i].kind.prepare(loaded.exercises[i].exercise, ctx), ids)
        return dict(zip(ids, results))


def prepare_assignment(loaded: LoadedCourse, assignment_id: str, ctx: Context) -> PreparedAssignment:
    """Everything that does not depend on a student, done once for the whole batch."""
    assignment = get_assignment(loaded, assignment_id)
    items = assignment.exercises
    truths = prepare_exercises(loaded, [i.id for i in items], ctx)
    exercises = tuple(
        PreparedExercise(loaded.exercises[item.id], truths[item.id], exercise_scale(loaded.exercises[item.id], item))
        for item in items
    )
    return PreparedAssignment(assignment, exercises, ctx)


def exercise_scale(ex: LoadedExercise, item: AssignmentItem) -> float:
    """How an assignment's ``points`` override (the exercise's total) scales its items."""
    total = sum(i.points for i in ex.kind.items(ex.exercise))
    return item.points / total if item.points and total else 1.0


def planned_items(loaded: LoadedCourse, assignment_id: str) -> list[tuple[str, float]]:
    """(item id, max points) of every question and check, before anything is graded."""
    planned = []
    for item in get_assignment(loaded, assignment_id).exercises:
        ex = loaded.exercises[item.id]
        scale = exercise_scale(ex, item)
        planned += [(i.id, i.points * scale) for i in ex.kind.items(ex.exercise)]
    return planned


def truth_problems(loaded: LoadedCourse, truths: Mapping[str, dict[str, Any]]) -> list[Problem]:
    """Problems found by running the course through torch (for ``validate``)."""
    problems: list[Problem] = []
    for ex_id, prepared in truths.items():
        ex = loaded.exercises[ex_id]
        problems += ex.kind.problems(ex.exercise, prepared, ex.marks)
    return problems


def grade_submission(prep: PreparedAssignment, sub: Submission) -> SubmissionResult:
    """Grade one submission; never raises (a grader bug becomes an ``ungradable`` result)."""
    try:
        questions = tuple(q for ex in prep.exercises for q in _grade_exercise(ex, sub, prep.ctx))
        return _apply_late_policy(prep.assignment, sub, questions)
    except Exception as exc:  # noqa: BLE001 - one student's problem must not stop the batch
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return SubmissionResult(sub.student, (), SubmissionStatus.UNGRADABLE, f"internal error while grading: {detail}")


def grade_all(prep: PreparedAssignment, subs: Iterable[Submission], workers: int = 1) -> Iterator[SubmissionResult]:
    """Grade submissions, ``workers`` at a time, yielding results in input order."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        yield from pool.map(lambda s: grade_submission(prep, s), subs)


def ungradable(student: str, reason: str) -> SubmissionResult:
    """The result for a submission that could not even be read."""
    return SubmissionResult(student, (), SubmissionStatus.UNGRADABLE, reason)


def _grade_exercise(ex: PreparedExercise, sub: Submission, ctx: Context) -> list[QuestionResult]:
    exercise = ex.loaded.exercise
    prefix = f"{exercise.id}/"
    given = ExerciseAnswers(
        answers={k: v for k, v in sub.answers.items() if k.startswith(prefix)},
        code=sub.code.get(exercise.id),
        notes={k: v for k, v in sub.notes.items() if k.startswith(prefix) or k == exercise.id},
    )
    try:
        results = ex.loaded.kind.grade(exercise, ex.prepared, given, ctx)
    except Exception as exc:  # noqa: BLE001 - costs this exercise, not the submission
        results = [
            QuestionResult(item.id, Status.ERROR, 0.0, item.points, feedback=f"This exercise could not be graded ({type(exc).__name__}).")
            for item in ex.loaded.kind.items(exercise)
        ]
    return [r.scaled(ex.scale) for r in results] if ex.scale != 1.0 else results


def _apply_late_policy(assignment: Assignment, sub: Submission, questions: tuple[QuestionResult, ...]) -> SubmissionResult:
    if sub.submitted_at is None:
        return SubmissionResult(sub.student, questions)
    factor = assignment.late.factor(assignment.due, sub.submitted_at)
    if factor is None:
        reason = f"submitted {sub.submitted_at.isoformat()}, after the late cutoff"
        return SubmissionResult(sub.student, questions, SubmissionStatus.LATE_CUTOFF, reason, late_factor=0.0)
    return SubmissionResult(sub.student, questions, late_factor=factor)
