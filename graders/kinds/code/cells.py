"""A code exercise in a notebook: its parts, and its code cell read back as source.

One cell, tagged ``metadata.graders.exercise`` (and ``entry``, the function to define),
starts as the exercise's template. Reading it back drops nbgrader's stub line; nothing in
it runs here (the sandbox runs it when grading).
"""

from __future__ import annotations

import ast
import inspect
import linecache
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ... import syntax
from ...i18n import N_, _
from ...said import Told, say
from ..base import ExerciseAnswers, Reading, Submission
from ..notebook_side import MAGIC_NOTE, Part, Placed, exercise_header, has_magic
from .starter import fill

if TYPE_CHECKING:
    from .model import CodeExercise

CELL_TAG = "exercise"
HINT = N_("""\
For a code exercise, write the function in its code cell, keeping its name. The grader
runs that cell alone, in a sandbox, so put every import and helper it needs in it.
""")
_STUB_LINES = ("raise NotImplementedError()", "raise NotImplementedError")  # at column 0 only


def layout(p: Placed, key: Mapping[str, str]) -> list[Part]:
    """Header with the task, then one cell holding the template."""
    ex = p.loaded.exercise
    checks = ", ".join(f"`{c.id}`" for c in ex.checks)
    task = _(
        "Define `{signature}` in the code cell below, with everything it needs in that cell. "
        "The grader runs it in a sandbox on inputs of its own and checks: {checks}."
    ).format(signature=ex.signature, checks=checks)
    lead = f"{ex.prompt.strip()}\n\n{task}"
    solution = key.get(ex.id)
    cell = Part(
        "answer",
        ex.id,
        ex.template,
        points=p.points,
        solution=solution,
        tag={CELL_TAG: ex.id, "entry": ex.entry},
        cell="code",
        filled=fill(ex.template, solution, ex.entry) if solution is not None else None,
    )
    return [exercise_header(p, lead), cell]


def labels(p: Placed) -> dict[str, str]:
    """The exercise's code cell and each of its checks, as the notebook numbers them."""
    ex = p.loaded.exercise
    name = _("Exercise {number}").format(number=p.number)
    check = _("{exercise}, check {check}")
    return {
        ex.id: name,
        **{f"{ex.id}/{c.id}": check.format(exercise=name, check=c.id) for c in ex.checks},
    }


def given(exercise: CodeExercise, submission: Submission) -> ExerciseAnswers:
    """The exercise's source in ``submission``, and the notes on its cell."""
    note = submission.notes.get(exercise.id)
    problem = submission.unreadable.get(exercise.id)
    return ExerciseAnswers(
        {},
        code=submission.answers.get(exercise.id),
        notes={exercise.id: note} if note else {},
        unreadable={exercise.id: problem} if problem else {},
    )


def code_source(source: str) -> str | None:
    """A code cell's source without nbgrader's top-level stub line; None if no code is left."""
    kept = [line for line in source.splitlines(keepends=True) if line.rstrip() not in _STUB_LINES]
    if all(not line.strip() or line.lstrip().startswith("#") for line in kept):
        return None
    return "".join(kept)


def read_cell(source: str, meta: Mapping[str, Any]) -> Reading:
    """The cell's code (None: only comments or nbgrader's stub), with a note on IPython lines."""
    code = code_source(source)
    if code is None:
        return Reading(None)
    return Reading(code, (say(MAGIC_NOTE),) if has_magic(code) else ())


def cell_problem(source: str, meta: Mapping[str, Any]) -> Told | None:
    """None: not written yet; "": parses and defines its entry function; else what is wrong."""
    code = code_source(source)
    if code is None:
        return None
    try:
        tree = syntax.parse(code)
    except SyntaxError as exc:
        if has_magic(code):
            return say(
                "lines starting with `!` or `%` are IPython commands, not Python: remove them"
            )
        return say("not valid Python: {error} (line {line})", error=exc.msg, line=exc.lineno)
    except (ValueError, RecursionError, MemoryError) as exc:
        return say("not valid Python: {error}", error=exc)
    entry = meta.get("entry")
    if not isinstance(entry, str):
        return ""
    defined = _top_level(tree, entry)
    if defined is None:
        return say(
            "does not define `{entry}` (write `def {entry}(...):` at the top level of the cell)",
            entry=entry,
        )
    return None if _is_placeholder(defined) else ""


def _top_level(tree: ast.Module, name: str) -> ast.stmt | None:
    """The last top-level statement that defines ``name`` (a def, a class or an assignment)."""
    found: ast.stmt | None = None
    for stmt in tree.body:
        if (
            isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and stmt.name == name
        ):
            found = stmt
        elif isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in stmt.targets
        ):
            found = stmt
    return found


def _is_placeholder(stmt: ast.stmt) -> bool:
    """A function whose body is still the template's ``...`` (or ``pass``), or nbgrader's
    stub ``raise NotImplementedError()`` that replaced it."""
    if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = [s for s in stmt.body if not _is_docstring(s)]
    return all(isinstance(s, ast.Pass) or _is_ellipsis(s) or _is_stub(s) for s in body)


def _is_stub(stmt: ast.stmt) -> bool:
    exc = stmt.exc if isinstance(stmt, ast.Raise) else None
    if isinstance(exc, ast.Call) and not exc.args and not exc.keywords:
        exc = exc.func
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _is_ellipsis(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and stmt.value.value is Ellipsis
    )


def kernel_answer(entry: Any) -> str | None:
    """A test cell's value as this cell's answer: the learner's function (or its source)
    as the whole cell that defines it, without nbgrader's stub (None: no code)."""
    return code_source(_entry_source(entry))


def _entry_source(entry: Any) -> str:
    """The source a learner wrote for a code exercise: the whole cell defining ``entry``."""
    if isinstance(entry, str):
        return entry
    filename = getattr(getattr(entry, "__code__", None), "co_filename", "")
    lines = linecache.getlines(filename) if filename else []
    if lines:
        return "".join(lines)  # IPython keeps each cell's source in linecache
    try:
        return inspect.getsource(entry)
    except (OSError, TypeError):
        return ""
