"""Take the prediction out of an answer cell as TEXT; nothing in the cell is ever run.

An answer cell is ``answer = "<prediction>"``. The prediction is the source text to the
right of ``=``; a string literal stands for its content (``answer = "no error"`` means
``no error``, as in an answers file). ``ast`` only locates that text; when the cell is
not valid Python (``answer = tensor(2., grad_fn=<MulBackward0>)``), Python's tokenizer
locates it instead, and when even that fails (an unclosed quote or bracket), the cell's
lines do.

Reading is lenient where a person reading the cell would be: when the cell holds other
lines besides ``answer = ...`` (a ``print(b.is_leaf)`` left from trying it), the last
``answer = ...`` is read, as running the cell would leave it, and the other lines are
named so the learner can move them; when the closing quote is missing, the text after the
opening quote is read; when the quotes are a keyboard's curly, corner or full-width ones
(``answer = “False”``, which Python does not read), the text between them is read. A cell
without any ``answer = ...`` line is passed on whole, so the answer parser reports it as
invalid.

nbgrader's stub line ``raise NotImplementedError()`` is ignored wherever it is left.
``answer_line`` writes such a cell, for the notebooks ``graders release`` makes.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from dataclasses import dataclass
from functools import lru_cache

from ... import syntax
from ...answers.keyboard import typed_quotes

MAX_ANSWER_CHARS = 20_000  # the answer parser rejects far less; this only bounds the work
TARGET = "answer"
UNANSWERED_LINE = 'answer = "..."'
UNANSWERED_TEXTS = ("", "...")
_STUB = ("raise", "NotImplementedError")
_SKIP = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}
_ANSWER_LINE = re.compile(r"\s*answer\s*=(?!=)(?P<value>.*)", re.S)
_OPEN_QUOTE = re.compile(r"(?P<quote>\"\"\"|'''|\"|')(?P<body>.*)", re.S)


@dataclass(frozen=True)
class Extracted:
    """What an answer cell says: an answer text, nothing yet, or something malformed."""

    text: str | None  # None: unanswered
    malformed: bool = False  # no `answer = ...` line: the whole cell is passed on as ``text``
    quoted: bool = False  # the prediction was written as a string, as the notebook asks
    ignored: tuple[str, ...] = ()  # the cell's other lines, which were not read
    unclosed: bool = False  # the closing quote was missing
    typed_quotes: bool = False  # quoted in “curly”, 「corner」 or full-width quotes


UNANSWERED = Extracted(None)


@lru_cache(maxsize=4096)
def extract_answer(source: str) -> Extracted:
    """The prediction written in an answer cell's ``source``.

    Remembered: a cell is read to choose which cell counts and again to grade it, and a
    class writes the same few answers many times (``Extracted`` is frozen)."""
    source = source[:MAX_ANSWER_CHARS]
    try:
        tree = syntax.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _from_lines(source)
    return _from_tree(tree, source)


def answer_line(text: str | None) -> str:
    """The source of an answer cell: ``answer = "<literal>"``, or the unanswered form."""
    return UNANSWERED_LINE if text is None else f"answer = {py_string(text)}"


def py_string(text: str) -> str:
    """``text`` as a double-quoted Python string literal (JSON escapes are Python escapes)."""
    return json.dumps(text, ensure_ascii=False)


def _from_tree(tree: ast.Module, source: str) -> Extracted:
    body = [s for s in tree.body if not _is_stub(s)]
    if not body:
        return UNANSWERED
    answers = [s for s in body if _is_answer(s)]
    if not answers:
        return _malformed(source)
    last = answers[-1]
    ignored = tuple(_segment(source, s) for s in body if s is not last)
    value = last.value  # type: ignore[attr-defined]
    if isinstance(value, ast.Constant) and value.value is Ellipsis:
        return UNANSWERED
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return _answered(value.value, quoted=True, ignored=ignored)
    return _answered(ast.get_source_segment(source, value) or "", ignored=ignored)


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


def _segment(source: str, stmt: ast.stmt) -> str:
    return (ast.get_source_segment(source, stmt) or "").strip()


def _from_lines(source: str) -> Extracted:
    """For cells that are not Python: the last statement that starts ``answer =``."""
    statements = [s for s in _statements(source) if not _is_stub_line(s)]
    if not statements:
        return UNANSWERED
    answers = [i for i, s in enumerate(statements) if _ANSWER_LINE.match(s)]
    if not answers:
        return _malformed(source)
    last = answers[-1]
    ignored = tuple(s for i, s in enumerate(statements) if i != last)
    match = _ANSWER_LINE.match(statements[last])
    assert match is not None  # it matched when ``answers`` was made
    return _value_text(match["value"].strip(), ignored)


def _value_text(text: str, ignored: tuple[str, ...]) -> Extracted:
    """The text right of ``=``: a complete string stands for its content, an unclosed
    one for what follows its quote."""
    try:
        literal = syntax.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        literal = None
    if isinstance(literal, str):
        return _answered(literal, quoted=True, ignored=ignored)
    opened = _OPEN_QUOTE.fullmatch(text)
    if opened and opened["quote"] not in opened["body"]:
        return _answered(opened["body"], quoted=True, ignored=ignored, unclosed=True)
    body = typed_quotes(text)
    if body is not None:
        return _answered(body, quoted=True, ignored=ignored, typed_quotes=True)
    return _answered(text, ignored=ignored)


def _statements(source: str) -> list[str]:
    """The cell's statements as text: logical lines where Python's tokenizer can split it,
    else its non-blank lines that are not comments."""
    try:
        return [_span(source, line) for line in _logical_lines(source)]
    except (tokenize.TokenError, SyntaxError):  # unclosed bracket or string, bad indent
        lines = (line.strip() for line in source.splitlines())
        return [line for line in lines if line and not line.startswith("#")]


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


def _span(source: str, line: list[tokenize.TokenInfo]) -> str:
    offsets = _line_offsets(source)
    start = offsets[line[0].start[0] - 1] + line[0].start[1]
    end = offsets[line[-1].end[0] - 1] + line[-1].end[1]
    return source[start:end].strip()


def _is_stub_line(statement: str) -> bool:
    return statement.split("(")[0].split() == list(_STUB)


def _line_offsets(source: str) -> list[int]:
    offsets, total = [], 0
    for line in io.StringIO(source).readlines() or [""]:
        offsets.append(total)
        total += len(line)
    return offsets + [total]


def _answered(
    text: str,
    *,
    quoted: bool = False,
    ignored: tuple[str, ...] = (),
    unclosed: bool = False,
    typed_quotes: bool = False,
) -> Extracted:
    text = text.strip()
    if text in UNANSWERED_TEXTS:
        return UNANSWERED
    return Extracted(
        text, quoted=quoted, ignored=ignored, unclosed=unclosed, typed_quotes=typed_quotes
    )


def _malformed(source: str) -> Extracted:
    return Extracted(source.strip(), malformed=True)
