"""``Reference``: the code kind's prepared state — what the reference solution did.

The reference solution runs through the exercise's checker once (cached like truths); what
it left is what every learner's observations are judged against, and its time sets their
budgets. On disk and in the grading key it is the JSON it always was (``as_json``), so a
cache or a grading key from before reads the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Reference:
    """The reference solution through the checker: its observations and time, or why not.

    ``error`` set: the reference could not be run (nothing else but ``solution`` is then
    known, and every learner's checks say so). ``failures``: checks the reference fails
    itself, reported by ``validate``.
    """

    solution: str  # the reference's source, in this variant (the answer key)
    observations: Any = None  # the checker's observations of it, as JSON
    took_s: float | None = None  # how long it ran: learners' budgets are a multiple
    failures: tuple[str, ...] = ()
    error: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reference:
        """The state as the cache keeps it."""
        if data.get("error"):
            return cls(solution=str(data.get("solution", "")), error=str(data["error"]))
        took = data.get("reference_s")
        return cls(
            solution=str(data.get("solution", "")),
            observations=data.get("observations"),
            took_s=None if took is None else float(took),
            failures=tuple(str(f) for f in data.get("reference_fails", ())),
        )

    def as_json(self) -> dict[str, Any]:
        """The state as the cache keeps it and the grading key hashes it."""
        if self.error:
            return {"error": self.error, "solution": self.solution}
        found: dict[str, Any] = {"observations": self.observations, "solution": self.solution}
        if self.took_s is not None:
            found["reference_s"] = self.took_s
        return found | {"reference_fails": list(self.failures)}
