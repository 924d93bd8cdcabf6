"""Grading a learner's service attempts again (``graders regrade STUDENT ASSIGNMENT`` when
they handed in through ``graders serve``), as the service grades them.

    done = regrade_served(session, engine, "ps1", "zhang", every=False, by="prof")
    shown = preview_request(session, engine, request)   # what it would give, saved nowhere

The attempt that is their grade of record (or, with ``every``, each of their graded
attempts) goes back to the queue and is graded here by the service's own grader, from the
notebook stored when it came in, with its server receive time: the late policy, the
learner's variant and due date, the grade of record (the attempt it counts, by the course's
rule) and the pages' history stay the service's. The audit trail says what was graded again
and the grade before and after. A server running at the same time may take one of them:
either grades it the same way, and it is saved once.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine

from ..errors import UsageError
from ..gradebook import audit
from ..gradebook import store as gradebook
from ..gradebook.requests import RegradeRequest
from ..gradebook.service_tables import FAILED, GRADED
from ..results import StudentResult, format_points
from ..workspace import Workspace
from .grader import Grader
from .queue import Queue
from .requests import Preview
from .servers import Servers
from .sites import Here
from .views import counted_id


@dataclass(frozen=True)
class RegradedServed:
    """The attempts graded again, and the learner's grade of record before and after."""

    attempts: tuple[int, ...]
    before: StudentResult | None
    after: StudentResult | None


def served_attempts(engine: Engine, course: str, assignment: str, student: str) -> list[int]:
    """The ids of ``student``'s graded (or failed) service attempts at ``assignment``."""
    queue = Queue(engine, course)
    return [
        a.id
        for a in queue.attempts(assignment, student)
        if a.counts and a.status in (GRADED, FAILED)
    ]


def regrade_served(
    session: Workspace,
    engine: Engine,
    assignment: str,
    student: str,
    *,
    every: bool,
    by: str,
    only: int | None = None,
) -> RegradedServed:
    """Grade ``student``'s counted service attempt (``every``: each one; ``only``: that
    one, which a review request is about) again."""
    course = session.loaded.course.id
    queue = Queue(engine, course, renamed=session.loaded.renamed)
    mine = served_attempts(engine, course, assignment, student)
    if not mine:
        raise UsageError(f"{student} handed nothing in for {assignment} through the service")
    counted = counted_id(queue, assignment, student)
    ids = mine if every or counted is None else [counted]
    if only is not None:
        if only not in mine:
            raise UsageError(f"submission {only} is not one of {student}'s graded {assignment}")
        ids = [only]
    before = gradebook.student_result(engine, course, assignment, student)
    grader = Grader(session, queue, Servers(engine), Here(session, 1))
    taken = grader.regrade(ids)
    if not taken:
        raise UsageError(
            f"submissions {ids} are being graded or queued now: regrade them once graded"
        )
    ids = taken
    after = gradebook.student_result(engine, course, assignment, student)
    with engine.begin() as conn:
        numbers = ", ".join(str(i) for i in ids)
        detail = f"graded again from submission {numbers}: {_score(before)} -> {_score(after)}"
        audit.log(conn, (course, assignment, student), "regrade", detail, by=by)
    return RegradedServed(tuple(ids), before, after)


def preview_request(session: Workspace, engine: Engine, found: RegradeRequest) -> Preview:
    """The attempt a review request is about graded again here against today's key, as the
    service would grade it, beside its grade as it stands; nothing is saved or queued."""
    from ..course.loaded import get_assignment
    from .requests import graded_again

    queue = Queue(engine, session.loaded.course.id, renamed=session.loaded.renamed)
    grader = Grader(session, queue, Servers(engine), Here(session, 1))
    shown = graded_again(queue, grader, get_assignment(session.loaded, found.assignment), found)
    if shown is None:
        raise UsageError(
            f"request {found.id} is about no stored submission: nothing to grade again"
        )
    return shown


def _score(result: StudentResult | None) -> str:
    if result is None:
        return "no grade"
    return f"{format_points(result.score)}/{format_points(result.max_score)} ({result.status})"
