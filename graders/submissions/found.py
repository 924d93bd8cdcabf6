"""One student's entry in a submissions folder, as the folder scan found it (``folder``):
a notebook, or why there is none; the class's ids and times are held against these."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..said import Told
from .handed_in import HandedIn


@dataclass(frozen=True)
class Found:
    """One student's entry in the submissions folder: a notebook, or why there is none."""

    student: str
    path: Path | None  # the notebook, when exactly one was found
    source: str  # where it is, relative to the submissions folder (for messages)
    submitted_at: datetime | None = None
    error: Told | None = None
    ignored_time: str | None = None  # a time file in the learner's own folder, not read
    looks_like: tuple[str, ...] = ()  # other ids (of the folder or the roster) it looks like

    def handed_in(self) -> HandedIn:
        """What this student handed in, as grading takes it (with the folder's time)."""
        return HandedIn(self.student, self.path, self.source, self.submitted_at, self.error)
