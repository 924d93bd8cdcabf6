"""The grading pipeline, top to bottom: prepare truths once -> judge each submission.

    prepare_assignment(workspace, "ps1")       # every exercise's truth, once, in torch
    grade_submission(prepared, submission)     # kinds judge answers; late policy applied

A broken submission costs that student, never the batch: anything unexpected while
grading one submission becomes that submission's ``ungradable`` result.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..course.loaded import LoadedCourse, LoadedExercise, get_assignment
from ..course.model import Assignment, Course
from ..course.times import time_text
from ..course.variants import learner_variant
from ..kinds.base import Context, Submission
from ..kinds.notebook_side import points_scale
from ..kinds.registry import kind_of
from ..results import QuestionResult, Status, StudentResult, SubmissionStatus
from ..said import Said, paragraphs, say
from .prefetch import run_ahead
from .prepare import prepare_variants

if TYPE_CHECKING:
    from ..sandbox import Job

__all__ = [
    "PreparedAssignment",
    "PreparedExercise",
    "Submission",
    "apply_late_policy",
    "for_learner",
    "grade_all",
    "grade_submission",
    "hit_a_bug",
    "internal_failure",
    "planned_items",
    "prepare_assignment",
    "ungradable",
]

log = logging.getLogger(__name__)


def hit_a_bug(result: StudentResult) -> bool:
    """Was this submission left ungraded by a bug in graders (not by the submission)?"""
    return result.status is SubmissionStatus.INTERNAL


@dataclass(frozen=True)
class PreparedExercise:
    """An exercise of an assignment with its prepared state, and its points scale in it."""

    loaded: LoadedExercise
    prepared: Any  # the kind's own prepared state (``Kind[E, P]``: a ``P``)
    scale: float
    variants: tuple[Any, ...] = ()  # each variant's prepared state, as ``loaded.variants``
    variant: str | None = None  # the variant asked, once chosen for a learner

    def for_learner(self, course: Course, student: str) -> PreparedExercise:
        """The exercise as ``student`` is asked it: their variant, with its prepared state."""
        chosen = learner_variant(self.loaded, course, student)
        if chosen is None:
            return self
        loaded = replace(self.loaded, exercise=chosen.exercise)
        state = self.variants[chosen.number - 1]
        return replace(self, loaded=loaded, prepared=state, variant=str(chosen.number))


@dataclass(frozen=True)
class PreparedAssignment:
    """An assignment ready to grade submissions against."""

    assignment: Assignment
    exercises: tuple[PreparedExercise, ...]
    ctx: Context
    # Ids the course's items had before -> their ids now: a submission is read under today's.
    renamed: Mapping[str, str] = field(default_factory=dict)

    def due_on(self, due: datetime | None) -> PreparedAssignment:
        """The same, for a student whose own due date is ``due`` (an extension)."""
        mine = self.assignment.due_on(due)
        return self if mine is self.assignment else replace(self, assignment=mine)


def prepare_assignment(
    loaded: LoadedCourse,
    assignment_id: str,
    ctx: Context,
    prepared: Mapping[str, tuple[Any, ...]] | None = None,
) -> PreparedAssignment:
    """Everything that does not depend on a student, done once for the whole batch.

    ``prepared`` (exercise id -> each of its variants' states, as ``prepare_variants`` gives
    them) is what was prepared elsewhere: a cluster's workers grade against the states the
    batch prepared, never their own.
    """
    assignment = get_assignment(loaded, assignment_id)
    items = assignment.exercises
    if prepared is None:
        prepared = prepare_variants(loaded, [i.id for i in items], ctx)
    exercises = tuple(
        PreparedExercise(
            loaded.exercises[item.id],
            prepared[item.id][0],  # the base variant's: what the assignment is without a learner
            points_scale(loaded.exercises[item.id], item.points),
            prepared[item.id] if loaded.exercises[item.id].variants else (),
        )
        for item in items
    )
    return PreparedAssignment(assignment, exercises, ctx, loaded.renamed)


def for_learner(prep: PreparedAssignment, student: str) -> PreparedAssignment:
    """The assignment as ``student`` is asked it: each exercise in their variant.

    The variant comes from the learner id the grader knows, never from what was handed in.
    """
    return replace(
        prep, exercises=tuple(e.for_learner(prep.ctx.course, student) for e in prep.exercises)
    )


def planned_items(loaded: LoadedCourse, assignment_id: str) -> list[tuple[str, float]]:
    """(item id, max points) of every question and check, before anything is graded."""
    planned = []
    for item in get_assignment(loaded, assignment_id).exercises:
        ex = loaded.exercises[item.id]
        scale = points_scale(ex, item.points)
        planned += [(i.id, i.points * scale) for i in ex.kind.items(ex.exercise)]
    return planned


def answer_key(prep: PreparedAssignment) -> dict[str, str]:
    """Answer key -> the literal (or solution source) that earns full marks, in course order."""
    key: dict[str, str] = {}
    for ex in prep.exercises:
        key.update(kind_of(ex.loaded).key(ex.loaded.exercise, ex.prepared))
    return key


def grade_submission(prep: PreparedAssignment, sub: Submission) -> StudentResult:
    """Grade one submission; never raises (a grader bug becomes an ``ungradable`` result)."""
    try:
        prep = for_learner(prep, sub.student)
        sub = sub.renamed(prep.renamed)
        # The submission's sandbox jobs run together, in one child where they can.
        jobs = [job for ex in prep.exercises for job in _jobs(ex, sub, prep.ctx)]
        ctx = run_ahead(prep.ctx, jobs)
        questions = tuple(q for ex in prep.exercises for q in _grade_exercise(ex, sub, ctx))
        graded = apply_late_policy(prep.assignment, sub.student, questions, sub.submitted_at)
        return replace(graded, language=sub.language)
    except Exception as exc:  # noqa: BLE001 - one student's problem must not stop the batch
        # A bug in graders, not in the submission: its traceback goes to the log (stderr).
        log.error("internal error while grading %s", sub.student, exc_info=True)
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return internal_failure(
            sub.student, say("internal error while grading: {detail}", detail=detail)
        )


def grade_all(
    prep: PreparedAssignment, subs: Iterable[Submission], workers: int = 1
) -> Iterator[StudentResult]:
    """Grade submissions, ``workers`` at a time, yielding results in input order."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        yield from pool.map(lambda s: grade_submission(prep, s), subs)


