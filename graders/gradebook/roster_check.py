"""The roster held against a class's submissions: who is missing, who is not on it.

A student on the roster with no submission is ``missing``: 0 points, a row in the
gradebook and in every export, listed by the run. A submission from someone the roster
does not list is graded as usual and flagged (``on_roster: false`` in results.json, a
``roster`` column in grades.csv, a warning in the run); an LMS export leaves it out,
since the LMS would not know whom to give it to. Without a roster nobody is either.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, replace

from sqlalchemy import delete, insert
from sqlalchemy.engine import Engine

from ..grading.torch_side import torch_version
from ..intake.roster import Roster
from ..results import ClassResults, ResultsDocument, StudentResult, SubmissionStatus
from ..said import Text
from . import store as gradebook
from .tables import SubmissionRow

MISSING_KEY = "missing"  # the grading key of a missing row: any submission differs from it
MISSING_REASON = "no submission"


@dataclass(frozen=True)
class RosterCheck:
    """What the roster says about a batch."""

    missing: tuple[str, ...] = ()  # on the roster, not in the folder nor graded before
    unlisted: tuple[str, ...] = ()  # in the folder, not on the roster


def check_roster(
    roster: Roster | None, present: Collection[str], saved: Mapping[str, str | None]
) -> RosterCheck:
    """Compare the roster with the students ``present`` in the folder and those with a
    ``saved`` grade (student -> grading key), which stands even if their notebook is no
    longer in this folder."""
    if roster is None:
        return RosterCheck()
    have = set(present) | {s for s, key in saved.items() if key != MISSING_KEY}
    missing = tuple(s for s in roster.students if s not in have)
    unlisted = tuple(sorted(s for s in present if s not in roster))
    return RosterCheck(missing, unlisted)


def missing_result(student: str) -> StudentResult:
    """The result of a student who handed nothing in."""
    return StudentResult(student, (), SubmissionStatus.MISSING, Text.of(MISSING_REASON))


def apply_roster(doc: ResultsDocument, roster: Roster | None) -> ResultsDocument:
    """``doc`` with each student marked on the roster or not, and a ``missing`` entry for
    each roster student it lacks (a roster newer than the last run)."""
    if roster is None:
        return doc
    ordered = replace(doc, students=tuple(sorted(doc.students, key=lambda s: s.student)))
    return on_roster(ClassResults.of(ordered), roster).document()


def on_roster(results: ClassResults, roster: Roster | None) -> ClassResults:
    """``results`` (in student order) read with each student marked on the roster or not,
    and a ``missing`` entry, in its place, for each roster student it lacks."""
    if roster is None:
        return results
    have = {student for student, _ in results.names()} | set(results.dropped)
    missing = sorted(s for s in roster.students if s not in have)  # a dropped one withdrew

    def read() -> Iterator[StudentResult]:
        marked = (replace(s, on_roster=s.student in roster) for s in results.students())
        absent = (replace(missing_result(s), on_roster=True) for s in missing)
        return heapq.merge(marked, absent, key=lambda s: s.student)

    def names() -> Iterator[tuple[str, SubmissionStatus]]:
        absent = ((s, SubmissionStatus.MISSING) for s in missing)
        return heapq.merge(results.names(), absent, key=lambda n: n[0])

    return replace(results, count=results.count + len(missing), reader=read, lister=names)


def record_missing(
    engine: Engine, course: str, assignment: str, missing: Collection[str], run_id: int | None
) -> None:
    """Save the run's missing students (and forget earlier runs' missing ones)."""
    rows = [
        gradebook.Graded(
            missing_result(student),
            key=MISSING_KEY,
            run_id=run_id,
            source=None,
            submitted_at=None,
            torch_version=torch_version(),
            isolation=None,
        )
        for student in missing
    ]
    _replace_missing(engine, course, assignment, rows)


def _replace_missing(
    engine: Engine, course: str, assignment: str, missing: list[gradebook.Graded]
) -> None:
    """Make the ``missing`` rows of an assignment exactly ``missing``, in one transaction.

    A missing row is the roster's say, not a grade: each run replaces them all, so a
    student who handed in since, or who left the roster, is no longer missing.
    """
    with engine.begin() as conn:
        conn.execute(
            delete(SubmissionRow).where(
                SubmissionRow.course == course,
                SubmissionRow.assignment == assignment,
                SubmissionRow.status == SubmissionStatus.MISSING.value,
            )
        )
        if missing:
            conn.execute(
                insert(SubmissionRow),
                [
                    gradebook.submission_row(course, assignment, g)
                    | gradebook.score_columns(g.result)
                    for g in missing
                ],
            )
