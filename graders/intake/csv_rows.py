"""The CSV files graders reads (a roster, a times file): record by record, each cell placed.

A file is read whole, as UTF-8 (a spreadsheet's byte-order mark is fine); a byte that is
not UTF-8, or a record CSV cannot read (a stray quote), is a ``Problem`` at its
``file:line:column``. Every other record comes with the line and column where each of
its cells starts, so that whatever checks the cells can say where each problem is. A
quoted cell may hold a line break: the records keep the file's own line numbers.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import Location, Problem

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$")


class Unreadable(Exception):
    """The file cannot be read as CSV at all: the problem, at its place."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


@dataclass(frozen=True)
class Record:
    """One CSV record, with where each of its cells starts in the file."""

    cells: list[str]
    places: list[tuple[int, int]]  # (line, column) of each cell, 1-based

    @property
    def line(self) -> int:
        return self.places[0][0]

    def place(self, index: int) -> tuple[int, int]:
        """Where cell ``index`` starts (the last known place past the end)."""
        return self.places[min(index, len(self.places) - 1)]


def read_records(path: Path, shown: str, max_bytes: int, what: str) -> list[Record]:
    """Every non-blank record of the CSV file at ``path`` (``shown`` in messages); ``OSError``
    when it cannot be read, ``Unreadable`` when it is not UTF-8 CSV or larger than
    ``max_bytes`` (``what``: the file's name for people, "the roster")."""
    size = path.stat().st_size
    if size > max_bytes:
        raise Unreadable(Problem(Location(shown), f"{size} bytes is too large for {what}"))
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")  # spreadsheet programs often start the file with a BOM
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        message = f"byte 0x{raw[exc.start]:02x} is not UTF-8: save {what} as UTF-8 CSV"
        raise Unreadable(Problem(Location(shown, line, column), message)) from exc
    return list(_records(text, shown))


def _records(text: str, shown: str) -> Iterator[Record]:
    """Every non-blank record of ``text``, with the place of each cell."""
    # Lines end at a line break only: a U+2028 in a cell is the cell's, for its checks.
    lines = _LINE.findall(text)
    reader = csv.reader(lines, strict=True)
    done = 0  # physical lines consumed so far
    try:
        for cells in reader:
            first, done = done + 1, reader.line_num
            if not cells or not any(c.strip() for c in cells):
                continue
            raw = "".join(lines[first - 1 : done])
            yield Record(cells, _cell_places(raw, first))
    except csv.Error as exc:
        raise Unreadable(Problem(Location(shown, done + 1, 1), f"not CSV: {exc}")) from exc


def _cell_places(raw: str, first_line: int) -> list[tuple[int, int]]:
    # Where each cell starts: after each comma outside quotes (a doubled quote toggles twice).
    places, line, column, quoted = [(first_line, 1)], first_line, 1, False
    for char in raw:
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            places.append((line, column + 1))
        elif char == "\n":
            line, column = line + 1, 0
        column += 1
    return places