def ungradable(student: str, reason: str | Said, language: str | None = None) -> StudentResult:
    """The result for a submission that could not even be read (``reason``: why, rendered
    in each reader's language; ``language``: the notebook's, when it says one)."""
    return StudentResult(
        student, (), SubmissionStatus.UNGRADABLE, paragraphs(reason), language=language
    )


def internal_failure(student: str, reason: str | Said) -> StudentResult:
    """The result for a submission graders failed on (a bug of its own, not the learner's):
    status ``internal``, graded again at the next run."""
    return StudentResult(student, (), SubmissionStatus.INTERNAL, paragraphs(reason))


def _jobs(ex: PreparedExercise, sub: Submission, ctx: Context) -> list[Job]:
    exercise, kind = ex.loaded.exercise, kind_of(ex.loaded)
    try:
        return kind.jobs(exercise, ex.prepared, kind.given(exercise, sub), ctx)
    except Exception:  # noqa: BLE001 - grading the exercise reports it, for this exercise only
        return []


def _grade_exercise(ex: PreparedExercise, sub: Submission, ctx: Context) -> list[QuestionResult]:
    exercise, kind = ex.loaded.exercise, kind_of(ex.loaded)
    try:
        results = kind.grade(exercise, ex.prepared, kind.given(exercise, sub), ctx)
    except Exception as exc:  # noqa: BLE001 - costs this exercise, not the submission
        feedback = paragraphs(
            say("This exercise could not be graded ({error}).", error=type(exc).__name__)
        )
        results = [
            QuestionResult(
                item.id, Status.ERROR, 0.0, item.points, feedback=feedback, explain=feedback
            )
            for item in kind.items(exercise)
        ]
    # The section is the question's own (``section: beyond`` on one question), else its
    # exercise's, whatever the kind: set here once for every document, as the class report
    # reads it (``reports.course_info``).
    sections = {item.id: item.section or exercise.section for item in kind.items(exercise)}
    return [
        replace(
            r.scaled(ex.scale) if ex.scale != 1.0 else r,
            section=sections.get(r.id, exercise.section),
            variant=ex.variant,
        )
        for r in results
    ]


def apply_late_policy(
    assignment: Assignment,
    student: str,
    questions: tuple[QuestionResult, ...],
    submitted_at: datetime | None,
) -> StudentResult:
    """The result of graded questions under the assignment's late policy and due date.

    Without a submission time the policy is not applied: no time is better than a wrong one.
    """
    if submitted_at is None:
        return StudentResult(student, questions)
    factor = assignment.late.factor(assignment.due, submitted_at)
    if factor is None:
        when = time_text(submitted_at, assignment.due.tzinfo)
        reason = say("submitted {when}, after the late cutoff", when=when)
        return StudentResult(
            student, questions, SubmissionStatus.LATE_CUTOFF, paragraphs(reason), late_factor=0.0
        )
    return StudentResult(student, questions, late_factor=factor)
