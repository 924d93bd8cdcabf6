"""Python source read into a syntax tree, one tree at a time in the process.

CPython 3.11 keeps the depth counter of the AST constructor in one state shared by the
interpreter's threads. Two threads building trees at once can corrupt it, and then
``ast.parse`` fails on a perfectly valid source with ``SystemError: AST constructor
recursion depth mismatch`` (python/cpython#106905). graders reads notebooks and answers on
worker threads (``autograde --workers``), and a notebook must never be ungradable
because another learner's was read at the same moment. So every tree the trusted side
builds is built here, under one lock: a parse takes microseconds, and a class's reading
is not slowed by it.

Learner code compiled inside a sandbox child (``kinds.code.child.learner``, and the ``compile``
``kinds.code.child.namespace`` gives it) is not parsed here: a child runs one learner's code,
on its own.
"""

from __future__ import annotations

import ast
import threading
from typing import Any, Literal, overload

_LOCK = threading.Lock()


@overload
def parse(source: str, mode: Literal["exec"] = "exec", filename: str = ...) -> ast.Module: ...
@overload
def parse(source: str, mode: Literal["eval"], filename: str = ...) -> ast.Expression: ...
@overload
def parse(source: str, mode: str, filename: str = ...) -> ast.AST: ...
def parse(source: str, mode: str = "exec", filename: str = "<unknown>") -> ast.AST:
    """``ast.parse(source, filename, mode)``, never beside another thread's."""
    with _LOCK:
        return ast.parse(source, filename, mode)


def literal_eval(text: str) -> Any:
    """``ast.literal_eval(text)``, its tree built never beside another thread's."""
    return ast.literal_eval(parse(text, "eval"))
