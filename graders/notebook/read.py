"""Read a notebook as plain JSON, defensively, and find its answer cells by metadata.

A notebook is read from its file or from its bytes as handed in (an upload, a cluster's
task: never written to disk to be read), with the same checks and the same messages, each
naming it as its learner knows it. Nothing here executes anything or trusts the file: the
size is checked before reading, the bytes must be UTF-8, the JSON must be an nbformat 4
notebook holding only text that can be stored (``intake.text``: valid JSON may still escape
half a character). Outputs are never looked at. Answer cells are found by
``metadata.graders``, never by position, so moved, added or split cells do not matter.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from ..errors import SubmissionError
from ..intake.text import TextRefused, cannot_read, check_json
from ..kinds.base import CellReader
from ..kinds.registry import kind_of_cell
from ..said import say, told
from . import META_KEY

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024
# What a notebook's JSON may hold, so that reading it takes memory in proportion to its
# bytes: Python's objects are larger than the JSON that writes them (3 bytes of ``{},`` are
# a 64-byte dict; 4 of ``"a",`` a 50-byte string), so a file of tiny values would take 20-30
# times its size. A real notebook, even with a long log or an image in its outputs, holds a
# few thousand values; ``VALUES_CHECKED_FROM`` bytes cannot hold enough to matter.
MAX_CONTAINERS = 100_000  # objects and arrays
MAX_VALUES = 200_000  # strings, numbers, literals and containers together
# A JSON string, matched without keeping a way back (possessive): the ordinary pattern keeps
# one for each escape, and 20 MB of escapes took over 400 MB to match.
VALUES_CHECKED_FROM = 1024 * 1024
# A notebook as handed in: the file that holds it, or its bytes (an upload, a cluster's
# task); and how a message names it (the name its learner knows it by).
FileOrBytes: TypeAlias = Path | bytes
Shown: TypeAlias = str | Path
_JSON_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"')


@dataclass(frozen=True)
class AnswerCell:
    """One cell that says which question (or code exercise) it answers."""

    index: int  # position in the notebook, for messages only
    key: str  # an item id "<exercise>/<question>" or a code exercise id
    reader: CellReader  # how its kind reads it, found by its metadata.graders tag
    source: str
    meta: dict[str, Any] = field(default_factory=dict)  # its metadata.graders


@dataclass(frozen=True)
class NotebookAnswers:
    """A notebook's answer cells grouped by key, in notebook order, and its own metadata."""

    cells: dict[str, list[AnswerCell]]
    meta: dict[str, Any]  # notebook-level metadata.graders ({} when absent)

    def label(self, key: str) -> str:
        """How the notebook names ``key`` ("Question 1.2 — <exercise title>"), from the
        labels ``graders release`` wrote; the key itself in a notebook without them."""
        labels = self.meta.get("labels")
        found = labels.get(key) if isinstance(labels, dict) else None
        return found if isinstance(found, str) and found.strip() else key


def read_notebook(
    notebook: FileOrBytes, max_bytes: int = MAX_NOTEBOOK_BYTES, *, name: Shown | None = None
) -> dict[str, Any]:
    """The notebook (a file, or its bytes as handed in) as JSON data; ``SubmissionError``
    saying why it cannot be. Its messages name it ``name``: the name the learner knows it
    by (a file's path when none is given). Bytes and the file that holds them read the same,
    with the same messages: the size is checked before either is read further."""
    path = shown_name(notebook, name)
    if isinstance(notebook, bytes):
        _check_size(len(notebook), path, max_bytes)
        raw = notebook
    else:
        raw = _read_bytes(notebook, path, max_bytes)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SubmissionError(
            say(
                "{path}: not a notebook: byte 0x{byte:02x} at offset {offset} is not UTF-8 text",
                path=path,
                byte=raw[exc.start],
                offset=exc.start,
            )
        ) from exc
    del raw  # the text is all that is read from here: the bytes need not stay in memory
    _check_shape(path, text)
    data: Any
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SubmissionError(
            say(
                "{path}: not a notebook: invalid JSON at line {line}, column {column}: {problem}",
                path=path,
                line=exc.lineno,
                column=exc.colno,
                problem=exc.msg,
            )
        ) from exc
    except RecursionError as exc:
        raise SubmissionError(
            say("{path}: not a notebook: JSON nested too deeply", path=path)
        ) from exc
    _check_format(path, data)
    try:
        # A cell's source is the learner's: half a character in an answer costs that
        # answer only (``collect``); outputs are never read; the rest must be text.
        check_json(data, str(path), text, skip=_cell_source)
    except TextRefused as exc:
        raise SubmissionError(told(exc)) from exc
    checked: dict[str, Any] = data  # _check_format made sure it is one
    return checked


def answer_cells(path: Shown, data: dict[str, Any]) -> NotebookAnswers:
    """Every cell whose ``metadata.graders`` names a question or a code exercise."""
    cells: dict[str, list[AnswerCell]] = {}
    for index, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict):
            raise SubmissionError(
                say("{path}: cell {number} is not a JSON object", path=path, number=index + 1)
            )
        found = _answer_cell(path, index, cell)
        if found is not None:
            cells.setdefault(found.key, []).append(found)
    meta = (
        data.get("metadata", {}).get(META_KEY) if isinstance(data.get("metadata"), dict) else None
    )
    return NotebookAnswers(cells, meta if isinstance(meta, dict) else {})


