"""Child side: run the learner's source and call the learner's function, catching everything.

What comes back is plain data a learner may see: the exception class, its message (capped)
and the line of *their* code it came from, never a traceback through grader code.
"""

from __future__ import annotations

import traceback
from typing import Any, Iterable, NamedTuple

from .learner import DEFAULT_IMPORTS, LEARNER_FILE, compile_learner, namespace

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


def compile_source(source: str, allowed: Iterable[str] = DEFAULT_IMPORTS) -> Any:
    """Compile the learner's cell under the allowlist (``learner``); ``SyntaxError`` and
    ``learner.InvalidSource`` propagate (the caller reports the line)."""
    return compile_learner(source, "exec", allowed)


def run_source(code: Any, allowed: Iterable[str] = DEFAULT_IMPORTS) -> tuple[dict[str, Any], Raised | None]:
    """Execute compiled learner code in a fresh namespace with its guarded builtins."""
    globals_, _guards = namespace(allowed)
    return globals_, call(exec, code, globals_).raised


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

