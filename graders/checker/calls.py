"""Calling learner code from a checker: whatever it raises becomes a ``Raised`` record.

``call(fn, *args)`` runs learner code and turns whatever it raises, ``SystemExit``
included, into a ``Raised``: the class, a capped message and the line of the learner's own
code, never a traceback through grader code.
"""

from __future__ import annotations

import traceback
from typing import Any, NamedTuple

LEARNER_FILE = "<your code>"  # the file name of code compiled from learner source
MAX_MESSAGE = 300


class Raised(NamedTuple):
    """An exception raised by learner code (immutable: nothing can edit it afterwards)."""

    cls: str
    message: str
    line: int | None

    def to_json(self) -> dict[str, Any]:
        return {"cls": self.cls, "message": self.message, "line": self.line}


class Called(NamedTuple):
    """The outcome of one call of learner code: its return value, or what it raised."""

    value: Any
    raised: Raised | None


def call(fn: Any, *args: Any, **kwargs: Any) -> Called:
    """``fn(*args, **kwargs)``; any exception, even ``SystemExit``, becomes a ``Raised``."""
    try:
        return Called(fn(*args, **kwargs), None)
    except BaseException as exc:  # noqa: BLE001 - sys.exit() in learner code must not end the child
        return Called(None, raised_by(exc))


def raised_by(exc: BaseException) -> Raised:
    """Class, capped message and the learner's line of an exception."""
    try:
        message = str(exc)[:MAX_MESSAGE]
    except BaseException:  # noqa: BLE001 - a learner-defined __str__ may raise anything
        message = ""
    return Raised(type(exc).__name__[:80], message, _learner_line(exc))


def _learner_line(exc: BaseException) -> int | None:
    try:
        frames = traceback.extract_tb(exc.__traceback__)
    except BaseException:  # noqa: BLE001 - never let a broken traceback hide the exception
        return None
    lines = [f.lineno for f in frames if f.filename == LEARNER_FILE]
    return lines[-1] if lines else None
