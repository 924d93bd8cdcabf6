"""Commands for an instructor's decisions during a term: extend, override, regrade, drop,
history. Each is kept in the gradebook with who, when and why, and rewrites the outputs."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import UsageError
from . import course_option, isolation_option, main
from .batch_options import db_option, layout_option, times_option
from .batch_output import batch_exit_code, print_summary, printable

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from ..course.loaded import LoadedCourse
    from ..workspace import Workspace

by_option = click.option(
    "--by",
    default=None,
    metavar="NAME",
    help="Who decided, for the audit trail; default: the account running graders.",
)
reason_option = click.option("--reason", default=None, help="Why, for the audit trail.")


@main.command()
@click.argument("student")
@click.argument("assignment")
@click.option(
    "--days", type=click.FloatRange(min=0, min_open=True), help="Days after the due date."
)
@click.option(
    "--until",
    "until_text",
    metavar="TIME",
    help="The new due date, ISO 8601 (2036-10-08T12:00); without a zone, the course's due "
    "date's zone.",
)
@click.option("--clear", is_flag=True, help="Remove the extension granted by this command.")
@reason_option
@by_option
@course_option
@db_option
def extend(
    student: str,
    assignment: str,
    days: float | None,
    until_text: str | None,
    clear: bool,
    reason: str | None,
    by: str | None,
    course: Path | None,
    db_url: str | None,
) -> None:
    """Give STUDENT their own due date for ASSIGNMENT (--days N or --until TIME)."""
    from ..course.loaded import get_assignment
    from ..course.times import time_text, zone_of
    from ..gradebook import audit, extensions
    from ..workspace import load

    loaded = load(course)
    chosen = get_assignment(loaded, assignment)
    engine = _gradebook(loaded, db_url, create=True)
    if clear:
        if not extensions.revoke(engine, loaded.course.id, chosen, student, audit.actor(by)):
            raise UsageError(f"{student} has no extension for {assignment} from `graders extend`")
        _done(engine, loaded, assignment, f"{student}: extension for {assignment} removed")
        return
    until = _time(until_text, chosen.due) if until_text else None
    due = extensions.new_due(chosen, days, until)
    grant = extensions.Grant(student, due, reason, audit.actor(by))
    graded = extensions.grant(engine, loaded.course.id, chosen, grant)
    shown = time_text(due, zone_of(chosen))
    note = "" if graded else " (not graded yet: applies when they are)"
    _done(engine, loaded, assignment, f"{student}: {assignment} due {shown}{note}")


@main.command()
@click.argument("student")
@click.option(
    "--extra-hours",
    type=click.FloatRange(min=0),
    default=0.0,
    help="Hours added to every due date (and so to every late cutoff).",
)
@click.option(
    "--time-factor",
    type=click.FloatRange(min=1),
    default=1.0,
    help="Scale each assignment's window (its `opens:` to its due date) by this factor; "
    "assignments without `opens:` are moved by --extra-hours only.",
)
@click.option(
    "--extra-attempts",
    type=click.IntRange(min=0),
    default=0,
    help="Attempts beyond each assignment's `submissions.max`.",
)
@click.option("--clear", is_flag=True, help="Remove the student's accommodation.")
@click.option(
    "--reason", default=None, help="Why, for the audit trail; instructors only ever see it."
)
@by_option
@course_option
@db_option
def accommodate(
    student: str,
    extra_hours: float,
    time_factor: float,
    extra_attempts: int,
    clear: bool,
    reason: str | None,
    by: str | None,
    course: Path | None,
    db_url: str | None,
) -> None:
    """Give STUDENT a standing accommodation for every assignment, current and future.

    The due dates it gives are applied wherever a due date is read (autograde, graders
    serve, feedback, exports, LTI grades); an explicit `graders extend` still wins where it
    is later. Shown again with no option but STUDENT.
    """
    from ..gradebook import accommodations, audit
    from ..workspace import load

    loaded = load(course)
    engine = _gradebook(loaded, db_url, create=True)
    who = audit.actor(by)
    if clear:
        changes = accommodations.clear_rule(engine, loaded, student, who)
        if changes is None:
            raise UsageError(f"{student} has no accommodation")
        _refreshed(engine, loaded, changes, f"{student}: accommodation removed")
        return
    rule = accommodations.Rule(student, extra_hours, time_factor, extra_attempts, reason)
    changes = accommodations.set_rule(engine, loaded, rule, who)
    _refreshed(engine, loaded, changes, f"{student}: {rule.described()}")


def _refreshed(engine: Engine, loaded: LoadedCourse, changes: list[str], message: str) -> None:
    """Say what an accommodation changed, and rewrite the outputs of each graded assignment."""
    from ..batch.regrade import refresh_outputs
    from ..gradebook.store import graded_assignments

    click.echo(message)
    for change in changes:
        click.echo(f"  {change}")
    for assignment in graded_assignments(engine, loaded.course.id):
        if loaded.course.assignment(assignment) is not None:
            refresh_outputs(engine, loaded, assignment)


@main.command()
@click.argument("student")
@click.argument("assignment")
@click.argument("question")
@click.argument("points", type=float, required=False)
@click.option("--reason", default=None, help="Why; the student reads it on their feedback page.")
@click.option("--clear", is_flag=True, help="Give the question back its graded points.")
@by_option
@course_option
@db_option
def override(
    student: str,
    assignment: str,
    question: str,
    points: float | None,
    reason: str | None,
    clear: bool,
    by: str | None,
    course: Path | None,
    db_url: str | None,
) -> None:
    """Set POINTS for STUDENT's QUESTION (exercise/question) of ASSIGNMENT, with a --reason.

    The points survive every regrade; --clear removes them.
    """
    from ..course.loaded import get_assignment
    from ..gradebook import audit, overrides
    from ..workspace import load

    loaded = load(course)
    get_assignment(loaded, assignment)
    engine = _gradebook(loaded, db_url)
    who = audit.actor(by)
    if clear:
        overrides.clear_override(
            engine, loaded.course.id, assignment, student, question, who, loaded.renamed
        )
        _done(engine, loaded, assignment, f"{student}: override of {question} removed")
        return
    if points is None or reason is None:
        raise UsageError("give POINTS and --reason (or --clear)")
    decision = overrides.Decision(question, points, reason, who)
    overrides.set_override(engine, loaded.course.id, assignment, student, decision, loaded.renamed)
    unit = "point" if points == 1 else "points"
    _done(engine, loaded, assignment, f"{student}: {question} set to {points:g} {unit}")


@main.command()
@click.argument("student")
@click.argument("assignment")
@click.option(
    "--submissions",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="The submissions folder; default: the one the latest autograde of ASSIGNMENT read.",
)
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="Handed in through graders serve: grade each of their attempts again, not only the "
    "one that counts.",
)
@times_option
@layout_option
@by_option
@course_option
@db_option
@isolation_option
def regrade(
    student: str,
    assignment: str,
    submissions: Path | None,
    every: bool,
    times: Path | None,
    layout: str,
    by: str | None,
    course: Path | None,
    db_url: str | None,
    isolation: str,
) -> None:
    """Grade STUDENT's notebook for ASSIGNMENT again, even if it is unchanged.

    A learner who handed in through graders serve is graded again from the notebook the
    service stored, with its receive time (late policy kept); otherwise from the folder the
    latest autograde read (or --submissions)."""
    from ..batch.regrade import RegradeRequest
    from ..batch.regrade import regrade as run_regrade
    from ..course.loaded import get_assignment
    from ..gradebook import audit
    from ..gradebook import store as gradebook
    from ..workspace import open_workspace
    from . import exit_with

    with open_workspace(course, isolation=isolation, workers=1) as session:
        get_assignment(session.loaded, assignment)
        url = db_url or gradebook.default_url(session.loaded.root)
        if submissions is None and _served(url, session.loaded.course.id, assignment, student):
            _regrade_served(session, url, assignment, student, every, audit.actor(by))
            return
        request = RegradeRequest(student, submissions, times, by=audit.actor(by), layout=layout)
        done = run_regrade(session, assignment, request, db_url)
    print_summary(done.summary)
    exit_with(batch_exit_code(done.summary))


@main.command()
@click.argument("student")
@click.argument("assignment", required=False)
@click.option("--undo", is_flag=True, help="Take the student back (their grade is restored).")
@reason_option
@by_option
@course_option
@db_option
def drop(
    student: str,
    assignment: str | None,
    undo: bool,
    reason: str | None,
    by: str | None,
    course: Path | None,
    db_url: str | None,
) -> None:
    """Drop a withdrawn STUDENT from ASSIGNMENT, or without it from the whole course (every
    assignment, graded or to come): no grade in any output, none graded again, not missing.

    The grade they had is kept in the audit trail (graders history STUDENT).
    """
    from ..course.loaded import get_assignment
    from ..gradebook import audit, drops
    from ..workspace import load

    loaded = load(course)
    engine = _gradebook(loaded, db_url, create=True)
    who = audit.actor(by)
    if assignment is None:
        _drop_from_course(engine, loaded, student, undo, reason, who)
        return
    get_assignment(loaded, assignment)
    if undo:
        restored = drops.undrop(engine, loaded.course.id, assignment, student, by=who)
        again = "grade restored" if restored else "graded by the next autograde"
        _done(engine, loaded, assignment, f"{student}: back in {assignment} ({again})")
        return
    had = drops.drop(engine, loaded.course.id, assignment, student, reason=reason, by=who)
    kept = "; their grade is kept in the audit trail" if had else ""
    _done(engine, loaded, assignment, f"{student}: dropped from {assignment}{kept}")


def _drop_from_course(
    engine: Engine, loaded: LoadedCourse, student: str, undo: bool, reason: str | None, by: str
) -> None:
    from ..gradebook import drops

    course, every = loaded.course.id, [a.id for a in loaded.course.assignments]
    if undo:
        restored = drops.undrop_from_course(engine, course, every, student, by=by)
        grades = f" (grades restored: {', '.join(restored)})" if restored else ""
        message = f"{student}: back in the course{grades}"
    else:
        kept = drops.drop_from_course(engine, course, every, student, reason=reason, by=by)
        grades = f"; their grades of {', '.join(kept)} are kept in the audit trail" if kept else ""
        message = f"{student}: dropped from the course, every assignment{grades}"
    _done_all(engine, loaded, message)


@main.command()
@click.argument("student")
@click.option("--assignment", default=None, help="Only this assignment.")
@course_option
@db_option
def history(student: str, assignment: str | None, course: Path | None, db_url: str | None) -> None:
    """Every decision about STUDENT's grades: extensions, overrides, drops, regrades."""
    from ..course.times import time_text, zone_of
    from ..gradebook import audit
    from ..gradebook.store import existing_url, open_gradebook
    from ..workspace import load

    loaded = load(course)
    engine = open_gradebook(existing_url(db_url, loaded.root))
    entries = audit.history(engine, loaded.course.id, student, assignment)
    if not entries:
        click.echo(f"no decisions recorded for {printable(student)}")
        return
    for e in entries:
        why = f"  (reason: {e.reason})" if e.reason else ""
        when = time_text(e.at, zone_of(loaded.course.assignment(e.assignment)))
        click.echo(printable(f"{when}  {e.assignment}  {e.action:<14} {e.detail}  by {e.by}{why}"))


