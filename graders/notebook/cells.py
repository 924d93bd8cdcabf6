"""nbformat 4 cells and their metadata, as pure functions (no I/O, no randomness).

Cell ids are derived from the ids of what a cell holds, so releasing the same course
twice gives byte-identical notebooks (golden-testable, diff-friendly in git).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell

from . import META_KEY

# nbformat's cell id rule; nbgrader's grade_id rule is the same without the length cap.
_ID_OK = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
NBGRADER_SCHEMA = 3
LOCKED = {"editable": False, "deletable": False}


def cell_id(*parts: str) -> str:
    """A stable, valid cell id for ``parts`` (item ids keep their readable form when short).

    ``("answer", "clone-grad/same-memory")`` -> ``answer--clone-grad--same-memory``; an id
    that would be longer than 64 characters keeps a readable prefix and a hash suffix.
    """
    parts = tuple(p for p in parts if p)
    readable = "--".join(p.replace("/", "--") for p in parts)
    if _ID_OK.match(readable):
        return readable
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]
    prefix = re.sub(r"[^a-zA-Z0-9_-]", "-", readable)[:51]
    return f"{prefix}-{digest}"


def markdown(ident: str, text: str, *, nbgrader: dict[str, Any] | None = None) -> NotebookNode:
    """A markdown cell learners can neither edit nor delete."""
    cell: NotebookNode = new_markdown_cell(
        text.strip(), id=ident, metadata=_metadata(True, None, nbgrader)
    )
    return cell


def code(
    ident: str,
    source: str,
    *,
    locked: bool = False,
    graders: dict[str, str] | None = None,
    nbgrader: dict[str, Any] | None = None,
) -> NotebookNode:
    """A code cell; ``graders`` is the answer-cell metadata that collecting relies on."""
    cell: NotebookNode = new_code_cell(
        source.rstrip("\n"), id=ident, metadata=_metadata(locked, graders, nbgrader)
    )
    return cell


def _metadata(
    locked: bool, graders: dict[str, str] | None, nbgrader: dict[str, Any] | None
) -> dict[str, Any]:
    meta: dict[str, Any] = dict(LOCKED) if locked else {}
    if graders is not None:
        meta[META_KEY] = dict(graders)
    if nbgrader is not None:
        meta["nbgrader"] = nbgrader
    return meta


def nbgrader_meta(
    grade_id: str,
    *,
    solution: bool = False,
    grade: bool = False,
    locked: bool = False,
    points: float | None = None,
) -> dict[str, Any]:
    """nbgrader's own cell metadata (schema 3): what ``generate_assignment`` reads."""
    meta: dict[str, Any] = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": NBGRADER_SCHEMA,
        "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = points if points is not None else 0
    return meta
