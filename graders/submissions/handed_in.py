"""One learner's notebook as handed in, wherever it came from: what grading one takes.

    HandedIn("ada", Path(".../ada/ps1.ipynb"), "ada/ps1.ipynb", when)  # a folder's file
    HandedIn("ada", uploaded, "my ps1.ipynb", received_at)             # an upload's bytes
    HandedIn("ada", None, "ada", error=why)                            # nothing to grade

The folder scan makes one of each student it found (``folder.Found.handed_in``); the
service, ``graders ci`` and a cluster's worker make theirs from what they were given; and
``grading.handed_in.grade_notebook`` grades any of them the same way. The notebook is its
file or its bytes, never written to disk to be read; ``source`` is how every message names
it: the name its learner knows it by, not where graders keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..said import Told

__all__ = ["HandedIn"]


@dataclass(frozen=True)
class HandedIn:
    """A learner's notebook for grading: who handed it in, what, under which name, when."""

    student: str
    notebook: Path | bytes | None  # its file or its bytes; None: nothing to grade
    source: str  # the name its learner knows it by (a place in a folder, an upload's name)
    submitted_at: datetime | None = None  # None: the late policy is not applied
    error: Told | None = None  # why there is nothing to grade (the learner's to fix)

    def __repr__(self) -> str:
        # A notebook's bytes (up to 20 MB) have no place in a log line or a test's report.
        notebook = f"<{len(self.notebook)} bytes>" if isinstance(self.notebook, bytes) else None
        shown = notebook or repr(self.notebook)
        return (
            f"HandedIn(student={self.student!r}, notebook={shown}, source={self.source!r}, "
            f"submitted_at={self.submitted_at!r}, error={self.error!r})"
        )
