"""The gradebook: SQLAlchemy models, and the one place that writes grades.

Any SQLAlchemy URL works (SQLite and PostgreSQL are tested); the default is a SQLite file
in the course folder. Two tables for grading, those of the instructor's decisions
(``term_tables``), those of ``graders serve`` (``service_tables``: its queue of attempts,
credentials and processes), and Alembic's revision (``revisions``):

    runs         one row per ``graders autograde`` run (started, finished or not, counts)
    submissions  one row per (course, assignment, student): the latest grade, the grading
                 key it was computed under, and the student's results (``StudentResult``
                 as JSON, the single source ``class_results`` reads back, with the
                 instructor's overrides and extensions laid over it)

``record_all`` replaces students' grades in a single transaction, so an interrupted batch
leaves every finished submission saved and no half-written one; a grade the database
cannot hold costs its own student only (saved as ``ungradable``, saying why).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, delete, func, insert, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import UsageError
from ..grading.pipeline import ungradable
from ..i18n import SOURCE_LANGUAGE
from ..intake.text import shown
from ..results import ClassResults, ResultsDocument, StudentResult, SubmissionStatus
from ..said import say
from . import lti_tables, service_tables, term_tables  # noqa: F401 - register their tables
from .adjustments import Adjustments, read_adjustments, students_overrides
from .databases import create_tables, engine_for
from .tables import Base, RunRow, SubmissionRow

WRITE_ATTEMPTS = 3  # a grade saved by two batches at once: the later one wins
READ_CHUNK = 200  # students a pass over a class reads from the database at once


def default_url(course_root: Path) -> str:
    """The default gradebook: ``gradebook.db`` in the course folder."""
    return f"sqlite:///{(course_root / 'gradebook.db').resolve()}"


def existing_url(db_url: str | None, course_root: Path) -> str:
    """The gradebook to read from: ``--db``, or the default file, which must exist already."""
    url = db_url or default_url(course_root)
    if url == default_url(course_root) and not (course_root / "gradebook.db").is_file():
        raise UsageError(
            f"no gradebook at {course_root / 'gradebook.db'} (run `graders autograde` first, or "
            "pass --db)"
        )
    return url


def open_gradebook(url: str) -> Engine:
    """Connect to (and create, if needed) the gradebook at ``url``.

    A gradebook whose tables are of an older revision is refused until ``upgrade``.
    """
    engine = engine_for(url)
    create_tables(engine, Base.metadata)
    return engine


def start_run(
    engine: Engine, course: str, assignment: str, torch_version: str, isolation: str | None
) -> int:
    """Record that a run started; returns its id."""
    with Session(engine) as session, session.begin():
        run = RunRow(
            course=course,
            assignment=assignment,
            started_at=_now(),
            torch_version=torch_version,
            isolation=isolation,
            outcome="running",
            graded=0,
            skipped=0,
            ungradable=0,
        )
        session.add(run)
        session.flush()
        return run.id


def finish_run(
    engine: Engine,
    run_id: int,
    outcome: str,
    graded: int,
    skipped: int,
    ungradable: int,
    isolation: str | None = None,
) -> None:
    """Record how a run ended (``finished`` or ``interrupted``) and the isolation code ran under."""
    with Session(engine) as session, session.begin():
        run = session.get_one(RunRow, run_id)
        run.finished_at, run.outcome = _now(), outcome
        run.graded, run.skipped, run.ungradable = graded, skipped, ungradable
        run.isolation = isolation or run.isolation


def grading_keys(engine: Engine, course: str, assignment: str) -> dict[str, str | None]:
    """Student -> the key their saved grade was computed under (None: grade it again)."""
    query = select(SubmissionRow.student, SubmissionRow.grading_key, SubmissionRow.retry).where(
        SubmissionRow.course == course, SubmissionRow.assignment == assignment
    )
    with Session(engine) as session:
        return {student: (None if retry else key) for student, key, retry in session.execute(query)}


@dataclass(frozen=True)
class Graded:
    """A grade ready to save: the result, and where and under which key it was made."""

    result: StudentResult
    key: str  # the grading key: a later run skips this student while it is unchanged
    run_id: int | None
    source: str | None
    submitted_at: datetime | None
    torch_version: str
    isolation: str | None
    retry: bool = False  # the grader failed, not the learner: grade again next run


def record(
    engine: Engine,
    course: str,
    assignment: str,
    graded: Graded,
    renamed: Mapping[str, str] | None = None,
) -> None:
    """Save one student's grade, replacing any earlier one, in one transaction."""
    record_all(engine, course, assignment, [graded], renamed)


