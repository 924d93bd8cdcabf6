"""The one CSV writer: every CSV file graders writes goes through it, and its formula guard.

A spreadsheet opening a CSV runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a
tab or carriage return before one) as a formula: ``=HYPERLINK(...)`` in an LMS name, a
folder name or an override's reason would run on the instructor's machine. Every text
cell that starts so is written with a leading ``'``, which spreadsheets show as text; a
number written as text (``-0.5``) is a number, not a formula, and is left as it is.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator, Sequence

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def guarded(cell: object) -> object:
    """``cell`` as it may be written: a text that a spreadsheet would run, made text."""
    if isinstance(cell, str) and cell.startswith(FORMULA_START) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def csv_text(rows: Iterable[Sequence[object]], line_end: str = "\n") -> str:
    """``rows`` as CSV text, every cell guarded (``line_end``: ``\\r\\n`` for RFC 4180)."""
    return "".join(csv_lines(rows, line_end))


def csv_lines(rows: Iterable[Sequence[object]], line_end: str = "\n") -> Iterator[str]:
    """``csv_text`` a row at a time (a row's text may span lines: a cell may hold one)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=line_end)
    for row in rows:
        writer.writerow([guarded(cell) for cell in row])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
