"""Which code cells would stop Jupyter's "Run All", found without running anything.

Run All stops at the first cell that raises. Two failures show in the source alone: a
cell that is not Python (a ``SyntaxError``, such as an unquoted
``answer = <CloneBackward0>``) and a name that no earlier cell defines (a ``NameError``,
such as an unquoted ``answer = tensor(2.)``). ``run_all_stops`` reads the code cells in
notebook order, keeps the names each one binds at the top level, and reports the cells
that would stop. Lines IPython handles itself (``%magic``, ``!shell``) are left out before
parsing, and a cell magic (``%%time``) is not Python at all, so it is not judged. A
character Python does not read (a keyboard's ``“`` quote) is named in the reader's
language. What only running can show (a wrong attribute, a call that fails) is not
reported: this never runs a cell.

From a cell that calls ``kernel.answers_as_text`` on (the first cell of every released
notebook), an answer cell is judged as it then runs: ``kernel.as_read``, its text bound
to ``answer``, which never stops Run All.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterable
from typing import Any

from .. import syntax
from ..said import Told, say
from .kernel import as_read, turns_answers_to_text

# What IPython's namespace holds before any cell runs, besides the builtins.
IPYTHON_NAMES = frozenset(
    "In Out get_ipython exit quit display _ __ ___ _i _ii _iii _ih _oh _dh".split()
)
_DEFINED = frozenset(dir(builtins)) | IPYTHON_NAMES
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# Python's words for a character it does not read, printable or not (U+3000).
_INVALID_CHARACTER = re.compile(
    r"invalid (?:non-printable )?character (?:'.' \()?U\+(?P<hex>[0-9A-F]+)"
)


def run_all_stops(sources: Iterable[tuple[int, str]]) -> dict[int, Told]:
    """Cell index -> why Run All would stop there, for code cells given in notebook order."""
    defined = set(_DEFINED)
    anything = False  # after `from m import *`, any name may be defined
    as_text = False  # once a cell turned answer cells into text (``kernel``)
    stops: dict[int, Told] = {}
    for index, given in sources:
        if given.lstrip().startswith("%%"):
            continue  # a cell magic: IPython's business, not Python
        source = (as_read(given) if as_text else None) or given
        as_text = as_text or turns_answers_to_text(source)
        try:
            tree = syntax.parse(python_lines(source))
        except SyntaxError as exc:
            stops[index] = syntax_stop(exc)
            continue
        except (ValueError, RecursionError, MemoryError):
            stops[index] = "SyntaxError"
            continue
        bound, star = _bound(tree)
        missing = [] if anything else [n for n in _loaded(tree) if n not in defined | bound]
        if missing:
            stops[index] = f"NameError: name '{missing[0]}' is not defined"
        defined |= bound
        anything = anything or star
    return stops


def syntax_stop(exc: SyntaxError) -> Told:
    """Why a cell is not Python, as Python says it; a character Python does not read (a
    keyboard's “curly” quote) is named in the reader's language."""
    bad = _INVALID_CHARACTER.match(exc.msg or "")
    if bad:
        return say(
            "SyntaxError: `{char}` ({code}) is not a character Python reads (line {line})",
            char=chr(int(bad["hex"], 16)),
            code=f"U+{bad['hex']}",
            line=exc.lineno,
        )
    where = "" if "line" in (exc.msg or "") else f" (line {exc.lineno})"
    return f"SyntaxError: {exc.msg}{where}"


def python_lines(source: str) -> str:
    """``source`` with IPython's own lines blanked, when it is not Python as written."""
    try:
        syntax.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        lines = source.splitlines()
        return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)
    return source


def _loaded(tree: ast.Module) -> list[str]:
    """Names read when the cell runs, in order (function bodies run later: left out)."""
    found: dict[str, None] = {}
    for node in _at_run_time(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.setdefault(node.id)
    return list(found)


def _bound(tree: ast.Module) -> tuple[set[str], bool]:
    """Names the cell binds at the top level, and whether it star-imports."""
    names: set[str] = set()
    star = False
    for node in _at_run_time(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            star = star or any(a.name == "*" for a in node.names)
            names.update(_imported(a) for a in node.names if a.name != "*")
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names, star


def _imported(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".")[0]


def _at_run_time(node: ast.AST) -> list[Any]:
    """Every node that runs with the cell: function and lambda bodies are skipped, but
    their decorators and default values (which run at definition) are kept."""
    found: list[Any] = []
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        if isinstance(current, _SCOPES):
            stack.extend(_definition_time(current))
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(current))))
    return found


def _definition_time(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.AST]:
    args = node.args
    parts: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    if not isinstance(node, ast.Lambda):
        parts += node.decorator_list
    return parts
