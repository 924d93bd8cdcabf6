"""A learner's results and the gradebook row that records them, for the gradebook tests."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Engine

from graders.gradebook import store as gradebook
from graders.results import QuestionResult, Status, StudentResult


def result(student: str = "ada", *, wrong: bool = False, late: float = 1.0) -> StudentResult:
    """``student``'s results: ex/same-memory right (1 point), ex/grad right or wrong (2)."""
    second = (
        QuestionResult(
            "ex/grad",
            Status.WRONG,
            0.0,
            2.0,
            "tensor(1.)",
            "tensor(2.)",
            "The gradient is 2.",
            "grad-is-one",
            section="§2",
        )
        if wrong
        else QuestionResult(
            "ex/grad",
            Status.CORRECT,
            2.0,
            2.0,
            "tensor(2.)",
            "tensor(2.)",
            "The gradient is 2.",
            section="§2",
        )
    )
    first = QuestionResult(
        "ex/same-memory", Status.CORRECT, 1.0, 1.0, "False", "False", "clone copies.", section="§1a"
    )
    return StudentResult(student, (first, second), late_factor=late)


def graded(
    res: StudentResult,
    key: str = "k1",
    *,
    run_id: int | None = None,
    retry: bool = False,
    submitted_at: datetime | None = None,
) -> gradebook.Graded:
    """What the gradebook records of ``res``: its grading key, run and source."""
    return gradebook.Graded(
        res,
        key=key,
        run_id=run_id,
        source=f"{res.student}/ps1.ipynb",
        submitted_at=submitted_at,
        torch_version="2.13.0",
        isolation="plain",
        retry=retry,
    )


def record_results(
    engine: Engine,
    course: str,
    assignment: str,
    results: Iterable[StudentResult],
    isolation: str = "plain",
) -> None:
    """Record each of ``results`` as the latest grade of its learner, with no run or source:
    a class whose grades a report or a page is made from."""
    for r in results:
        gradebook.record(
            engine,
            course,
            assignment,
            gradebook.Graded(
                r,
                key="k",
                run_id=None,
                source=None,
                submitted_at=None,
                torch_version="2.13.0",
                isolation=isolation,
            ),
        )
