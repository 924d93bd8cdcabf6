"""Attempts: who may hand in now, and which attempt is a learner's grade of record.

    refusal(assignment, earlier, now, closes=..., dropped=False)   # None, or why not
    of_record(attempts, assignment.submissions.counts)              # the attempt that counts
    restated(attempt, assignment)                                   # under today's due date

An assignment's ``submissions`` in course.yml says how many attempts a learner has
(``max``), the least time between two (``every_s``) and which attempt is the grade of
record (``counts``: ``best``, the highest score after the late policy, the latest of equal
ones; or ``last``, the latest graded). An attempt graders failed to grade (``failed``)
costs the learner nothing: it is not counted. An assignment closes (its due date, the
learner's own if extended, plus the late cutoff) and takes no submission after: its key
may be shown by then, and a score of 0 could only replace a grade.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from ..course.model import Assignment
from ..course.times import time_text, zone_of
from ..gradebook.adjustments import WITHDRAWN
from ..gradebook.service_tables import FAILED, GRADED
from ..grading.pipeline import apply_late_policy
from ..i18n import N_
from ..results import NOT_GRADED, StudentResult
from .refusals import Refusal, Refused

# The API's ``reason`` of a 429 (``Refused.reason``).
ATTEMPT_LIMIT, TOO_SOON = "attempt-limit", "too-soon"


@dataclass(frozen=True)
class Attempt:
    """One notebook a learner handed in to the service, and its grade once graded."""

    id: int
    assignment: str
    student: str
    counts: bool  # may be a grade of record (an instructor's try never is)
    received_at: datetime  # the server's clock: the time the late policy reads
    status: str  # queued | grading | graded | failed
    digest: str
    filename: str
    graded_at: datetime | None = None
    seconds: float | None = None  # how long grading took
    result: StudentResult | None = None
    error: str | None = None  # why graders could not grade it (failed)
    number: int = 1  # among its learner's attempts at its assignment: "Attempt 2"

    @property
    def score(self) -> float | None:
        return self.result.score if self.result is not None else None

    @property
    def max_score(self) -> float | None:
        return self.result.max_score if self.result is not None else None

    @property
    def late_factor(self) -> float | None:
        return self.result.late_factor if self.result is not None else None


def refusal(
    assignment: Assignment,
    earlier: Sequence[Attempt],
    now: datetime,
    *,
    closes: datetime,
    dropped: bool = False,
) -> Refused | None:
    """Why a learner whose attempts so far are ``earlier`` may not hand in now, or None."""
    ident = assignment.id
    if dropped:
        return Refused(403, Refusal(WITHDRAWN, {"assignment": ident}))
    if now >= closes:
        when = time_text(closes, zone_of(assignment))
        text = N_("{assignment} closed at {time}: it takes no more submissions.")
        return Refused(403, Refusal(text, {"assignment": ident, "time": when}))
    policy = assignment.submissions
    used = [a for a in earlier if a.counts and a.status != FAILED]
    if policy.max is not None and len(used) >= policy.max:
        # No attempt opens again: the next change is the assignment closing.
        text = N_("You have used all {max} attempts at {assignment}.")
        return Refused(
            429,
            Refusal(text, {"max": policy.max, "assignment": ident}),
            retry_after=_seconds((closes - now).total_seconds()),
            reason=ATTEMPT_LIMIT,
        )
    if used and policy.every_s:
        wait = policy.every_s - (now - max(a.received_at for a in used)).total_seconds()
        if wait > 0:
            text = N_(
                "Wait {seconds} s before your next attempt at {assignment}: attempts are at "
                "least {every} s apart."
            )
            fields = {
                "seconds": _seconds(wait),
                "assignment": ident,
                "every": f"{policy.every_s:g}",
            }
            return Refused(429, Refusal(text, fields), retry_after=_seconds(wait), reason=TOO_SOON)
    return None


def attempts_left(assignment: Assignment, earlier: Sequence[Attempt]) -> int | None:
    """How many attempts a learner has left (None: no limit)."""
    limit = assignment.submissions.max
    used = sum(1 for a in earlier if a.counts and a.status != FAILED)
    return None if limit is None else max(0, limit - used)


def of_record(attempts: Sequence[Attempt], counts: str) -> Attempt | None:
    """The graded attempt that is the grade of record: the ``best`` (the latest of equal
    scores) or the ``last``; None before one is graded."""
    graded = [a for a in attempts if a.counts and a.status == GRADED and a.result is not None]
    if not graded:
        return None
    if counts == "last":
        return max(graded, key=lambda a: (a.received_at, a.id))
    return max(graded, key=lambda a: (a.score or 0.0, a.received_at, a.id))


def restated(attempt: Attempt, assignment: Assignment) -> Attempt:
    """``attempt`` graded under ``assignment``'s due date (a learner's own, when extended
    since): the late policy again, from the receive time."""
    result = attempt.result
    if result is None or result.status in NOT_GRADED:
        return attempt
    again = apply_late_policy(assignment, result.student, result.questions, attempt.received_at)
    kept = replace(
        again,
        submitted_at=result.submitted_at,
        graded_at=result.graded_at,
        language=result.language,
    )
    return replace(attempt, result=kept)


def _seconds(seconds: float) -> int:
    """Whole seconds to wait, rounded up (HTTP's Retry-After counts whole seconds)."""
    return max(1, math.ceil(seconds))
