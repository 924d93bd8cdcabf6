"""The queue of attempts, in the gradebook: accepted durably, claimed once, finished once.

    queue.accept(upload, who, assignment)     # stored (bytes, learner, receive time, digest)
                                              # before the learner is answered; or Refused
    queue.claim(server)                       # the oldest queued attempt, now ``grading``
    queue.finish(claimed, server, result, assignment)   # graded, and the grade of record
    queue.fail(claimed, server, error)        # graders could not grade it (not counted)
    queue.release(claimed, server)            # its grading stopped: queued again
    queue.take(ids, server)                   # graded ones, straight to ``grading`` (regrade)

Every change is one transaction. A learner's changes are serialised (SQLite: the writer
lock, ``BEGIN IMMEDIATE``; PostgreSQL: an advisory lock per learner), so two uploads at
once cannot both take a last attempt, and two gradings finishing at once agree on the
grade of record. Claiming takes the oldest queued attempt (PostgreSQL: ``FOR UPDATE SKIP
LOCKED``, so several processes each take another). A grading is saved only while its
claim holds (``status = grading`` and ``claimed_by`` the server): an attempt taken back
from a server thought dead (``servers``) is graded by one server only, exactly once.

One piece: every state an attempt passes through, and the learner's view of their own
attempts that those states decide (attempts left, the one that counts), are one set of
rules over one table; split, a rule (a claim's condition, a learner's lock) would be
written twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import aliased

from ..course.model import Assignment
from ..course.visibility import closes
from ..gradebook import store as gradebook
from ..gradebook.accommodations import extra_attempts
from ..gradebook.adjustments import dropped_students, due_dates
from ..gradebook.databases import learner_lock, writing
from ..gradebook.service_tables import FAILED, GRADED, GRADING, QUEUED, AttemptRow
from ..i18n import N_
from ..results import StudentResult
from .attempts import Attempt, attempts_left, of_record, refusal, restated
from .identity import Identity
from .refusals import Refusal, Refused

MAX_TRIES = 3  # claims of one attempt: one that took its grader down that often fails
REQUEUED = {"status": QUEUED, "claimed_by": None, "claimed_at": None}  # in the queue again
_EARLIER = aliased(AttemptRow)
# An attempt's number among its learner's attempts at its assignment (1, 2, ...): the number
# a learner reads; ``id`` counts the whole class's.
NUMBER = (
    select(func.count())
    .where(
        _EARLIER.course == AttemptRow.course,
        _EARLIER.assignment == AttemptRow.assignment,
        _EARLIER.student == AttemptRow.student,
        _EARLIER.id <= AttemptRow.id,
    )
    .correlate(AttemptRow)
    .scalar_subquery()
    .label("number")
)
SUMMARY = (
    AttemptRow.id,
    NUMBER,
    AttemptRow.assignment,
    AttemptRow.student,
    AttemptRow.counts,
    AttemptRow.received_at,
    AttemptRow.status,
    AttemptRow.digest,
    AttemptRow.filename,
    AttemptRow.graded_at,
    AttemptRow.seconds,
    AttemptRow.result_json,
    AttemptRow.error,
)


@dataclass(frozen=True)
class Upload:
    """A notebook as it came in, read whole and checked to be one for its assignment."""

    assignment: str
    filename: str
    data: bytes
    received_at: datetime  # when the server had it all

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class Claimed:
    """An attempt a server took to grade: what grading needs of it."""

    id: int
    assignment: str
    student: str
    counts: bool
    received_at: datetime
    filename: str
    notebook: bytes


# What grading an attempt needs of its row, in ``Claimed``'s order.
CLAIMED = (
    AttemptRow.id,
    AttemptRow.assignment,
    AttemptRow.student,
    AttemptRow.counts,
    AttemptRow.received_at,
    AttemptRow.filename,
    AttemptRow.notebook,
)


class Queue:
    """The attempts of one course."""

    def __init__(
        self,
        engine: Engine,
        course: str,
        limit: int = 10_000,
        renamed: Mapping[str, str] | None = None,
    ) -> None:
        self.engine, self.course = engine, course
        self.limit = limit  # attempts waiting at most: past it, uploads wait (503)
        # The course's former ids -> ids now: a grade kept under an old id reads under the new.
        self.renamed = dict(renamed or {})

    def accept(self, upload: Upload, who: Identity, assignment: Assignment) -> Attempt:
        """Store ``upload`` as ``who``'s next attempt, or raise ``Refused`` saying why not."""
        with self._learner(assignment.id, who.student, durable=True) as conn:
            earlier = self._attempts(conn, assignment.id, who.student)
            if not who.instructor:
                mine = self._as_learner_sees(conn, assignment, who.student)
                no = refusal(
                    mine,
                    earlier,
                    upload.received_at,
                    closes=closes(mine),
                    dropped=who.student in dropped_students(conn, self.course, assignment.id),
                )
                if no is not None:
                    raise no
            waiting = conn.execute(
                select(func.count()).select_from(AttemptRow).where(AttemptRow.status == QUEUED)
            ).scalar_one()
            if waiting >= self.limit:
                text = N_("The grader has {count} notebooks waiting: send yours again soon.")
                raise Refused(503, Refusal(text, {"count": waiting}), retry_after=30)
            row = dict(
                course=self.course,
                assignment=assignment.id,
                student=who.student,
                counts=not who.instructor,
                received_at=upload.received_at,
                digest=upload.digest,
                filename=upload.filename[:255],
                notebook=upload.data,
                status=QUEUED,
                tries=0,
            )
            inserted = conn.execute(insert(AttemptRow).values(row)).inserted_primary_key
            assert inserted is not None
        return Attempt(
            int(inserted[0]),
            assignment.id,
            who.student,
            not who.instructor,
            upload.received_at,
            QUEUED,
            upload.digest,
            upload.filename[:255],
            number=len(earlier) + 1,  # the learner's lock is held: none came in between
        )

    def claim(self, server: str) -> Claimed | None:
        """The oldest queued attempt of this course, marked as ``server``'s to grade; None
        when none waits. Of this course only: a gradebook may hold several (a term's course
        and the next one's), each graded by a server that loaded it."""
        with writing(self.engine) as conn:
            query = (
                select(AttemptRow.id, AttemptRow.tries)
                .where(AttemptRow.status == QUEUED, AttemptRow.course == self.course)
                .order_by(AttemptRow.id)
                .limit(1)
                .with_for_update(skip_locked=True)
            )
            found = conn.execute(query).one_or_none()
            if found is None:
                return None
            if found.tries >= MAX_TRIES:
                # It was taken that many times and its grader never finished: it stops here.
                self._mark_failed(conn, found.id, None, "stopped its grader each time", None)
                return None
            now = datetime.now(UTC)
            conn.execute(
                update(AttemptRow)
                .where(AttemptRow.id == found.id)
                .values(status=GRADING, claimed_by=server, claimed_at=now, tries=found.tries + 1)
            )
            row = conn.execute(select(*CLAIMED).where(AttemptRow.id == found.id)).one()
        return Claimed(*row)

    def finish(
        self,
        claimed: Claimed,
        server: str,
        result: StudentResult,
        seconds: float,
        assignment: Assignment,
        graded_by: tuple[str, str | None],
    ) -> bool:
        """Save the grade of ``claimed`` and, for a learner, their grade of record (the
        attempt ``assignment.submissions.counts`` chooses, under their due date now), in one
        transaction; False when the claim was lost (another server grades it)."""
        now = datetime.now(UTC)
        result = _timed(result, claimed.received_at, now)
        with self._learner(claimed.assignment, claimed.student) as conn:
            done = conn.execute(
                update(AttemptRow)
                .where(*_held(claimed.id, server))
                .values(
                    status=GRADED,
                    graded_at=now,
                    seconds=seconds,
                    score=result.score,
                    max_score=result.max_score,
                    late_factor=result.late_factor,
                    result_json=result.dumps(),
                )
            )
            if done.rowcount != 1:
                return False
            if claimed.counts:
                self._record(conn, assignment, claimed.student, graded_by)
        return True

    def fail(self, claimed: Claimed, server: str, error: str, seconds: float) -> bool:
        """Mark ``claimed`` as one graders could not grade (a bug: it costs no attempt)."""
        with writing(self.engine) as conn:
            return self._mark_failed(conn, claimed.id, server, error, seconds)

    def release(self, claimed: Claimed, server: str, counted: bool = True) -> bool:
        """Queue ``claimed`` again (its grading stopped on a problem of graders'), if
        ``server`` still holds it. ``counted``: its claim counts towards ``MAX_TRIES`` (not
        when the grading could not even start: the cluster was away)."""
        tries = AttemptRow.tries if counted else AttemptRow.tries - 1
        with writing(self.engine) as conn:
            done = conn.execute(
                update(AttemptRow)
                .where(*_held(claimed.id, server))
                .values(REQUEUED | {"tries": tries})
            )
            return bool(done.rowcount == 1)

    def requeue(self, ids: list[int]) -> int:
        """Queue graded (or failed) attempts ``ids`` of this course again, to be graded
        afresh from their stored notebooks (``graders regrade``): how many. Their receive
        times, and so their late policy, stay as they were."""
        with writing(self.engine) as conn:
            done = conn.execute(
                update(AttemptRow)
                .where(
                    AttemptRow.course == self.course,
                    AttemptRow.id.in_(ids),
                    AttemptRow.status.in_((GRADED, FAILED)),
                )
                .values(REQUEUED | {"tries": 0})
            )
            return int(done.rowcount)

    def take(self, ids: list[int], server: str) -> list[Claimed]:
        """Graded (or failed) attempts ``ids`` of this course, claimed by ``server`` to be
        graded again at once (``graders regrade``): never queued on the way, so that no other
        server, which may hold an older key, takes them first."""
        now = datetime.now(UTC)
        with writing(self.engine) as conn:
            conn.execute(
                update(AttemptRow)
                .where(
                    AttemptRow.course == self.course,
                    AttemptRow.id.in_(ids),
                    AttemptRow.status.in_((GRADED, FAILED)),
                )
                .values(status=GRADING, claimed_by=server, claimed_at=now, tries=1)
            )
            rows = conn.execute(
                select(*CLAIMED)
                .where(
                    AttemptRow.id.in_(ids),
                    AttemptRow.status == GRADING,
                    AttemptRow.claimed_by == server,
                )
                .order_by(AttemptRow.id)
            ).all()
        return [Claimed(*row) for row in rows]

    def give_back(self, server: str) -> int:
        """Queue again what ``server`` was grading (it is stopping): how many."""
        with writing(self.engine) as conn:
            done = conn.execute(
                update(AttemptRow)
                .where(AttemptRow.status == GRADING, AttemptRow.claimed_by == server)
                .values(REQUEUED)
            )
            return int(done.rowcount)

    def stored(self, attempt_id: int) -> Claimed | None:
        """An attempt as grading needs it (its notebook as it came in), claimed by no one:
        to grade it again without saving (a review request's preview)."""
        query = select(*CLAIMED).where(
            AttemptRow.id == attempt_id, AttemptRow.course == self.course
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).one_or_none()
        return None if row is None else Claimed(*row)

    def attempt(self, attempt_id: int) -> Attempt | None:
        """One attempt of this course, or None."""
        query = select(*SUMMARY).where(
            AttemptRow.id == attempt_id, AttemptRow.course == self.course
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).one_or_none()
        return None if row is None else self._attempt(row)

    def attempts(self, assignment: str, student: str) -> list[Attempt]:
        """A learner's attempts at an assignment, oldest first."""
        with self.engine.connect() as conn:
            return self._attempts(conn, assignment, student)

    def all_attempts(self, assignment: str) -> list[Attempt]:
        """Every attempt at an assignment, oldest first (for the instructor)."""
        query = (
            select(*SUMMARY)
            .where(AttemptRow.course == self.course, AttemptRow.assignment == assignment)
            .order_by(AttemptRow.id)
        )
        with self.engine.connect() as conn:
            return [self._attempt(r) for r in conn.execute(query)]

    def finished(self, ids: list[int]) -> set[int]:
        """Those of attempts ``ids`` that are graded, or failed, by now."""
        query = select(AttemptRow.id).where(
            AttemptRow.id.in_(ids), AttemptRow.status.in_((GRADED, FAILED))
        )
        with self.engine.connect() as conn:
            return set(conn.execute(query).scalars())

    def waiting(self) -> dict[str, int]:
        """How many attempts of this course are in each state."""
        query = (
            select(AttemptRow.status, func.count())
            .where(AttemptRow.course == self.course)
            .group_by(AttemptRow.status)
        )
        with self.engine.connect() as conn:
            found = {status: int(n) for status, n in conn.execute(query)}
        return {status: found.get(status, 0) for status in (QUEUED, GRADING, GRADED, FAILED)}

    def dropped(self, assignment: str, student: str) -> bool:
        """Whether ``student`` was withdrawn from ``assignment`` (or the whole course)."""
        with self.engine.connect() as conn:
            return student in dropped_students(conn, self.course, assignment)

    def attempts_left(self, assignment: Assignment, student: str) -> int | None:
        """How many attempts ``student`` has left at ``assignment`` (None: no limit), under
        their own limit: the one place a learner's attempts left are counted."""
        with self.engine.connect() as conn:
            mine = self._as_learner_sees(conn, assignment, student)
            return attempts_left(mine, self._attempts(conn, assignment.id, student))

    def due_for(self, assignment: Assignment, student: str) -> Assignment:
        """``assignment`` with ``student``'s own due date, if they were given one."""
        with self.engine.connect() as conn:
            return self._as_learner_sees(conn, assignment, student)

    def _record(
        self,
        conn: Connection,
        assignment: Assignment,
        student: str,
        graded_by: tuple[str, str | None],
    ) -> None:
        if student in dropped_students(conn, self.course, assignment.id):
            return  # a drop keeps them out of every output
        mine = self._as_learner_sees(conn, assignment, student)
        attempts = [restated(a, mine) for a in self._attempts(conn, assignment.id, student)]
        counted = of_record(attempts, assignment.submissions.counts)
        if counted is None or counted.result is None:
            return
        torch_version, isolation = graded_by
        grade = gradebook.Graded(
            counted.result,
            key=f"serve:{counted.id}:{counted.digest[:16]}",
            run_id=None,
            source=f"submission {counted.id} ({counted.filename})",
            submitted_at=counted.received_at,
            torch_version=torch_version,
            isolation=isolation,
        )
        gradebook.replace_grades(conn, self.course, assignment.id, [grade], self.renamed)

    def _attempts(self, conn: Connection, assignment: str, student: str) -> list[Attempt]:
        query = (
            select(*SUMMARY)
            .where(
                AttemptRow.course == self.course,
                AttemptRow.assignment == assignment,
                AttemptRow.student == student,
            )
            .order_by(AttemptRow.id)
        )
        return [self._attempt(r) for r in conn.execute(query)]

    def _attempt(self, row: Any) -> Attempt:
        return _attempt(row, self.renamed)

    def _as_learner_sees(
        self, conn: Connection, assignment: Assignment, student: str
    ) -> Assignment:
        due = due_dates(conn, self.course, assignment.id).get(student)
        mine = assignment.due_on(due)
        extra = extra_attempts(conn, self.course, student)
        if extra and mine.submissions.max is not None:
            allowed = mine.submissions.model_copy(update={"max": mine.submissions.max + extra})
            mine = mine.model_copy(update={"submissions": allowed})
        return mine

    def _mark_failed(
        self,
        conn: Connection,
        attempt_id: int,
        server: str | None,
        error: str,
        seconds: float | None,
    ) -> bool:
        where = _held(attempt_id, server) if server else (AttemptRow.id == attempt_id,)
        done = conn.execute(
            update(AttemptRow)
            .where(*where)
            .values(status=FAILED, graded_at=datetime.now(UTC), seconds=seconds, error=error)
        )
        return bool(done.rowcount == 1)

    @contextmanager
    def _learner(
        self, assignment: str, student: str, durable: bool = False
    ) -> Iterator[Connection]:
        """A write transaction in which no other change of this learner's attempts runs."""
        with learner_lock(self.engine, self.course, assignment, student, durable) as conn:
            yield conn


def _held(attempt_id: int, server: str | None) -> tuple[Any, ...]:
    """The conditions under which ``server`` still holds its claim on an attempt."""
    return (
        AttemptRow.id == attempt_id,
        AttemptRow.status == GRADING,
        AttemptRow.claimed_by == server,
    )


def _timed(result: StudentResult, received_at: datetime, now: datetime) -> StudentResult:
    return replace(
        result,
        submitted_at=received_at.isoformat(timespec="seconds"),
        graded_at=now.isoformat(timespec="seconds"),
    )


def _attempt(row: Any, renamed: Mapping[str, str]) -> Attempt:
    result = StudentResult.parse(row.result_json).renamed(renamed) if row.result_json else None
    return Attempt(
        row.id,
        row.assignment,
        row.student,
        row.counts,
        row.received_at,
        row.status,
        row.digest,
        row.filename,
        row.graded_at,
        row.seconds,
        result,
        row.error,
        row.number,
    )
