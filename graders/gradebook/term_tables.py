"""The gradebook's tables for what an instructor decides during a term, beside the grades.

    extensions   a student's own due date for an assignment (from a command, extensions.yml
                 or an accommodation)
    accommodations  a student's standing rule for every assignment: extra hours, a time
                 factor, extra attempts (applied as extensions, ``accommodations.py``)
    regrade_requests  a learner's request for a review of one question of one attempt, and
                 the instructor's answer (``requests.py``)
    overrides    points set by hand for one question of one student's submission
    dropped      withdrawn students: their grade is kept out of every output and every run
    audit        every such decision, and every regrade, with who, when and why
    batch_sources  where the latest ``autograde`` of each assignment found its submissions

They are separate from ``submissions`` so that grading again, even with ``--force``, which
replaces a submission's row, never loses them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .tables import Base, UtcDateTime

#: ``extensions.origin``: granted by ``graders extend``, or listed in ``extensions.yml``.
BY_COMMAND = "command"
FROM_FILE = "extensions.yml"
BY_ACCOMMODATION = "accommodation"
#: ``dropped.assignment`` of a student dropped from the whole course: every assignment,
#: those graded already and those to come (no assignment id can be it).
EVERY_ASSIGNMENT = "*"


class ExtensionRow(Base):
    """A student's own due date: the latest of their rows (one per origin) counts."""

    __tablename__ = "extensions"
    __table_args__ = (UniqueConstraint("course", "assignment", "student", "origin"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    assignment: Mapped[str] = mapped_column(String(64))
    student: Mapped[str] = mapped_column(String(255))
    origin: Mapped[str] = mapped_column(String(32))  # BY_COMMAND | FROM_FILE | BY_ACCOMMODATION
    due: Mapped[datetime] = mapped_column(UtcDateTime)
    reason: Mapped[str | None] = mapped_column(Text)
    by: Mapped[str] = mapped_column(String(255))
    at: Mapped[datetime] = mapped_column(UtcDateTime)


class AccommodationRow(Base):
    """A student's standing accommodation, for every assignment of the course, current and
    future: ``extra_hours`` on every due date (and so on every cutoff), ``time_factor``
    scaling an assignment's window (``opens`` to ``due``) where it has one, and
    ``extra_attempts`` beyond ``submissions.max``. The reason is the instructor's only."""

    __tablename__ = "accommodations"
    __table_args__ = (UniqueConstraint("course", "student"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    student: Mapped[str] = mapped_column(String(255))
    extra_hours: Mapped[float] = mapped_column(Float)
    time_factor: Mapped[float] = mapped_column(Float)
    extra_attempts: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str | None] = mapped_column(Text)
    by: Mapped[str] = mapped_column(String(255))
    at: Mapped[datetime] = mapped_column(UtcDateTime)


class RegradeRequestRow(Base):
    """A learner's request for a review of one question of one graded attempt (a service
    attempt's id; none for a grade from ``autograde``), and what the instructor decided."""

    __tablename__ = "regrade_requests"
    __table_args__ = (Index("ix_requests_learner", "course", "assignment", "student"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    assignment: Mapped[str] = mapped_column(String(64))
    student: Mapped[str] = mapped_column(String(255))
    attempt: Mapped[int | None] = mapped_column(Integer)
    question: Mapped[str] = mapped_column(String(255))
    reason: Mapped[str] = mapped_column(Text)  # the learner's, as typed (shown as text)
    status: Mapped[str] = mapped_column(String(16))  # open | accepted | regraded | declined
    answer: Mapped[str | None] = mapped_column(Text)  # the instructor's reason
    points: Mapped[float | None] = mapped_column(Float)  # what an acceptance gave
    by: Mapped[str | None] = mapped_column(String(255))
    asked_at: Mapped[datetime] = mapped_column(UtcDateTime)
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class OverrideRow(Base):
    """Points set by hand for one question; they replace the graded points until cleared."""

    __tablename__ = "overrides"
    __table_args__ = (UniqueConstraint("course", "assignment", "student", "question"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    assignment: Mapped[str] = mapped_column(String(64))
    student: Mapped[str] = mapped_column(String(255))
    question: Mapped[str] = mapped_column(String(255))
    points: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(Text)
    by: Mapped[str] = mapped_column(String(255))
    at: Mapped[datetime] = mapped_column(UtcDateTime)


class DropRow(Base):
    """A withdrawn student: ``autograde`` skips them and no output lists a grade for them
    (of one assignment, or of every one: ``EVERY_ASSIGNMENT``)."""

    __tablename__ = "dropped"
    __table_args__ = (UniqueConstraint("course", "assignment", "student"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    assignment: Mapped[str] = mapped_column(String(64))
    student: Mapped[str] = mapped_column(String(255))
    reason: Mapped[str | None] = mapped_column(Text)
    by: Mapped[str] = mapped_column(String(255))
    at: Mapped[datetime] = mapped_column(UtcDateTime)


class AuditRow(Base):
    """One decision about a student's grade; rows are only ever added."""

    __tablename__ = "audit"
    __table_args__ = (Index("ix_audit_student", "course", "student"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    assignment: Mapped[str] = mapped_column(String(64))
    student: Mapped[str] = mapped_column(String(255))
    action: Mapped[str] = mapped_column(String(32))  # extend, override, drop, regrade, ...
    detail: Mapped[str] = mapped_column(Text)  # what changed, in words
    reason: Mapped[str | None] = mapped_column(Text)
    by: Mapped[str] = mapped_column(String(255))
    at: Mapped[datetime] = mapped_column(UtcDateTime)
    # What the decision replaced, as JSON (a dropped student's whole result): nothing is lost.
    previous: Mapped[str | None] = mapped_column(Text)


class BatchSourceRow(Base):
    """The submissions folder (and times file) the latest ``autograde`` of an assignment
    read, so that ``graders regrade STUDENT ASSIGNMENT`` finds the student's notebook, and
    where it wrote its outputs, which every later decision rewrites."""

    __tablename__ = "batch_sources"
    __table_args__ = (UniqueConstraint("course", "assignment"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    assignment: Mapped[str] = mapped_column(String(64))
    folder: Mapped[str] = mapped_column(Text)
    times: Mapped[str | None] = mapped_column(Text)
    out: Mapped[str] = mapped_column(Text)  # where its outputs went (``--out``)
    roster: Mapped[str | None] = mapped_column(Text)  # the roster it held the class against
    at: Mapped[datetime] = mapped_column(UtcDateTime)
