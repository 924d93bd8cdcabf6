"""Commands for a whole class: autograde (notebooks -> gradebook -> exports) and feedback."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import ExitCode
from ..exports.formats import outputs_listed
from . import course_option, exit_with, isolation_option, main, pages_lang_option
from .batch_options import cluster_option, db_option, layout_option, times_option
from .batch_output import batch_exit_code, print_summary, printable
from .roster import roster_option, warn_roster

if TYPE_CHECKING:
    from rich.progress import Progress

    from ..batch.progress import Reporter
    from ..batch.run_summary import Summary
    from ..results import StudentResult


@main.command()
@click.argument("assignments", metavar="ASSIGNMENT...", nargs=-1, required=True)
@click.argument("submissions", type=click.Path(exists=True, path_type=Path))
@course_option
@db_option
@roster_option
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=f"Where {outputs_listed()} go; default: "
    "autograded/ASSIGNMENT/ in the course folder. With several assignments, OUT/ASSIGNMENT/.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=lambda: min(os.cpu_count() or 1, 64),
    show_default="the number of CPUs",
    help="Submissions graded at once.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Grade every submission again, even those whose saved grade is up to date.",
)
@times_option
@layout_option
@cluster_option
@isolation_option
def autograde(
    assignments: tuple[str, ...],
    submissions: Path,
    course: Path | None,
    db_url: str | None,
    roster_path: Path | None,
    out_dir: Path | None,
    workers: int,
    force: bool,
    times: Path | None,
    layout: str,
    cluster: str | None,
    isolation: str,
) -> None:
    """Grade every student's notebook in SUBMISSIONS for each ASSIGNMENT into the gradebook.

    SUBMISSIONS holds <student>/<assignment>.ipynb, or is nbgrader's submitted/ folder
    (or its course root), or an LMS's bulk download (a flat folder, or its .zip). The
    layout is recognised by structure, never by a folder's name (see --layout), so a
    learner named `submitted` is a learner; a time file inside a learner's own folder is
    ignored, and the run says so.
    Several assignments (`graders autograde ps1 ps2 ps3 submitted/`) are graded one after
    the other by one warm sandbox, so the whole course pays its start-up once.
    Unchanged submissions are skipped, so an interrupted run can simply be started again.
    Exit 0: everyone graded; 1: some submission could not be, or the cluster went away;
    3: a bug in graders kept some from being graded.
    """
    from ..batch.autograde import autograde as run_batch
    from ..batch.cluster import ClusterExecutor
    from ..course.loaded import get_assignment
    from ..intake.roster import find_roster
    from ..workspace import load, open_workspace

    names = tuple(dict.fromkeys(assignments))
    if times is not None and len(names) > 1:
        raise click.UsageError("--times holds one assignment's times: grade it on its own")
    loaded = load(course)
    for name in names:  # an unknown assignment stops before torch, and before any grading
        get_assignment(loaded, name)
    roster = find_roster(loaded.root, roster_path)  # a broken roster stops before torch
    warn_roster(roster)
    executor = ClusterExecutor(cluster, isolation=isolation) if cluster else None
    stop = threading.Event()
    summaries: list[Summary] = []
    interrupted = False
    try:
        with (
            open_workspace(loaded, isolation=isolation, workers=workers) as session,
            _stop_on_ctrl_c(stop),
        ):
            for name in names:
                if len(names) > 1:
                    click.echo(f"{name}:", err=True)
                with _reporter() as reporter:
                    summary = run_batch(
                        session,
                        name,
                        submissions,
                        db_url=db_url,
                        out_dir=out_dir / name if out_dir and len(names) > 1 else out_dir,
                        workers=workers,
                        force=force,
                        times=times,
                        reporter=reporter,
                        stop=stop,
                        roster=roster,
                        executor=executor,
                        layout=layout,
                    )
                summaries.append(summary)
                if summary.lost or summary.interrupted:
                    break
    except KeyboardInterrupt:
        interrupted = True
    for name, summary in zip(names, summaries, strict=False):
        if len(names) > 1:
            click.echo(f"{name}:")
        print_summary(summary)
    lost = next((s.lost for s in summaries if s.lost), None)
    if lost:
        click.echo(
            f"{lost}: every grade finished so far is saved; run the same command again to go on",
            err=True,
        )
        sys.exit(ExitCode.SOME_UNGRADED)
    if interrupted or any(s.interrupted for s in summaries):
        click.echo(
            "interrupted: every grade finished so far is saved; run the same command again to go "
            "on",
            err=True,
        )
        sys.exit(ExitCode.INTERRUPTED)
    exit_with(max(batch_exit_code(s) for s in summaries))


@main.command()
@click.argument("assignment")
@course_option
@db_option
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the pages go; default: autograded/ASSIGNMENT/feedback/ in the course folder.",
)
@pages_lang_option
def feedback(
    assignment: str, course: Path | None, db_url: str | None, out_dir: Path | None, lang: str | None
) -> None:
    """Write one self-contained HTML feedback page per student of ASSIGNMENT, from the gradebook."""
    from ..batch.autograde import default_out_dir
    from ..course.loaded import get_assignment
    from ..gradebook.store import existing_url
    from ..reports.feedback import write_feedback
    from ..workspace import load

    loaded = load(course)
    get_assignment(loaded, assignment)
    out = out_dir or default_out_dir(loaded, assignment) / "feedback"
    written = write_feedback(loaded, assignment, existing_url(db_url, loaded.root), out, lang)
    click.echo(f"wrote {len(written)} feedback page{'s' * (len(written) != 1)} to {out}")


@contextmanager
def _stop_on_ctrl_c(stop: threading.Event) -> Iterator[None]:
    """The first Ctrl-C asks the batch to stop cleanly (grades in hand are saved); a second one
    stops at once."""

    def first(signum: int, frame: object) -> None:
        stop.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        click.echo("stopping: saving the grades in hand (Ctrl-C again to stop at once)", err=True)

    previous = signal.signal(signal.SIGINT, first)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _reporter() -> Iterator[Reporter]:
    """A progress bar on a terminal, one line per submission otherwise (logs, CI)."""
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield _Lines()
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("grading"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        yield _Bar(progress)


class _Bar:
    """Feeds a rich progress bar."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task = progress.add_task("grading", total=None, rate="", start=False)
        self.started = time.monotonic()

    def start(self, total: int, skipped: int) -> None:
        if skipped:
            self.progress.console.print(
                f"skipping {skipped} unchanged submission{'s' * (skipped != 1)}"
            )
        self.progress.update(self.task, total=total)
        self.progress.start_task(self.task)
        self.started = time.monotonic()

    def done(self, result: StudentResult) -> None:
        rate = (self.progress.tasks[0].completed + 1) / max(time.monotonic() - self.started, 1e-9)
        self.progress.update(self.task, advance=1, rate=f"{rate:.1f}/s")


class _Lines:
    """One plain line per graded submission: done/total, rate and time left."""

    def __init__(self) -> None:
        self.total = self.count = 0
        self.started = time.monotonic()

    def start(self, total: int, skipped: int) -> None:
        self.total, self.started = total, time.monotonic()
        click.echo(
            f"grading {total} submission{'s' * (total != 1)}; skipping {skipped} unchanged",
            err=True,
        )

    def done(self, result: StudentResult) -> None:
        self.count += 1
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.count / elapsed
        eta = (self.total - self.count) / rate
        what = (
            f"{result.score:g}/{result.max_score:g}"
            if result.status.value not in ("ungradable", "internal")
            else "could not be graded"
        )
        click.echo(
            f"[{self.count}/{self.total}] {printable(result.student)}: {what} ({rate:.2f}/s, ETA "
            f"{eta:.0f}s)",
            err=True,
        )
