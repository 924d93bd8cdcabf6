"""What a batch tells the one who ran it at the end: what it did, who needs a look."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..results import CRASHED, NOT_GRADED, ClassResults, StudentResult, SubmissionStatus


@dataclass(frozen=True)
class Summary:
    """What a batch did, and where its outputs are."""

    assignment: str
    found: int  # students in the submissions folder
    graded: int  # graded by this run
    skipped: int  # unchanged since their saved grade
    # (student, reason) of this folder, graded now or before
    ungradable: tuple[tuple[str, str], ...]
    late: int  # graded with a late penalty or past the cutoff
    # (student, exercises whose code failed, timed out or tampered)
    crashed: tuple[tuple[str, tuple[str, ...]], ...]
    interrupted: bool  # stopped before everything was graded; running again goes on
    out_dir: Path
    db_url: str
    missing: tuple[str, ...] = ()  # on the roster, nothing handed in (score 0)
    unlisted: tuple[str, ...] = ()  # handed in, not on the roster (graded, flagged)
    # Students with a notebook but no submission time from any source: no late policy.
    untimed: tuple[str, ...] = ()
    with_notebook: int = 0  # students of the folder with a notebook
    dropped: tuple[str, ...] = ()  # students of the folder dropped from the assignment
    # (student, reason) whose grading hit a bug in graders this run; graded again next run
    internal: tuple[tuple[str, str], ...] = ()
    lost: str | None = None  # why the cluster grading it went away (then ``interrupted``)
    # (student, file) of time files in learners' own folders: never read (submissions.times)
    ignored_times: tuple[tuple[str, str], ...] = ()
    lookalikes: tuple[tuple[str, str], ...] = ()  # (student, an id it looks like)

    @property
    def all_graded(self) -> bool:
        return not self.ungradable


@dataclass(frozen=True)
class RunTally:
    """What one run found and did, beside what the gradebook holds."""

    present: frozenset[str]  # students of the folder that were graded or skipped
    graded: int
    skipped: int
    untimed: tuple[str, ...]
    with_notebook: int
    dropped: tuple[str, ...]
    internal: tuple[tuple[str, str], ...]
    missing: tuple[str, ...] = ()
    unlisted: tuple[str, ...] = ()
    ignored_times: tuple[tuple[str, str], ...] = ()
    lookalikes: tuple[tuple[str, str], ...] = ()


def summarize(
    results: ClassResults, tally: RunTally, where: tuple[Path, str], interrupted: bool
) -> Summary:
    """The summary of a run, from the class's results it wrote and its own tally (a pass
    over the students, keeping only what the summary lists)."""
    failed, crashed, late = [], [], 0
    for s in results.students():
        if s.student not in tally.present:
            continue
        if s.status in NOT_GRADED:
            failed.append((s.student, str(s.error or "")))
        late += s.status is SubmissionStatus.LATE_CUTOFF or s.late_factor < 1
        if items := _crashed_items(s):
            crashed.append((s.student, items))
    out_dir, db_url = where
    return Summary(
        results.assignment,
        len(tally.present) + len(tally.dropped),
        tally.graded,
        tally.skipped,
        tuple(failed),
        late,
        tuple(crashed),
        interrupted,
        out_dir,
        db_url,
        missing=tally.missing,
        unlisted=tally.unlisted,
        untimed=tally.untimed,
        with_notebook=tally.with_notebook,
        dropped=tally.dropped,
        internal=tally.internal,
        ignored_times=tally.ignored_times,
        lookalikes=tally.lookalikes,
    )


def _crashed_items(student: StudentResult) -> tuple[str, ...]:
    """``exercise: status (n checks)`` for each exercise whose code failed, timed out or
    tampered."""
    counts: dict[tuple[str, str], int] = {}
    for q in student.questions:
        if q.status in CRASHED:
            key = (q.exercise, q.status.value)
            counts[key] = counts.get(key, 0) + 1
    return tuple(
        f"{ex}: {status}" + (f" ({n} checks)" if n > 1 else "")
        for (ex, status), n in counts.items()
    )
