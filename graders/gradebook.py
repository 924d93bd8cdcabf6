"""The gradebook: SQLAlchemy models, and the one place that writes grades.

Any SQLAlchemy URL works; the default is a SQLite file in the course folder. Three tables:

    runs         one row per ``graders autograde`` run (started, finished or not, counts)
    submissions  one row per (course, assignment, student): the latest grade, the grading
                 key it was computed under, and the submission's results JSON
    questions    one row per graded question of a submission: status, points, the
                 learner's answer, the expected answer, feedback, misconception, section

``record`` replaces a student's grade in a single transaction, so an interrupted batch
leaves every finished submission saved and no half-written one.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from sqlalchemy import (Boolean, DateTime, Float, ForeignKey, Integer, String, Text, TypeDecorator, UniqueConstraint,
                        create_engine, delete, event, insert, select)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship

from .errors import UsageError
from .results import QuestionResult, Status, SubmissionResult, SubmissionStatus


class UtcDateTime(TypeDecorator[datetime]):
    """An aware datetime stored as UTC (SQLite keeps no zone; it comes back as UTC)."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        return value.astimezone(timezone.utc).replace(tzinfo=None) if value is not None else None

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return value.replace(tzinfo=timezone.utc) if value is not None else None


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
    outcome: Mapped[str] = mapped_column(String(16), default="running")  # running | finished | interrupted
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
    retry: Mapped[bool] = mapped_column(Boolean, default=False)  # the grader failed, not the learner
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
    result_json: Mapped[str] = mapped_column(Text)
    questions: Mapped[list["QuestionRow"]] = relationship(order_by="QuestionRow.position", lazy="selectin")


class QuestionRow(Base):
    """One graded question (or code check) of a submission."""

    __tablename__ = "questions"

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    item_id: Mapped[str] = mapped_column(String(160), index=True)  # "<exercise>/<question>"
    exercise_id: Mapped[str] = mapped_column(String(64))
    section: Mapped[str | None] = mapped_column(String(32))
    prompt: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    points: Mapped[float] = mapped_column(Float)
    max_points: Mapped[float] = mapped_column(Float)
    answer: Mapped[str | None] = mapped_column(Text)
    expected: Mapped[str | None] = mapped_column(Text)
    feedback: Mapped[str] = mapped_column(Text, default="")
    misconception: Mapped[str | None] = mapped_column(String(64))


def default_url(course_root: Path) -> str:
    """The default gradebook: ``gradebook.db`` in the course folder."""
    return f"sqlite:///{(course_root / 'gradebook.db').resolve()}"


def existing_url(db_url: str | None, course_root: Path) -> str:
    """The gradebook to read from: ``--db``, or the default file, which must exist already."""
    url = db_url or default_url(course_root)
    if url == default_url(course_root) and not (course_root / "gradebook.db").is_file():
        raise UsageError(f"no gradebook at {course_root / 'gradebook.db'} (run `graders autograde` first, or pass --db)")
    return url


def shown_url(url: str) -> str:
    """The URL as it may be printed: without its password."""
    return make_url(url).render_as_string(hide_password=True)


def open_gradebook(url: str) -> Engine:
    """Connect to (and create, if needed) the gradebook at ``url``."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        _create_private_file(Path(parsed.database))
    engine = create_engine(parsed)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    Base.metadata.create_all(engine)
    return engine


def _create_private_file(path: Path) -> None:
    # Grades are private: a new database file is readable by its owner only.
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")  # a report reading the file must not fail a run
    # One grade is one transaction: in the default rollback journal each costs several
    # fsyncs (~25 ms here), which made saving, not grading, the batch's bottleneck. With
    # WAL and synchronous=NORMAL a commit survives a crash or kill -9 of the grader; only
    # a power loss may drop the last grades, and the next run grades those again.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def start_run(engine: Engine, course: str, assignment: str, torch_version: str, isolation: str | None) -> int:
    """Record that a run started; returns its id."""
    with Session(engine) as session, session.begin():
        run = RunRow(course=course, assignment=assignment, started_at=_now(), torch_version=torch_version,
                     isolation=isolation, outcome="running", graded=0, skipped=0, ungradable=0)
        session.add(run)
        session.flush()
        return run.id


def finish_run(engine: Engine, run_id: int, outcome: str, graded: int, skipped: int, ungradable: int,
               isolation: str | None = None) -> None:
    """Record how a run ended (``finished`` or ``interrupted``) and the isolation code ran under."""
    with Session(engine) as session, session.begin():
        run = session.get_one(RunRow, run_id)
        run.finished_at, run.outcome = _now(), outcome
        run.graded, run.skipped, run.ungradable = graded, skipped, ungradable
        run.isolation = isolation or run.isolation


def grading_keys(engine: Engine, course: str, assignment: str) -> dict[str, str | None]:
    """Student -> the key their saved grade was computed under (None: grade it again)."""
    query = select(SubmissionRow.student, SubmissionRow.grading_key, SubmissionRow.retry).where(
        SubmissionRow.course == course, SubmissionRow.assignment == assignment)
    with Session(engine) as session:
        return {student: (None if retry else key) for student, key, retry in session.execute(query)}


@dataclass(frozen=True)
class Graded:
    """A grade ready to save: the result, and where and under which key it was made."""

    result: SubmissionResult
    key: str  # the grading key: a later run skips this student while it is unchanged
    run_id: int | None
    source: str | None
    submitted_at: datetime | None
    torch_version: str
    isolation: str | None
    details: Mapping[str, tuple[str, str]]  # item id -> (article section, prompt)
    retry: bool = False  # the grader failed, not the learner: grade again next run


def record(engine: Engine, course: str, assignment: str, graded: Graded) -> None:
    """Save one student's grade, replacing any earlier one, in one transaction."""
    result = graded.result
    mine = (SubmissionRow.course == course, SubmissionRow.assignment == assignment, SubmissionRow.student == result.student)
    # Core statements rather than ORM objects: building a unit of work for ~40 question
    # rows per grade was the largest cost of the batch's main thread.
    with engine.begin() as conn:
        conn.execute(delete(QuestionRow).where(QuestionRow.submission_id.in_(select(SubmissionRow.id).where(*mine))))
        conn.execute(delete(SubmissionRow).where(*mine))
        submission_id = conn.execute(insert(SubmissionRow), _submission_row(course, assignment, graded)).inserted_primary_key[0]
        if result.questions:
            rows = [{**_question_row(i, q, graded.details), "submission_id": submission_id} for i, q in enumerate(result.questions)]
            conn.execute(insert(QuestionRow), rows)


