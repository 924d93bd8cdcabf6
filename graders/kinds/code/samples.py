"""A code exercise's samples: submissions kept beside the checker, with the outcome each must get.

    samples:
      - {file: samples/<exercise-id>/hook-drops-grads.py, expect: {no-grads: fail}}
      - {file: samples/<exercise-id>/os-exit.py, expect: {all: integrity}}

``expect`` maps check ids to ``pass``, ``fail``, ``error``, ``timeout``, ``invalid`` or
``integrity``; a check it does not name must pass, so a sample says exactly where it goes
wrong (``all`` names every check). ``graders validate`` grades the reference solution
(every check must pass) and every sample, and reports a mismatch at the sample's line.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator
from pydantic.config import JsonDict

from ...course.model import Strict
from ...results import QuestionResult, Status

Expected = Literal["pass", "fail", "error", "timeout", "invalid", "integrity"]
STATUS_OF: dict[str, Status] = {
    "pass": Status.CORRECT,
    "fail": Status.WRONG,
    "error": Status.ERROR,
    "timeout": Status.TIMEOUT,
    "invalid": Status.INVALID,
    "integrity": Status.INTEGRITY,
}
WORD_OF = {status: word for word, status in STATUS_OF.items()}
#: For editors: the `..` that a path inside the course may not hold, as JSON Schema says it.
NO_PARENT: JsonDict = {"not": {"pattern": r"(^|/)\.\.(/|$)"}}


class Sample(Strict):
    """One sample submission and what its checks must say."""

    file: str = Field(pattern=r"^[\w./-]+\.py$", json_schema_extra=NO_PARENT)

    @field_validator("file")
    @classmethod
    def _inside_course(cls, path: str) -> str:
        if ".." in path.split("/"):
            raise ValueError("must be a path inside the course folder, without '..'")
        return path

    expect: dict[str, Expected] = Field(default_factory=dict)


def expected(sample: Sample, checks: list[str]) -> dict[str, Status]:
    """Check id -> the status the sample must get."""
    default = STATUS_OF[sample.expect.get("all", "pass")]
    return {c: STATUS_OF[sample.expect[c]] if c in sample.expect else default for c in checks}


def mismatches(sample: Sample, checks: list[str], results: list[QuestionResult]) -> list[str]:
    """``"check: got X, expected Y"`` for each check whose status is not the sample's."""
    want = expected(sample, checks)
    got = {r.id.split("/", 1)[1]: r.status for r in results}
    return [
        f"{c}: got {WORD_OF.get(got[c], got[c].value)}, expected {WORD_OF[want[c]]}"
        for c in checks
        if got.get(c) != want[c]
    ]
