"""What a person writes that Python spells another way: read it, and say how Python writes it.

A teaching assistant reading answers by hand accepts these, so the parser does too:

- the last line of a traceback as Jupyter prints it, ``RuntimeError: a leaf Variable that
  requires grad ...`` (or ``UserWarning: ...``): the class is the answer, the message is
  not graded; a whole pasted traceback is read from its last line;
- an exception class written with spaces or in another case: ``Runtime Error``,
  ``runtimeerror``, ``out of memory error``;
- ``true``, ``false`` and ``none`` in any case, for ``True``, ``False`` and ``None``.

Each reading comes with a one-line note for the learner's feedback, saying how Python
writes it. Nothing here runs any text.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass

from ..said import say

# Builtin exception and warning classes by their case-folded name, to restore Python's case.
BUILTIN_EXCEPTIONS = {
    name.casefold(): name
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, BaseException)
}
_SUFFIXES = ("error", "exception", "warning")
_TRACEBACK_LINE = re.compile(r"(?P<cls>[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)[ \t]*:(?P<message>.*)")
_PHRASE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:[ \t]+[A-Za-z0-9_]+){0,5}")
_TRACEBACK_START = re.compile(r"(?:Traceback \(most recent call last\)|-{10,})")
CONSTANTS: dict[str, bool | None] = {"true": True, "false": False, "none": None}


@dataclass(frozen=True)
class Respelled:
    """Text read as something Python writes differently, and the note that says so."""

    text: str  # what Python writes: ``RuntimeError``
    note: str


def exception_answer(source: str) -> Respelled | None:
    """An exception class written the way a person would, or None when it is not one."""
    line = _last_traceback_line(source)
    match = _TRACEBACK_LINE.fullmatch(line)
    if match and _is_exception_name(match["cls"].rsplit(".", 1)[-1]):
        cls = _canonical(match["cls"].rsplit(".", 1)[-1])
        return Respelled(
            cls,
            say(
                "Read as `{name}`: the exception class is graded, not the message after it.",
                name=cls,
            ),
        )
    if line != source or not _PHRASE.fullmatch(source):
        return None
    joined = "".join(source.split())
    if not _is_exception_name(joined):
        return None
    cls = _canonical(source)
    if cls == source:
        return None  # already Python's spelling: nothing to say
    return Respelled(cls, say("Read as `{name}`, the way Python writes the class name.", name=cls))


def constant_note(ident: str) -> str:
    """The note for ``true``/``false``/``none`` written in another case."""
    python = repr(CONSTANTS[ident.casefold()])
    return say(
        "Read `{written}` as `{python}`, the way Python writes it.", written=ident, python=python
    )


def _last_traceback_line(source: str) -> str:
    """The line a pasted traceback ends with; ``source`` itself when it is one line."""
    lines = [line.strip() for line in source.strip().splitlines() if line.strip()]
    if len(lines) > 1 and _TRACEBACK_START.match(lines[0]):
        return lines[-1]
    return source.strip() if len(lines) == 1 else source


def _is_exception_name(name: str) -> bool:
    folded = name.casefold()
    return folded in BUILTIN_EXCEPTIONS or folded.endswith(_SUFFIXES)


def _canonical(written: str) -> str:
    """Python's spelling: a builtin's own case, else the words joined in CamelCase."""
    words = written.split()
    joined = "".join(words)
    if joined.casefold() in BUILTIN_EXCEPTIONS:
        return BUILTIN_EXCEPTIONS[joined.casefold()]
    if len(words) == 1:
        return joined  # compared without regard to case (torch's own classes are not builtins)
    return "".join(w[0].upper() + w[1:] for w in words)
