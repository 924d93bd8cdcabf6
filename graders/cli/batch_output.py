"""What a batch says at its end (``autograde``, ``regrade``), and the exit code it leaves with."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..errors import ExitCode
from ..exports.formats import output_names
from ..intake.identity import lookalike_note

if TYPE_CHECKING:
    from ..batch.run_summary import Summary


def batch_exit_code(summary: Summary) -> ExitCode:
    """3 when a bug in graders kept a submission from being graded, else 1 when some
    submission could not be graded, else 0."""
    if summary.internal:
        return ExitCode.INTERNAL
    return ExitCode.OK if summary.all_graded else ExitCode.SOME_UNGRADED


def printable(text: str) -> str:
    """Text from submissions (folder names, notebook metadata) made safe for a terminal: no escape
    sequences."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def print_summary(summary: Summary) -> None:
    """What a batch did, for the terminal: counts, then every student who needs a look."""
    from ..gradebook.databases import shown_url

    counts = (
        f"graded {summary.graded}, skipped {summary.skipped} unchanged (of {summary.found} in the "
        "folder)"
    )
    click.echo(counts + (f"; {summary.late} late" if summary.late else ""))
    if summary.dropped:
        names = ", ".join(printable(s) for s in summary.dropped)
        click.echo(f"{len(summary.dropped)} dropped, not graded: {names}")
    _print_untimed(summary)
    _print_ignored_times(summary)
    bugs = {student for student, _ in summary.internal}
    ungradable = [(s, r) for s, r in summary.ungradable if s not in bugs]
    if ungradable:
        click.echo(f"{len(ungradable)} could not be graded:")
        for student, reason in ungradable:
            click.echo(f"  {printable(student)}: {printable(reason)}")
    if summary.missing:
        click.echo(f"{len(summary.missing)} on the roster handed nothing in (missing, 0 points):")
        click.echo("  " + ", ".join(printable(s) for s in summary.missing))
    if summary.unlisted:
        click.echo(
            f"warning: {len(summary.unlisted)} submission{'s' * (len(summary.unlisted) != 1)} "
            "from students not on the roster (graded, flagged, left out of LMS exports):"
        )
        click.echo("  " + ", ".join(printable(s) for s in summary.unlisted))
    alike = len(summary.lookalikes)
    _listed(
        f"warning: {alike} id{'s' * (alike != 1)} look like another learner's (graded as "
        "different learners; check they are):",
        [printable(lookalike_note(student, other)) for student, other in summary.lookalikes],
    )
    _listed(
        f"code failed, timed out or tampered with grading for {len(summary.crashed)} (graded, "
        "those items score 0):",
        [f"{printable(student)}: {', '.join(items)}" for student, items in summary.crashed],
    )
    click.echo(f"outputs: {summary.out_dir} ({', '.join(output_names())})")
    click.echo(f"gradebook: {shown_url(summary.db_url)}")
    _print_bugs(summary)


def _listed(heading: str, lines: list[str]) -> None:
    """``heading``, then each line indented; nothing when there is no line."""
    if lines:
        click.echo(heading)
        for line in lines:
            click.echo(f"  {line}")


def _print_untimed(summary: Summary) -> None:
    # Said once per run: the late policy needs a time nobody can change after the fact.
    if not summary.untimed:
        return
    count = f"no submission times for {len(summary.untimed)} of {summary.with_notebook}"
    if len(summary.untimed) == summary.with_notebook:
        click.echo(f"{count}: late policy not applied; see --times")
        return
    names = ", ".join(printable(s) for s in summary.untimed[:5])
    more = f" and {len(summary.untimed) - 5} more" if len(summary.untimed) > 5 else ""
    click.echo(f"{count} ({names}{more}): late policy not applied to them; see --times")


def _print_ignored_times(summary: Summary) -> None:
    # A learner's own files never set their time: the instructor's --times, nbgrader's
    # exchange and Gradescope's autograder do (see submissions.times).
    if not summary.ignored_times:
        return
    count = len(summary.ignored_times)
    click.echo(
        f"ignored {count} time file{'s' * (count != 1)} in learners' own folders (a learner's "
        "files never set their submission time; pass --times, or --layout nbgrader for "
        "nbgrader's submitted/ folder):"
    )
    files = ", ".join(printable(f) for _, f in summary.ignored_times[:10])
    more = f" and {count - 10} more" if count > 10 else ""
    click.echo(f"  {files}{more}")


def _print_bugs(summary: Summary) -> None:
    from .. import __version__
    from . import bug_request

    if not summary.internal:
        return
    click.echo(
        f"{len(summary.internal)} could not be graded because of an internal error in graders "
        "(the traceback is above; they are graded again on the next run):",
        err=True,
    )
    for student, reason in summary.internal:
        click.echo(f"  {printable(student)}: {printable(reason)}", err=True)
    click.echo(bug_request(__version__), err=True)
