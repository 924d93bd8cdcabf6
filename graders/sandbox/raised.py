"""What learner code raised, read without running learner code.

An exception that comes out of learner code is a learner object: its class may have a
metaclass whose ``__name__`` is a property, its ``__str__`` may run anything, a
``BaseException`` of its own making escapes a handler written for ``Exception``. Grader
code therefore reads such an exception only here, and gets plain data back (``str``, ``int``
or ``None``) whatever the exception is:

- the class name through ``type``'s own slot, never the class's attribute lookup;
- the message from ``args`` when every one is a plain value (``str``, ``int``, ``float``,
  ``bool``, ``None``), formatted as ``BaseException`` formats them; no ``__str__`` is
  called, a learner's or a builtin's;
- the line of the learner's code from the traceback's C-level fields.

Each read sits behind ``except BaseException``. Nothing here compares a learner value with
``==`` or ``in`` (a metaclass may answer either), only with ``is``.
"""

from __future__ import annotations

import types
from typing import Any, NamedTuple

MAX_NAME = 80
MAX_MESSAGE = 2000
MAX_FRAMES = 10_000  # a traceback as long as recursion allows, read to its end
UNREADABLE = "<message could not be read>"

_TYPE_NAME: Any = type.__dict__["__name__"].__get__
_ARGS: Any = BaseException.__dict__["args"].__get__
_TRACEBACK: Any = BaseException.__dict__["__traceback__"].__get__
_STR_COPY: Any = str.__str__  # an exact str, even of a str subclass, without its methods
_PLAIN = (str, int, float, bool, type(None))


class Read(NamedTuple):
    """An exception as plain data: its class's name, its message, the learner's line."""

    name: str
    message: str
    line: int | None

    def described(self, cap: int = MAX_MESSAGE) -> str:
        """``"ValueError: message"`` (or the name alone), at most ``cap`` characters."""
        return (f"{self.name}: {self.message}" if self.message else self.name)[:cap]


def read_raised(exc: BaseException, learner_file: str | None = None) -> Read:
    """``exc`` read without calling any of its code; ``learner_file``: the file name learner
    code is compiled under, whose innermost line is kept."""
    return Read(type_name(exc), exception_message(exc), learner_line(exc, learner_file))


def type_name(value: object) -> str:
    """The name of ``value``'s class, from ``type``'s own slot (a metaclass's ``__name__``
    property is not asked), as an exact ``str`` (a class's name may be a str subclass)."""
    try:
        return str(_STR_COPY(_TYPE_NAME(type(value))))[:MAX_NAME]
    except BaseException:  # noqa: BLE001 - nothing of a learner's object may escape
        return "?"


def exception_message(exc: BaseException) -> str:
    """The message as ``BaseException`` says it, from plain ``args`` only (a ``KeyError``'s
    one key shown as its repr, as Python does). Builtins that format other attributes
    (``OSError``'s file name, ``ImportError``'s ``msg``) are not asked: those may be anything."""
    try:
        args = _ARGS(exc)
        if type(args) is not tuple or not all(_is_plain(a) for a in args):
            return UNREADABLE
        if not args:
            return ""
        if len(args) > 1:
            return repr(args)[:MAX_MESSAGE]
        if issubclass(type(exc), KeyError):
            return repr(args[0])[:MAX_MESSAGE]
        return str(args[0])[:MAX_MESSAGE]
    except BaseException:  # noqa: BLE001
        return UNREADABLE


def learner_line(exc: BaseException, learner_file: str | None) -> int | None:
    """The innermost line of ``exc``'s traceback in code compiled as ``learner_file``."""
    if learner_file is None:
        return None
    try:
        tb = _TRACEBACK(exc)
        found = None
        for _ in range(MAX_FRAMES):
            if type(tb) is not types.TracebackType:
                break
            filename = tb.tb_frame.f_code.co_filename
            if type(filename) is str and filename == learner_file and type(tb.tb_lineno) is int:
                found = tb.tb_lineno
            tb = tb.tb_next
        return found
    except BaseException:  # noqa: BLE001
        return None


def _is_plain(value: Any) -> bool:
    kind = type(value)
    return any(kind is plain for plain in _PLAIN)
