"""Child side: run the learner's source and call the learner's function, catching everything.

What comes back is plain data a learner may see: the exception class, its message (capped)
and the line of *their* code it came from, never a traceback through grader code.
"""

from __future__ import annotations

import builtins
import traceback
from typing import Any, NamedTuple

LEARNER_FILE = "<your code>"
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


def compile_source(source: str) -> Any:
    """Compile the learner's cell; ``SyntaxError`` propagates (the caller reports the line)."""
    return compile(source, LEARNER_FILE, "exec", dont_inherit=True)


def run_source(code: Any) -> tuple[dict[str, Any], Raised | None]:
    """Execute compiled learner code in a fresh namespace with the real builtins."""
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    return namespace, call(exec, code, namespace).raised


def call(fn: Any, *args: Any) -> Called:
    """``fn(*args)``; any exception, even ``SystemExit``, becomes a ``Raised``."""
    try:
        return Called(fn(*args), None)
    except BaseException as exc:  # noqa: BLE001 - sys.exit() in learner code must not end the child
        return Called(None, describe(exc))


def describe(exc: BaseException) -> Raised:
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