def record_all(
    engine: Engine,
    course: str,
    assignment: str,
    grades: Sequence[Graded],
    renamed: Mapping[str, str] | None = None,
) -> list[Graded]:
    """Save the grades at hand, each replacing its student's earlier one, in one transaction
    (a commit for several costs about what one grade's did, and none waits for the next).
    A value the database cannot hold costs its own student only: the group fails, so each
    is saved alone, that one as ``ungradable`` (saying why). ``renamed``: the course's
    former ids -> ids now, for overrides set under a former id. Returns the grades as saved."""
    latest = list({g.result.student: g for g in grades}.values())  # the later grade counts
    if not latest:
        return []
    try:
        _write(engine, course, assignment, latest, renamed)
        return latest
    except Exception:  # noqa: BLE001 - saved one by one below; a database down fails there
        return [_write_alone(engine, course, assignment, g, renamed) for g in latest]


def _write_alone(
    engine: Engine,
    course: str,
    assignment: str,
    graded: Graded,
    renamed: Mapping[str, str] | None = None,
) -> Graded:
    """Save ``graded``, or else its student as ungradable, saying why (raises when even that
    cannot be saved: then the database itself is the problem)."""
    try:
        _write(engine, course, assignment, [graded], renamed)
        return graded
    except Exception as exc:  # noqa: BLE001 - said in this student's result
        detail = shown(f"{type(exc).__name__}: {exc}".splitlines()[0])[:300]
        reason = say("the gradebook could not save this grade: {detail}", detail=detail)
        refused = replace(
            graded,
            result=ungradable(graded.result.student, reason, graded.result.language),
            source=shown(graded.source)[:1000] if graded.source else None,
            retry=False,
        )
    _write(engine, course, assignment, [refused], renamed)
    return refused


def _write(
    engine: Engine,
    course: str,
    assignment: str,
    grades: list[Graded],
    renamed: Mapping[str, str] | None = None,
) -> None:
    for attempt in range(WRITE_ATTEMPTS):
        try:
            with engine.begin() as conn:
                replace_grades(conn, course, assignment, grades, renamed)
            return
        except IntegrityError:
            # Another batch saved one of these students between our delete and our insert
            # (in PostgreSQL a delete does not wait for a row that did not exist yet): the
            # next attempt's delete sees that row and replaces it.
            if attempt == WRITE_ATTEMPTS - 1:
                raise


def replace_grades(
    conn: Connection,
    course: str,
    assignment: str,
    grades: Sequence[Graded],
    renamed: Mapping[str, str] | None = None,
) -> None:
    """Save ``grades`` (one per student), each replacing its student's earlier one, in the
    caller's transaction (``graders serve`` saves a grade of record with its attempt)."""
    # Core statements rather than ORM objects: a unit of work per grade was the largest
    # cost of the batch's main thread.
    students = [g.result.student for g in grades]
    overrides = Adjustments(students_overrides(conn, course, assignment, students, renamed))
    rows = [
        submission_row(course, assignment, g) | score_columns(overrides.apply(g.result))
        for g in grades
    ]
    conn.execute(delete(SubmissionRow).where(*of_students(course, assignment, students)))
    conn.execute(insert(SubmissionRow), rows)


def of_student(course: str, assignment: str, student: str) -> tuple[ColumnElement[bool], ...]:
    """The conditions that pick one student's row of an assignment."""
    return of_students(course, assignment, [student])


def of_students(
    course: str, assignment: str, students: Iterable[str]
) -> tuple[ColumnElement[bool], ...]:
    """The conditions that pick these students' rows of an assignment (none: no row)."""
    return (
        SubmissionRow.course == course,
        SubmissionRow.assignment == assignment,
        SubmissionRow.student.in_(list(students)),
    )


def submission_row(course: str, assignment: str, graded: Graded) -> dict[str, Any]:
    r = graded.result
    return dict(
        course=course,
        assignment=assignment,
        student=r.student,
        run_id=graded.run_id,
        grading_key=graded.key,
        retry=graded.retry,
        source=graded.source,
        submitted_at=graded.submitted_at,
        graded_at=_now(),
        status=r.status.value,
        error=r.error_in(SOURCE_LANGUAGE),  # for queries: the English of the message
        late_factor=r.late_factor,
        torch_version=graded.torch_version,
        isolation=graded.isolation,
        result_json=stored_json(r),
    )


