"""What an instructor decided about an assignment's grades, read from the gradebook.

A saved grade (``submissions.result_json``) is always the engine's; the decisions live
in their own tables (``term_tables``) and are laid over it wherever a grade is read:

    overrides   replace a question's points, and say so (``QuestionResult.override``)
    extensions  a student's own due date (``StudentResult.extension``), used when grading
    dropped     students left out of every output (``ResultsDocument.dropped``)

So grading again, even with ``--force``, changes the engine's part and keeps the rest.
A grade or an override kept under an id the course has since renamed reads under today's
id (``renamed``: the course's former id -> id now, ``course/renames.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.engine import Connection

from ..i18n import N_
from ..results import Extension, Override, QuestionResult, StudentResult
from .term_tables import EVERY_ASSIGNMENT, DropRow, ExtensionRow, OverrideRow


@dataclass(frozen=True)
class Adjustments:
    """The decisions about one assignment, ready to lay over saved grades."""

    overrides: Mapping[str, Mapping[str, Override]] = field(default_factory=dict)
    extensions: Mapping[str, Extension] = field(default_factory=dict)
    dropped: tuple[str, ...] = ()
    renamed: Mapping[str, str] = field(default_factory=dict)

    def apply(self, result: StudentResult) -> StudentResult:
        """``result`` under today's ids, with its overridden points and its extension."""
        result = result.renamed(self.renamed)
        mine = self.overrides.get(result.student, {})
        extension = self.extensions.get(result.student)
        if not mine and extension is None:
            return result
        questions = tuple(with_override(q, mine.get(q.id)) for q in result.questions)
        return replace(result, questions=questions, extension=extension)


def with_override(q: QuestionResult, override: Override | None) -> QuestionResult:
    """The question with the instructor's points, when they set some."""
    return q if override is None else replace(q, points=override.points, override=override)


def read_adjustments(
    conn: Connection, course: str, assignment: str, renamed: Mapping[str, str] | None = None
) -> Adjustments:
    """Every decision about ``assignment``, for a whole results document."""
    return Adjustments(
        overrides=_overrides(conn, course, assignment, renamed=renamed),
        extensions=extensions(conn, course, assignment),
        dropped=tuple(sorted(dropped_students(conn, course, assignment))),
        renamed=renamed or {},
    )


def student_overrides(
    conn: Connection,
    course: str,
    assignment: str,
    student: str,
    renamed: Mapping[str, str] | None = None,
) -> dict[str, Override]:
    """Question (under today's id) -> the points an instructor set, for one student."""
    return _overrides(conn, course, assignment, student, renamed).get(student, {})


def students_overrides(
    conn: Connection,
    course: str,
    assignment: str,
    students: list[str],
    renamed: Mapping[str, str] | None = None,
) -> dict[str, dict[str, Override]]:
    """Student -> question (under today's id) -> the points an instructor set."""
    return _overrides(conn, course, assignment, students, renamed)


def _overrides(
    conn: Connection,
    course: str,
    assignment: str,
    students: str | list[str] | None = None,
    renamed: Mapping[str, str] | None = None,
) -> dict[str, dict[str, Override]]:
    query = select(OverrideRow).where(
        OverrideRow.course == course, OverrideRow.assignment == assignment
    )
    if isinstance(students, str):
        query = query.where(OverrideRow.student == students)
    elif students is not None:
        query = query.where(OverrideRow.student.in_(students))
    found: dict[str, dict[str, Override]] = {}
    current = renamed or {}
    # Oldest first: an override set under today's id after a rename wins over an older one.
    for row in conn.execute(query.order_by(OverrideRow.at)):
        found.setdefault(row.student, {})[current.get(row.question, row.question)] = Override(
            row.points, row.reason, row.by, _iso(row.at)
        )
    return found


def extensions(conn: Connection, course: str, assignment: str) -> dict[str, Extension]:
    """Student -> their extension: of a command's and the file's, the later due date."""
    query = select(ExtensionRow).where(
        ExtensionRow.course == course, ExtensionRow.assignment == assignment
    )
    latest: dict[str, Extension] = {}
    for row in conn.execute(query.order_by(ExtensionRow.due)):
        latest[row.student] = Extension(_iso(row.due), row.reason, row.by, _iso(row.at))
    return latest


def due_dates(conn: Connection, course: str, assignment: str) -> dict[str, datetime]:
    """Student -> their own due date, for those granted an extension."""
    return {
        student: datetime.fromisoformat(ext.due)
        for student, ext in extensions(conn, course, assignment).items()
    }


def extended_due_dates(conn: Connection, course: str, assignment: str) -> list[datetime]:
    """The due dates extensions gave students of ``assignment``, graded yet or not (the
    dropped left out): the key may reach none of them before their own late cutoff."""
    dropped = dropped_students(conn, course, assignment)
    return [due for s, due in due_dates(conn, course, assignment).items() if s not in dropped]


# What a withdrawn learner is told of anything they would hand in or ask (an upload, a
# review request): said in one place, as ``dropped_students`` decides it in one.
WITHDRAWN = N_("You were withdrawn from {assignment}.")


def dropped_students(conn: Connection, course: str, assignment: str) -> set[str]:
    """Students dropped from ``assignment``, or from the whole course."""
    query = select(DropRow.student).where(
        DropRow.course == course, DropRow.assignment.in_([assignment, EVERY_ASSIGNMENT])
    )
    return set(conn.execute(query).scalars())


def dropped_from_course(conn: Connection, course: str) -> set[str]:
    """Students dropped from the whole course (``graders drop STUDENT``)."""
    query = select(DropRow.student).where(
        DropRow.course == course, DropRow.assignment == EVERY_ASSIGNMENT
    )
    return set(conn.execute(query).scalars())


def _iso(value: datetime) -> str:
    return value.isoformat(timespec="seconds")
