"""Take the prediction out of an answer cell as TEXT; nothing in the cell is ever run.

An answer cell is ``answer = <prediction>``. The prediction is the source text to the
right of ``=``; a string literal stands for its content (``answer = "no error"`` means
``no error``, as in an answers file). ``ast`` only locates that text; when the cell is
not valid Python (``answer = tensor(2., grad_fn=<MulBackward0>)``), Python's tokenizer
locates it instead. A cell that is anything else (two statements, a magic, an
expression) is passed on whole, so the answer parser reports it as invalid.

nbgrader's stub line ``raise NotImplementedError()`` is ignored wherever it is left.
``answer_line`` writes such a cell, for the notebooks ``graders release`` makes.
"""

from __future__ import annotations

import ast
import io
import json
import tokenize
from dataclasses import dataclass

MAX_ANSWER_CHARS = 20_000  # the answer parser rejects far less; this only bounds the work
TARGET = "answer"
UNANSWERED_LINE = "answer = ..."
_STUB = ("raise", "NotImplementedError")
_SKIP = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


@dataclass(frozen=True)
class Extracted:
    """What an answer cell says: an answer text, nothing yet, or something malformed."""

    text: str | None  # None: unanswered
    malformed: bool = False  # the whole cell is passed on as ``text``


UNANSWERED = Extracted(None)


def extract_answer(source: str) -> Extracted:
    """The prediction written in an answer cell's ``source``."""
    source = source[:MAX_ANSWER_CHARS]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _from_tokens(source)
    return _from_tree(tree, source)


def _from_tree(tree: ast.Module, source: str) -> Extracted:
    body = [s for s in tree.body if not _is_stub(s)]
    if not body:
        return UNANSWERED
    if len(body) == 1 and _is_answer(body[0]):
        value = body[0].value  # type: ignore[attr-defined]
        if isinstance(value, ast.Constant) and value.value is Ellipsis:
            return UNANSWERED
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return _answered(value.value)
        return _answered(ast.get_source_segment(source, value) or "")
    return _malformed(source)


def _is_answer(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == TARGET
    )


def _is_stub(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Raise) or stmt.exc is None:
        return False
    exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) and not stmt.exc.args else stmt.exc
    return isinstance(exc, ast.Name) and exc.id == _STUB[1]


def _from_tokens(source: str) -> Extracted:
    """For cells that are not Python: one logical line ``answer = <anything>``."""
    try:
        lines = _logical_lines(source)
    except (tokenize.TokenError, SyntaxError):  # unclosed bracket or string, bad indent
        return _malformed(source)
    lines = [line for line in lines if tuple(t.string for t in line[:2]) != _STUB]
    if len(lines) != 1 or len(lines[0]) < 3:
        return _malformed(source) if lines else UNANSWERED
    name, equals, first = lines[0][0], lines[0][1], lines[0][2]
    if name.type != tokenize.NAME or name.string != TARGET or equals.string != "=":
        return _malformed(source)
    offsets = _line_offsets(source)
    start = offsets[first.start[0] - 1] + first.start[1]
    end = offsets[lines[0][-1].end[0] - 1] + lines[0][-1].end[1]
    return _answered(source[start:end])


def _logical_lines(source: str) -> list[list[tokenize.TokenInfo]]:
    """Significant tokens per statement: split at NEWLINE and at ``;`` outside brackets."""
    lines: list[list[tokenize.TokenInfo]] = [[]]
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in _SKIP:
            continue
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth = max(0, depth - 1)
        if tok.type == tokenize.NEWLINE or (tok.string == ";" and depth == 0):
            lines.append([])
        else:
            lines[-1].append(tok)
    return [line for line in lines if line]


def _line_offsets(source: str) -> list[int]:
    offsets, total = [], 0
    for line in io.StringIO(source).readlines() or [""]:
        offsets.append(total)
        total += len(line)
    return offsets + [total]


def _answered(text: str) -> Extracted:
    text = text.strip()
    return UNANSWERED if text in ("", "...") else Extracted(text)


def _malformed(source: str) -> Extracted:
    return Extracted(source.strip(), malformed=True)


def answer_line(text: str | None) -> str:
    """The source of an answer cell: ``answer = "<literal>"``, or the unanswered form."""
    return UNANSWERED_LINE if text is None else f"answer = {py_string(text)}"


def py_string(text: str) -> str:
    """``text`` as a double-quoted Python string literal (JSON escapes are Python escapes)."""
    return json.dumps(text, ensure_ascii=False)
