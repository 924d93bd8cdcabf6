"""Calling learner code from a checker: whatever it raises becomes a ``Raised`` record.

``call(fn, *args)`` runs learner code and turns whatever it raises, ``SystemExit``
included, into a ``Raised``: the class, a capped message and the line of the learner's own
code, never a traceback through grader code.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..sandbox.raised import read_raised

LEARNER_FILE = "<your code>"  # the file name of code compiled from learner source
MAX_MESSAGE = 300


class Raised(NamedTuple):
    """An exception raised by learner code (immutable: nothing can edit it afterwards)."""

    cls: str
    message: str
    line: int | None

    def to_json(self) -> dict[str, Any]:
        return {"cls": self.cls, "message": self.message, "line": self.line}

    def described(self, cap: int) -> str:
        """``"ValueError: message"`` (or the class alone), at most ``cap`` characters."""
        return (f"{self.cls}: {self.message}" if self.message else self.cls)[:cap]


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
    """Class, capped message and the learner's line of an exception, read without calling
    any of its code (``sandbox/raised.py``: the one place grader code reads one)."""
    read = read_raised(exc, LEARNER_FILE)
    return Raised(read.name, read.message[:MAX_MESSAGE], read.line)