def stored_json(result: StudentResult) -> str:
    """A result as ``result_json`` keeps it."""
    # The engine's result only: times have their own columns, decisions their own tables.
    return replace(result, submitted_at=None, graded_at=None, extension=None).dumps()


def score_columns(result: StudentResult) -> dict[str, float]:
    """The score columns, counted with the instructor's overrides (what SQL queries see)."""
    return dict(score=result.score, raw_score=result.raw_score, max_score=result.max_score)


def graded_assignments(engine: Engine, course: str) -> list[str]:
    """The assignments of ``course`` the gradebook holds grades of."""
    query = select(SubmissionRow.assignment).where(SubmissionRow.course == course).distinct()
    with engine.connect() as conn:
        return sorted(conn.execute(query).scalars())


def class_results(
    engine_or_url: Engine | str,
    course: str,
    assignment: str,
    renamed: Mapping[str, str] | None = None,
) -> ClassResults:
    """The results of every submission in the gradebook for ``assignment``, read a student at
    a time: each pass over the students reads ``READ_CHUNK`` rows at a time, so a class's
    outputs never hold its results together, whatever its size.

    Students come in code point order, sorted here (a database's collation, PostgreSQL's
    following the locale, must not change the order of a document, of grades.csv or of a
    report); each carries ``submitted_at`` and ``graded_at`` from their row and the
    instructor's decisions laid over the saved grade. A question saved under an id the
    course has renamed since is read under today's (``renamed``).
    """
    engine = open_gradebook(engine_or_url) if isinstance(engine_or_url, str) else engine_or_url
    mine = (SubmissionRow.course == course, SubmissionRow.assignment == assignment)
    with engine.connect() as conn:
        adjust = read_adjustments(conn, course, assignment, renamed)
        names = sorted(
            (student, SubmissionStatus(status))
            for student, status in conn.execute(
                select(SubmissionRow.student, SubmissionRow.status).where(*mine)
            )
        )
        versions = conn.execute(select(SubmissionRow.torch_version).where(*mine).distinct())
        levels = conn.execute(select(SubmissionRow.isolation).where(*mine).distinct())
        latest = conn.execute(select(func.max(SubmissionRow.graded_at)).where(*mine)).scalar()
        torch_versions, isolations = (
            sorted(versions.scalars()),
            sorted(filter(None, levels.scalars())),
        )
    students = [student for student, _ in names]

    return ClassResults(
        course=course,
        assignment=assignment,
        torch_version=", ".join(torch_versions) or None,
        graded_at=_iso(latest),
        isolation=", ".join(isolations) or None,
        dropped=adjust.dropped,
        count=len(names),
        reader=lambda: _results(engine, course, assignment, students, adjust),
        lister=lambda: iter(names),
    )


def results_document(
    engine_or_url: Engine | str,
    course: str,
    assignment: str,
    renamed: Mapping[str, str] | None = None,
) -> ResultsDocument:
    """The results document of ``assignment`` held in memory (``class_results`` read whole):
    for a few students; a class's outputs read it a student at a time."""
    return class_results(engine_or_url, course, assignment, renamed).document()


def student_result(
    engine: Engine,
    course: str,
    assignment: str,
    student: str,
    renamed: Mapping[str, str] | None = None,
) -> StudentResult | None:
    """One student's results as every output shows them (decisions laid over), or None."""
    with engine.connect() as conn:
        adjust = read_adjustments(conn, course, assignment, renamed)
    return next(_results(engine, course, assignment, [student], adjust), None)


def _results(
    engine: Engine, course: str, assignment: str, students: list[str], adjust: Adjustments
) -> Iterator[StudentResult]:
    """The results of ``students`` (in code point order), ``READ_CHUNK`` rows at a time."""
    columns = (
        SubmissionRow.student,
        SubmissionRow.result_json,
        SubmissionRow.submitted_at,
        SubmissionRow.graded_at,
    )
    with engine.connect() as conn:
        for start in range(0, len(students), READ_CHUNK):
            chunk = students[start : start + READ_CHUNK]
            query = select(*columns).where(*of_students(course, assignment, chunk))
            for row in sorted(conn.execute(query), key=lambda r: str(r.student)):
                parsed = StudentResult.parse(row.result_json)
                submitted, graded = _iso(row.submitted_at), _iso(row.graded_at)
                yield adjust.apply(replace(parsed, submitted_at=submitted, graded_at=graded))


def _iso(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value else None


def _now() -> datetime:
    return datetime.now(UTC)