def _gradebook(loaded: LoadedCourse, db_url: str | None, create: bool = False) -> Engine:
    # An extension or a drop may come before anything is graded; an override may not.
    from ..gradebook.store import default_url, existing_url, open_gradebook

    url = (db_url or default_url(loaded.root)) if create else existing_url(db_url, loaded.root)
    return open_gradebook(url)


def _done(engine: Engine, loaded: LoadedCourse, assignment: str, message: str) -> None:
    from ..batch.regrade import refresh_outputs

    out = refresh_outputs(engine, loaded, assignment)
    click.echo(message)
    if out is None:
        click.echo(
            f"kept in the gradebook: the service's pages show it now, and `graders export "
            f"{assignment}` writes it for the LMS (no output folder to rewrite: no `graders "
            f"autograde {assignment}` has run)"
        )
        return
    click.echo(f"outputs rewritten in {out}; `graders feedback {assignment}` updates the pages")


def _done_all(engine: Engine, loaded: LoadedCourse, message: str) -> None:
    """``_done`` for a decision about every assignment: the outputs of each one graded."""
    from ..batch.regrade import refresh_outputs
    from ..gradebook.batch_sources import last_source

    click.echo(message)
    for found in loaded.course.assignments:
        if last_source(engine, loaded.course.id, found.id) is not None:
            out = refresh_outputs(engine, loaded, found.id)
            if out is not None:
                click.echo(f"{found.id}: outputs rewritten in {out}")


