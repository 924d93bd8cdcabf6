"""Where the reference solution goes in a code exercise's starter cell.

A template is the starter learners get: imports, then ``def <entry>(<params>):`` whose
body is a placeholder line (``...`` or ``pass``). ``fill`` finds that line and writes the
reference solution's body in its place, with the solution's own imports and helpers
moved into the body (those the template already has are left out), so that the filled
starter behaves as the solution. A notebook that marks the placeholder's place (an
nbgrader solution region) then keeps every other line of the starter in the learner's
copy. When the template or the solution has another shape, there is nothing to fill.
"""

from __future__ import annotations

import ast
import textwrap

from ... import syntax
from ..notebook_side import Filled

_PLACEHOLDERS = ("...", "pass")


def fill(template: str, solution: str, entry: str) -> Filled | None:
    """The template's placeholder line and the solution lines that replace it, or None."""
    try:
        starter, reference = syntax.parse(template), syntax.parse(solution)
    except (SyntaxError, ValueError):
        return None  # validate reports it
    stub, answer = _entry(starter, entry), _entry(reference, entry)
    if stub is None or answer is None or _params(stub) != _params(answer) or answer.decorator_list:
        return None
    if len(stub.body) != 1 or ast.unparse(stub.body[0]) not in _PLACEHOLDERS:
        return None
    placeholder = template.splitlines()[stub.body[0].lineno - 1]
    indent = placeholder[: len(placeholder) - len(placeholder.lstrip())]
    body = _body_lines(solution, answer, _moved(template, solution, reference, answer))
    return Filled(placeholder, textwrap.indent(body, indent, lambda line: bool(line.strip())))


def _entry(tree: ast.Module, entry: str) -> ast.FunctionDef | None:
    found = [s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == entry]
    return found[-1] if found else None


def _params(fn: ast.FunctionDef) -> list[str]:
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return [a.arg for a in every if a is not None]


def _moved(
    template: str, solution: str, reference: ast.Module, answer: ast.FunctionDef
) -> list[str]:
    """The solution's other top-level statements that the template does not have."""
    kept = {ast.unparse(s) for s in syntax.parse(template).body}
    return [
        ast.get_source_segment(solution, s) or ast.unparse(s)
        for s in reference.body
        if s is not answer and ast.unparse(s) not in kept
    ]


def _body_lines(solution: str, answer: ast.FunctionDef, moved: list[str]) -> str:
    """The body, dedented: its docstring first (so it stays one), then what was moved."""
    lines = solution.splitlines()
    first, last = answer.body[0], answer.body[-1]
    assert last.end_lineno is not None  # parsing sets positions
    body = textwrap.dedent("\n".join(lines[first.lineno - 1 : last.end_lineno]))
    if not moved:
        return body
    if ast.get_docstring(answer, clean=False) is not None:
        assert first.end_lineno is not None
        doc_lines = first.end_lineno - first.lineno + 1
        split = body.splitlines()
        return "\n".join([*split[:doc_lines], *moved, *split[doc_lines:]])
    return "\n".join([*moved, body])