def _check_shape(path: Shown, text: str) -> None:
    """Refuse a document of more values than a notebook holds (``MAX_VALUES``,
    ``MAX_CONTAINERS``), counted before it is parsed, outside its strings."""
    if len(text) < VALUES_CHECKED_FROM:
        return
    bare = _JSON_STRING.sub('""', text)
    containers = bare.count("{") + bare.count("[")
    # A comma separates two values, a colon adds a key to its value, a bracket is one more.
    values = bare.count(",") + bare.count(":") + containers + 1
    if containers > MAX_CONTAINERS or values > MAX_VALUES:
        raise SubmissionError(
            say(
                "{path}: holds {values} JSON values ({containers} objects and arrays), more than "
                "a notebook does (at most {max_values}, {max_containers} objects and arrays): "
                "clear the outputs and save again",
                path=path,
                values=values,
                containers=containers,
                max_values=MAX_VALUES,
                max_containers=MAX_CONTAINERS,
            )
        )


def shown_name(notebook: FileOrBytes, name: Shown | None = None) -> Shown:
    """How messages name ``notebook``: ``name``, else a file's path (bytes need a name)."""
    if name is not None:
        return name
    if isinstance(notebook, bytes):
        raise TypeError("a notebook handed in as bytes needs the name its learner knows it by")
    return notebook


def _check_size(size: int, path: Shown, max_bytes: int) -> None:
    """Refuse a notebook of ``size`` bytes that is empty or larger than ``max_bytes``."""
    if size > max_bytes:
        raise SubmissionError(
            say(
                "{path}: {size} is larger than the {limit} a notebook may be (clear the "
                "outputs and save again)",
                path=path,
                size=size_text(size),
                limit=size_text(max_bytes),
            )
        )
    if size == 0:
        raise SubmissionError(say("{path}: the file is empty", path=path))


def _read_bytes(file: Path, path: Shown, max_bytes: int) -> bytes:
    """The bytes of ``file`` (named ``path`` in messages), its size checked before reading."""
    try:
        _check_size(file.stat().st_size, path, max_bytes)
        with file.open("rb") as f:
            raw = f.read(max_bytes + 1)  # a file that grew after stat() is still capped
    except OSError as exc:
        raise SubmissionError(cannot_read(path, exc)) from exc
    if len(raw) > max_bytes:
        raise SubmissionError(
            say(
                "{path}: grew past the {limit} a notebook may be while it was read",
                path=path,
                limit=size_text(max_bytes),
            )
        )
    return raw


def released_for(
    path: Shown, found: NotebookAnswers, assignment: str | None, language: str | None = None
) -> str | None:
    """The assignment a released notebook declares; ``SubmissionError`` when it declares
    another than ``assignment`` (when one is asked for) or holds no answer cell at all.
    ``language``: the notebook's, kept with the error for the learner's page."""
    declared = found.meta.get("assignment")
    declared = declared if isinstance(declared, str) else None
    if assignment and declared is not None and declared != assignment:
        raise SubmissionError(
            say(
                "{path}: this notebook is for assignment '{declared}', not '{assignment}'",
                path=path,
                declared=declared,
                assignment=assignment,
            ),
            language,
        )
    if not found.cells:
        raise SubmissionError(
            say(
                "{path}: no answer cells (cells with metadata.graders) in this notebook: is it "
                "the notebook released for this assignment?",
                path=path,
            ),
            language,
        )
    return declared


def size_text(size: int) -> str:
    """``20 MB``, ``1.5 MB``, ``300 KB``, ``10 bytes``."""
    for unit, scale in (("MB", 2**20), ("KB", 2**10)):
        if size >= scale:
            return f"{size / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{size} bytes"


def _check_format(path: Shown, data: Any) -> None:
    if not isinstance(data, dict) or "cells" not in data and "worksheets" not in data:
        raise SubmissionError(
            say("{path}: not a notebook: JSON without notebook 'cells'", path=path)
        )
    version = data.get("nbformat")
    if version == 3 or "worksheets" in data:
        raise SubmissionError(
            say(
                "{path}: an nbformat 3 notebook (from an old Jupyter); open it in a current "
                "Jupyter and save it again as nbformat 4",
                path=path,
            )
        )
    if version != 4:
        raise SubmissionError(
            say(
                "{path}: nbformat {version} is not supported; graders reads nbformat 4 notebooks",
                path=path,
                version=repr(version),
            )
        )
    if not isinstance(data["cells"], list):
        raise SubmissionError(say("{path}: not a notebook: 'cells' is not a list", path=path))


def _answer_cell(path: Shown, index: int, cell: dict[str, Any]) -> AnswerCell | None:
    meta = cell.get("metadata")
    tag = meta.get(META_KEY) if isinstance(meta, dict) else None
    if not isinstance(tag, dict):
        return None
    found = kind_of_cell(tag)
    if found is None:
        return None
    reader, key = found
    return AnswerCell(index, key, reader, cell_source(path, index, cell), dict(tag))


def cell_source(path: Shown, index: int, cell: dict[str, Any]) -> str:
    """A cell's source as one string (nbformat allows a string or a list of lines)."""
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    if isinstance(source, str):
        return source
    raise SubmissionError(
        say("{path}: cell {number}: 'source' is not text", path=path, number=index + 1)
    )


_SOURCE_PLACE = re.compile(r"cells\[\d+\]\.(source|outputs)(\W.*)?")


def _cell_source(where: str) -> bool:
    """Whether ``where`` (``check_json``'s place) is in a cell's source or its outputs."""
    return _SOURCE_PLACE.fullmatch(where) is not None
