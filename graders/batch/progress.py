"""What a batch tells whoever watches it (a progress bar, log lines) as it goes."""

from __future__ import annotations

from typing import Protocol

from ..results import StudentResult


class Reporter(Protocol):
    """Told about the batch as it goes (a progress bar, log lines)."""

    def start(self, total: int, skipped: int) -> None:
        """``total`` submissions are about to be graded; ``skipped`` are unchanged."""

    def done(self, result: StudentResult) -> None:
        """One submission was graded and saved."""


class Silent:
    """A reporter that says nothing."""

    def start(self, total: int, skipped: int) -> None:
        """Nothing to show."""

    def done(self, result: StudentResult) -> None:
        """Nothing to show."""