def _time(text: str, due: datetime) -> datetime:
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(f"--until: not an ISO 8601 time: {text!r} (2036-10-08T12:00)") from None
    # A time without a zone is read in the zone the course gives its due dates in.
    return when if when.tzinfo else when.replace(tzinfo=due.tzinfo)


def _served(url: str, course: str, assignment: str, student: str) -> bool:
    """Whether ``student`` handed ``assignment`` in through graders serve."""
    try:
        from ..service.regrade import served_attempts
    except ImportError:  # without the serve extra, there is no service to have handed in to
        return False
    from ..gradebook import store as gradebook

    return bool(served_attempts(gradebook.open_gradebook(url), course, assignment, student))


def _regrade_served(
    session: Workspace, url: str, assignment: str, student: str, every: bool, by: str
) -> None:
    from ..gradebook import store as gradebook
    from ..results import format_points
    from ..service.regrade import regrade_served

    done = regrade_served(
        session, gradebook.open_gradebook(url), assignment, student, every=every, by=by
    )
    numbers = ", ".join(str(i) for i in done.attempts)
    click.echo(f"{student} {assignment}: graded again from submission {numbers}")
    for label, result in (("before", done.before), ("after", done.after)):
        shown = (
            "no grade"
            if result is None
            else (
                f"{format_points(result.score)}/{format_points(result.max_score)}"
                + (
                    f" (late x{format_points(result.late_factor)})"
                    if result.late_factor < 1
                    else ""
                )
            )
        )
        click.echo(f"  {label}: {shown}")
