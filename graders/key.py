"""``graders key``: the answer key of an assignment, computed from torch."""

from __future__ import annotations

from .grade import PreparedAssignment


def answer_key(prep: PreparedAssignment) -> dict[str, str]:
    """Item id -> the literal (or solution source) that earns full marks, in course order."""
    key: dict[str, str] = {}
    for ex in prep.exercises:
        key.update(ex.loaded.kind.key(ex.loaded.exercise, ex.prepared))
    return key
