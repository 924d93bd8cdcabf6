"""The gradebook's tables for ``graders serve``, beside the grades of the batch.

    attempts     every notebook the service accepted: its bytes, learner, assignment, the
                 server's receive time and a digest, written before the learner is answered;
                 it is the queue too (``status``: queued, grading, graded, failed) and keeps
                 each attempt's result
    credentials  who may use the service: a learner's or an instructor's token, and the
                 sessions of the pages, each kept only as the SHA-256 of its secret
    servers      each running service process, with its heartbeat: an attempt claimed by a
                 process that stopped beating goes back to the queue

The grade of record of a learner (the attempt the assignment's ``submissions.counts``
chooses) is written to ``submissions`` like any other grade, so every output reads it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .tables import Base, UtcDateTime

QUEUED, GRADING, GRADED, FAILED = "queued", "grading", "graded", "failed"
LEARNER, INSTRUCTOR = "learner", "instructor"
TOKEN, SESSION = "token", "session"
# A one-time pass from an LMS launch to a new window (an iframe that lost its cookie).
HANDOFF = "handoff"


class AttemptRow(Base):
    """One notebook handed in to the service, and what became of it."""

    __tablename__ = "attempts"
    __table_args__ = (
        Index("ix_attempts_status", "status", "id"),
        Index("ix_attempts_learner", "course", "assignment", "student"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    assignment: Mapped[str] = mapped_column(String(64))
    student: Mapped[str] = mapped_column(String(255))
    # False for an instructor's try: graded, never a grade of record.
    counts: Mapped[bool] = mapped_column(Boolean)
    received_at: Mapped[datetime] = mapped_column(UtcDateTime)
    digest: Mapped[str] = mapped_column(String(64))  # SHA-256 of the notebook's bytes
    filename: Mapped[str] = mapped_column(String(255))
    notebook: Mapped[bytes] = mapped_column(LargeBinary)
    status: Mapped[str] = mapped_column(String(16))
    claimed_by: Mapped[str | None] = mapped_column(String(36))  # servers.id grading it
    tries: Mapped[int] = mapped_column(Integer)  # times claimed: one that kills its grader stops
    claimed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    graded_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    seconds: Mapped[float | None] = mapped_column(Float)  # how long grading took
    score: Mapped[float | None] = mapped_column(Float)
    max_score: Mapped[float | None] = mapped_column(Float)
    late_factor: Mapped[float | None] = mapped_column(Float)
    result_json: Mapped[str | None] = mapped_column(Text)  # StudentResult, as submissions keep it
    error: Mapped[str | None] = mapped_column(Text)  # why it failed (a grader's problem)


class CredentialRow(Base):
    """A token an instructor minted, or a page session signed in with one."""

    __tablename__ = "credentials"

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    student: Mapped[str] = mapped_column(String(255), index=True)
    role: Mapped[str] = mapped_column(String(16))  # LEARNER | INSTRUCTOR
    kind: Mapped[str] = mapped_column(String(16))  # TOKEN | SESSION | HANDOFF
    digest: Mapped[str] = mapped_column(String(64), unique=True)  # SHA-256 of the secret
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class ServerRow(Base):
    """A ``graders serve`` process: where it runs, and when it last said it was alive."""

    __tablename__ = "servers"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime)
    beat_at: Mapped[datetime] = mapped_column(UtcDateTime)
    stopped_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
