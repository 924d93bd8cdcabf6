"""Where the latest ``autograde`` of each assignment found its submissions, and wrote.

It also keeps the times file and the roster that run used.

``graders regrade STUDENT ASSIGNMENT`` grades one student again from the same folder,
with the same times file, without being told where they are; an extension, an override
or a drop rewrites the outputs where that run wrote them, so they match the gradebook.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Engine

from .audit import now
from .term_tables import BatchSourceRow


@dataclass(frozen=True)
class BatchSource:
    """What a whole-class run of an assignment read and where it wrote."""

    folder: Path  # the submissions folder, or the .zip of one
    times: Path | None
    out: Path
    roster: Path | None = None


def remember_source(engine: Engine, course: str, assignment: str, source: BatchSource) -> None:
    """Record what a whole-class run of ``assignment`` reads and where it writes."""
    with engine.begin() as conn:
        conn.execute(
            delete(BatchSourceRow).where(
                BatchSourceRow.course == course, BatchSourceRow.assignment == assignment
            )
        )
        conn.execute(
            insert(BatchSourceRow).values(
                course=course,
                assignment=assignment,
                folder=str(source.folder),
                times=str(source.times) if source.times else None,
                out=str(source.out),
                roster=str(source.roster) if source.roster else None,
                at=now(),
            )
        )


def last_source(engine: Engine, course: str, assignment: str) -> BatchSource | None:
    """What the latest whole-class run of ``assignment`` read (None: none ran yet)."""
    query = select(BatchSourceRow).where(
        BatchSourceRow.course == course, BatchSourceRow.assignment == assignment
    )
    with engine.connect() as conn:
        row = conn.execute(query).one_or_none()
    if row is None:
        return None
    return BatchSource(
        Path(row.folder),
        Path(row.times) if row.times else None,
        Path(row.out),
        Path(row.roster) if row.roster else None,
    )
