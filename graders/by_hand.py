"""What an instructor sets by hand on a result, kept beside the graded one.

    Override    {points, reason, by, at}    points given one question, over the graded ones
    Extension   {due, reason, by, at}       a student's own due date for an assignment

Both survive every regrade until cleared (``gradebook.overrides``, ``gradebook.extensions``), and
both say who set them, when and why: a grade changed by hand is never anonymous.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Override:
    """Points an instructor gave one question by hand: they replace the graded points and
    survive every regrade until cleared."""

    points: float
    reason: str
    by: str
    at: str  # ISO 8601

    def to_json(self) -> dict[str, Any]:
        return {
            "points": round(self.points, 4),
            "reason": self.reason,
            "by": self.by,
            "at": self.at,
        }


@dataclass(frozen=True)
class Extension:
    """A student's own due date for an assignment, granted by an instructor."""

    due: str  # ISO 8601, with its zone
    reason: str | None
    by: str
    at: str  # ISO 8601: when it was granted

    def to_json(self) -> dict[str, Any]:
        return {"due": self.due, "reason": self.reason, "by": self.by, "at": self.at}
