"""The three outcomes kept apart: a learner who is wrong is not an error at all; a
broken submission is a ``SubmissionError``; a broken course is a ``SpecError``.

``ExitCode`` is what every command returns, in the spirit of pytest's.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .said import Told


class ExitCode(IntEnum):
    """Process exit codes shared by every command."""

    OK = 0
    SOME_UNGRADED = 1  # grading ran, but some submission could not be graded
    USAGE = 2  # bad arguments, or the course itself is broken
    INTERNAL = 3  # a bug in graders
    INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl-C


class GraderError(Exception):
    """Base of the errors a user can act on; the CLI prints them without a traceback."""

    exit_code: ExitCode = ExitCode.USAGE


def user_errors() -> tuple[type[Exception], ...]:
    """The errors a user can act on, shown as a message without a traceback: graders' own
    and the sandbox's (which imports nothing of graders, so cannot derive from ours)."""
    from .sandbox.contract import SandboxError  # loaded when an error is handled, not at start

    return (GraderError, SandboxError)


@dataclass(frozen=True)
class Location:
    """A place in a course file: ``path:line:column`` (1-based, as editors count)."""

    path: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if not self.line:
            return self.path
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the course, where it is and what is wrong."""

    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class SpecError(GraderError):
    """The course files are broken; carries every problem found, not only the first."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(
            problems, key=lambda p: (p.location.path, p.location.line, p.location.column)
        )
        super().__init__("\n".join(str(p) for p in self.problems))


class SubmissionError(GraderError):
    """A submission cannot be read at all (not a notebook, too large, …)."""

    exit_code = ExitCode.SOME_UNGRADED

    def __init__(self, message: Told, language: str | None = None) -> None:
        # The message is kept as it was made (``said.told``): a page renders it per reader.
        super().__init__(message)
        self.language = language  # the notebook's, when it was read far enough to say it


class SubmitError(GraderError):
    """A notebook was not handed in to the service, or its grade could not be shown: one
    sentence, in the notebook's language, saying why and what to do."""

    exit_code = ExitCode.SOME_UNGRADED


class UsageError(GraderError):
    """The command was called wrongly (unknown assignment, missing file, …)."""


def did_you_mean(word: str, choices: list[str]) -> str:
    """A ' (did you mean ...?)' suffix for an error message, or '' when nothing is close."""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.7)
    return f" (did you mean '{close[0]}'?)" if close else ""
