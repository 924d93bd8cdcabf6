"""``graders requests`` and ``graders request``: learners' review requests in a terminal.

graders requests [ASSIGNMENT] [--all]               one line each, its id first
graders request ID accept --reason TEXT [--points P]
graders request ID preview                         what regrade would give, saved nowhere
graders request ID regrade --reason TEXT           the attempt graded again, today's key
graders request ID decline --reason TEXT
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import UsageError
from . import course_option, isolation_option, main
from .batch_options import db_option
from .term import by_option

if TYPE_CHECKING:
    from ..gradebook.requests import RegradeRequest


@main.command("requests")
@click.argument("assignment", required=False)
@click.option("--all", "every", is_flag=True, help="Answered requests too, not only open ones.")
@course_option
@db_option
def list_requests(
    assignment: str | None, every: bool, course: Path | None, db_url: str | None
) -> None:
    """List learners' review requests (open ones unless --all), one line each, id first."""
    from ..gradebook import requests as review
    from ..gradebook.store import existing_url, open_gradebook
    from ..workspace import load

    loaded = load(course)
    engine = open_gradebook(existing_url(db_url, loaded.root))
    found = review.listed(
        engine,
        loaded.course.id,
        assignment=assignment,
        status=None if every else review.OPEN,
    )
    for r in found:
        where = f"submission {r.attempt}" if r.attempt is not None else "batch grade"
        answered = f" — {r.answer}" if r.answer else ""
        click.echo(
            f"{r.id} {r.status} {r.student} {r.assignment} {r.question} ({where}): "
            f"{_one_line(r.reason)}{answered}"
        )
    if not found:
        click.echo("no open review request" if not every else "no review request")


@main.command("request")
@click.argument("request_id", type=int)
@click.argument("action", type=click.Choice(["preview", "accept", "regrade", "decline"]))
@click.option(
    "--reason", default=None, help="Your answer; the learner reads it (not with preview)."
)
@click.option(
    "--points", type=float, default=None, help="With accept: the question's points (default: all)."
)
@by_option
@course_option
@db_option
@isolation_option
def answer_request(
    request_id: int,
    action: str,
    reason: str | None,
    points: float | None,
    by: str | None,
    course: Path | None,
    db_url: str | None,
    isolation: str,
) -> None:
    """Answer review request ID: accept it (points by an override), have the attempt graded
    again against today's key (regrade), or decline it, with the --reason the learner reads;
    or first see what a regrade would give, question by question (preview: nothing saved)."""
    from ..gradebook import audit
    from ..gradebook import requests as review
    from ..gradebook.store import existing_url, open_gradebook
    from ..workspace import load

    loaded = load(course)
    url = existing_url(db_url, loaded.root)
    engine = open_gradebook(url)
    who = audit.actor(by)
    found = review.one(engine, loaded.course.id, request_id)
    if found is None:
        raise UsageError(f"no review request {request_id}")
    if points is not None and action != "accept":
        raise UsageError("--points goes with accept")
    if action == "preview":
        if reason is not None:
            raise UsageError(
                "a preview answers nothing: --reason goes with accept, regrade, decline"
            )
        _show_preview(course, url, found, isolation)
        return
    if reason is None:
        raise UsageError(f"{action} needs --reason: the learner reads it")
    if action == "accept":
        done = review.accept(
            engine, loaded.course.id, request_id, points, reason, who, loaded.renamed
        )
    elif action == "decline":
        done = review.answer(engine, loaded.course.id, request_id, review.DECLINED, reason, who)
    else:
        done = _regraded(course, url, found, reason, who, isolation)
    given = f", {done.points:g} points" if done.points is not None else ""
    click.echo(f"request {done.id}: {done.status}{given} ({done.student} {done.question})")


def _regraded(
    course: Path | None, url: str, found: RegradeRequest, reason: str, who: str, isolation: str
) -> RegradeRequest:
    """The request's attempt graded again (as ``graders regrade`` grades a served learner),
    then the request answered with the grade before and after."""
    from ..gradebook import requests as review
    from ..gradebook.store import open_gradebook
    from ..workspace import open_workspace

    if found.attempt is None:
        raise UsageError(
            f"request {found.id} is about a batch grade: `graders regrade {found.student} "
            f"{found.assignment}`, then answer it with accept or decline"
        )
    from ..service.regrade import regrade_served

    with open_workspace(course, isolation=isolation, workers=1) as session:
        engine = open_gradebook(url)
        done = regrade_served(
            session,
            engine,
            found.assignment,
            found.student,
            every=False,
            by=who,
            only=found.attempt,
        )
    before = done.before.score if done.before is not None else None
    after = done.after.score if done.after is not None else None
    said = (
        f"{reason.strip()} (graded again: {before:g} -> {after:g} points)"
        if (before is not None and after is not None)
        else reason
    )
    return review.answer(engine, session.loaded.course.id, found.id, review.REGRADED, said, who)


def _show_preview(course: Path | None, url: str, found: RegradeRequest, isolation: str) -> None:
    """Each question's points and status as graded and as graded again now (the requested
    one marked, changes first named), the totals; nothing saved."""
    from ..gradebook.store import open_gradebook
    from ..results import format_points
    from ..service.regrade import preview_request
    from ..workspace import open_workspace

    if found.attempt is None:
        raise UsageError(
            f"request {found.id} is about a batch grade: nothing stored to grade again"
        )
    with open_workspace(course, isolation=isolation, workers=1) as session:
        shown = preview_request(session, open_gradebook(url), found)
    click.echo(
        f"request {found.id}: {found.student} {found.assignment}, submission {found.attempt} "
        "graded again against today's key (nothing saved)"
    )
    for item, before, after in shown.rows:
        was = f"{format_points(before.points)} {before.status}" if before else "-"
        now = f"{format_points(after.points)} {after.status}" if after else "-"
        mark = "*" if item == found.question else " "
        changed = "" if was == now else "   changed"
        click.echo(f"{mark} {item}: {was} -> {now}{changed}")
    total = f"{format_points(shown.before)} -> {format_points(shown.after)}"
    click.echo(f"total: {total} of {format_points(shown.max_score)}")


def _one_line(text: str, limit: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
