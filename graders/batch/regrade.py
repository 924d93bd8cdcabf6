"""After an instructor's decision: grading one student again, and outputs kept in step.

    regrade(session, "ps1", "ada", by="teacher")    ada's notebook graded again, audited
    refresh_outputs(engine, loaded, "ps1")           results.json, grades.csv, ... rewritten

Every decision (extension, override, drop) changes what the gradebook holds, so the
outputs the latest ``autograde`` wrote are rewritten from it at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from ..course.loaded import LoadedCourse, get_assignment
from ..errors import UsageError
from ..exports.results_files import default_out_dir, write_outputs
from ..gradebook import audit
from ..gradebook import store as gradebook
from ..gradebook.adjustments import dropped_from_course, dropped_students
from ..gradebook.batch_sources import BatchSource, last_source
from ..gradebook.roster_check import on_roster
from ..intake.roster import Roster, find_roster
from ..results import StudentResult, format_points
from ..submissions.archive import opened_submissions
from ..workspace import Workspace
from .autograde import grade_plan
from .plan import plan_batch
from .run_summary import Summary


@dataclass(frozen=True)
class Regraded:
    """One student graded again: their grade before and after, and the batch's summary."""

    before: StudentResult | None
    after: StudentResult | None
    summary: Summary


@dataclass(frozen=True)
class RegradeRequest:
    """Who to grade again, and from where (default: what the latest autograde read)."""

    student: str
    submissions: Path | None = None
    times: Path | None = None
    reason: str | None = None
    by: str = ""
    layout: str = "auto"  # --layout (auto: by the folder's structure)


def regrade(
    session: Workspace, assignment: str, request: RegradeRequest, db_url: str | None = None
) -> Regraded:
    """Grade one student's notebook again, even if unchanged, and record it in the audit."""
    get_assignment(session.loaded, assignment)
    url = db_url or gradebook.default_url(session.loaded.root)
    engine = gradebook.open_gradebook(url)
    course, student = session.loaded.course.id, request.student
    with engine.connect() as conn:
        if student in dropped_from_course(conn, course):
            raise UsageError(
                f"{student} is dropped from the course: take them back first "
                f"(`graders drop {student} --undo`)"
            )
        if student in dropped_students(conn, course, assignment):
            raise UsageError(
                f"{student} is dropped from {assignment}: take them back first "
                f"(`graders drop {student} {assignment} --undo`)"
            )
    source = last_source(engine, course, assignment)
    folder = request.submissions or (source.folder if source else None)
    if folder is None:
        raise UsageError(
            f"no `graders autograde {assignment} SUBMISSIONS` has run yet: pass --submissions DIR"
        )
    times = request.times or (source.times if source and not request.submissions else None)
    out = source.out if source else default_out_dir(session.loaded, assignment)
    roster = roster_of(session.loaded, source)
    before = _student(engine, course, assignment, student)
    with opened_submissions(folder, assignment) as opened:
        plan = plan_batch(
            session,
            assignment,
            opened,
            db_url=url,
            out_dir=out,
            force=True,
            times=times,
            only=student,
            roster=roster,
            layout=request.layout,
            archive=not folder.is_dir(),
        )
        summary = grade_plan(plan, session)
    after = _student(engine, course, assignment, student)
    with engine.begin() as conn:
        detail = f"graded again from {folder}: {_score(before)} -> {_score(after)}"
        audit.log(conn, (course, assignment, student), "regrade", detail, by=request.by)
    return Regraded(before, after, summary)


def refresh_outputs(engine: Engine, loaded: LoadedCourse, assignment: str) -> Path | None:
    """Rewrite the outputs of ``assignment`` from the gradebook, where autograde wrote them,
    held against the roster it used; None when there are none to rewrite: no autograde of it
    ran (a term on the service, whose pages and ``graders export`` read the gradebook
    itself; a folder that ``graders feedback`` or ``report`` made is not autograde's)."""
    source = last_source(engine, loaded.course.id, assignment)
    if source is None:
        return None
    out = source.out
    results = gradebook.class_results(engine, loaded.course.id, assignment, loaded.renamed)
    # The Gradescope files follow the assignment's feedback policy, as autograde's do.
    write_outputs(on_roster(results, roster_of(loaded, source)), out, loaded)
    return out


def roster_of(loaded: LoadedCourse, source: BatchSource | None) -> Roster | None:
    """The roster the latest autograde used, else the course's ``roster.csv``, if any."""
    if source is not None and source.roster is not None and source.roster.is_file():
        return find_roster(loaded.root, source.roster)
    return find_roster(loaded.root)


def _student(engine: Engine, course: str, assignment: str, student: str) -> StudentResult | None:
    return gradebook.student_result(engine, course, assignment, student)


def _score(result: StudentResult | None) -> str:
    if result is None:
        return "no grade"
    return f"{format_points(result.score)}/{format_points(result.max_score)} ({result.status})"