def _submission_row(course: str, assignment: str, graded: Graded) -> dict[str, Any]:
    r = graded.result
    return dict(
        course=course, assignment=assignment, student=r.student, run_id=graded.run_id, grading_key=graded.key,
        retry=graded.retry, source=graded.source, submitted_at=graded.submitted_at, graded_at=_now(),
        status=r.status.value, error=r.error, score=r.score, raw_score=r.raw_score, max_score=r.max_score,
        late_factor=r.late_factor, torch_version=graded.torch_version, isolation=graded.isolation,
        result_json=json.dumps(r.to_json(), ensure_ascii=False),
    )


def _question_row(position: int, q: QuestionResult, details: Mapping[str, tuple[str, str]]) -> dict[str, Any]:
    section, prompt = details.get(q.id, (None, None))
    return dict(
        position=position, item_id=q.id, exercise_id=q.id.split("/", 1)[0],
        section=section, prompt=prompt, status=q.status.value, points=q.points, max_points=q.max_points,
        answer=q.answer, expected=q.expected, feedback=q.feedback, misconception=q.misconception,
    )


def results_document(engine_or_url: Engine | str, course: str, assignment: str, *, prompts: bool = False) -> dict[str, Any]:
    """The results document of every submission in the gradebook for ``assignment``.

    Each student also carries ``submitted_at`` and ``graded_at``; each question its
    article ``section`` (and its ``prompt`` when asked for).
    """
    engine = open_gradebook(engine_or_url) if isinstance(engine_or_url, str) else engine_or_url
    mine = (SubmissionRow.course == course, SubmissionRow.assignment == assignment)
    # Plain rows rather than ORM objects: this reads every question of the class at the
    # end of each batch, and building ~40 mapped objects per student cost most of it.
    with engine.connect() as conn:
        rows = conn.execute(select(*SubmissionRow.__table__.c).where(*mine).order_by(SubmissionRow.student)).all()
        questions: dict[int, list[Any]] = {row.id: [] for row in rows}
        for q in conn.execute(select(*QuestionRow.__table__.c).where(QuestionRow.submission_id.in_(
                select(SubmissionRow.id).where(*mine))).order_by(QuestionRow.submission_id, QuestionRow.position)):
            questions[q.submission_id].append(q)
    students = [_student_json(row, questions[row.id], prompts) for row in rows]
    latest = max(rows, key=lambda r: r.graded_at, default=None)
    return {
        "course": course,
        "assignment": assignment,
        "torch_version": ", ".join(sorted({r.torch_version for r in rows})) or None,
        "graded_at": latest.graded_at.isoformat(timespec="seconds") if latest else None,
        "isolation": ", ".join(sorted({r.isolation for r in rows if r.isolation})) or None,
        "students": students,
    }


def _student_json(row: Any, questions: list[Any], prompts: bool) -> dict[str, Any]:
    result = SubmissionResult(
        row.student, tuple(_question_result(q) for q in questions), SubmissionStatus(row.status), row.error,
        row.late_factor, extra={"submitted_at": _iso(row.submitted_at), "graded_at": _iso(row.graded_at)},
    )
    data = result.to_json()
    for q_json, q_row in zip(data["questions"], questions):
        q_json["section"] = q_row.section
        if prompts:
            q_json["prompt"] = q_row.prompt
    return data


def _question_result(q: Any) -> QuestionResult:
    return QuestionResult(q.item_id, Status(q.status), q.points, q.max_points, q.answer, q.expected, q.feedback, q.misconception)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value else None


def _now() -> datetime:
    return datetime.now(timezone.utc)
