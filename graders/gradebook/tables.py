"""The gradebook's tables, as SQLAlchemy models (``gradebook`` reads and writes them)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class UtcDateTime(TypeDecorator[datetime]):
    """An aware datetime stored as UTC (SQLite keeps no zone; it comes back as UTC)."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        return value.astimezone(UTC).replace(tzinfo=None) if value is not None else None

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return value.replace(tzinfo=UTC) if value is not None else None


class Base(DeclarativeBase):
    """Base of the gradebook's tables."""


class RunRow(Base):
    """One ``autograde`` run: a run without ``finished_at`` was killed or interrupted."""

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    assignment: Mapped[str] = mapped_column(String(64))
    started_at: Mapped[datetime] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    outcome: Mapped[str] = mapped_column(
        String(16), default="running"
    )  # running | finished | interrupted
    graded: Mapped[int] = mapped_column(Integer, default=0)
    skipped: Mapped[int] = mapped_column(Integer, default=0)
    ungradable: Mapped[int] = mapped_column(Integer, default=0)
    torch_version: Mapped[str] = mapped_column(String(32))
    isolation: Mapped[str | None] = mapped_column(String(16))


class SubmissionRow(Base):
    """The latest grade of one student's submission of one assignment."""

    __tablename__ = "submissions"
    __table_args__ = (UniqueConstraint("course", "assignment", "student"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    assignment: Mapped[str] = mapped_column(String(64), index=True)
    student: Mapped[str] = mapped_column(String(255))
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id"))
    grading_key: Mapped[str] = mapped_column(String(64))  # notebook bytes + course content + torch
    retry: Mapped[bool] = mapped_column(
        Boolean, default=False
    )  # the grader failed, not the learner
    source: Mapped[str | None] = mapped_column(String(1024))
    submitted_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    graded_at: Mapped[datetime] = mapped_column(UtcDateTime)
    status: Mapped[str] = mapped_column(String(16))
    error: Mapped[str | None] = mapped_column(Text)
    score: Mapped[float] = mapped_column(Float)
    raw_score: Mapped[float] = mapped_column(Float)
    max_score: Mapped[float] = mapped_column(Float)
    late_factor: Mapped[float] = mapped_column(Float)
    torch_version: Mapped[str] = mapped_column(String(32))
    isolation: Mapped[str | None] = mapped_column(String(16))
    # The student's results as JSON: the one source the results document is rebuilt from.
    # The columns above it are what runs and SQL queries need, written from the same result.
    result_json: Mapped[str] = mapped_column(Text)
