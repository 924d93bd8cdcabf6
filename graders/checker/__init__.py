"""The toolkit for a course's code-exercise checkers: the API a checker file may import.

A code exercise names its checker, a Python file of the course (``checker:
checkers/<exercise-id>.py``). The file holds both halves of that exercise's grading::

    from graders.checker import PASS, Schema, Verdict, fail, tensor_verdict

    CHECKS = ("frozen", "no-grads")              # the check ids its exercise may use

    class Observations(Schema):                  # optional: what observe returns, exactly
        frozen: list[bool]

    def observe(fn, seed):                       # in the sandbox child
        from graders.checker import measure as M # torch-side helpers: import them here
        ...                                      # build seeded inputs, M.call(fn, ...), measure
        return {"frozen": [...]}

    def judge(got, ref):                         # in the grader: got and ref are plain data
        return {"frozen": PASS if all(got["frozen"]) else fail("..."), ...}

- ``observe(fn, seed) -> dict`` runs in the sandbox child, after the learner's source ran:
  it builds inputs from ``seed``, calls the learner's function ``fn`` through
  ``measure.call`` and measures with ``measure``'s functions (torch functions taken before
  any learner code ran). It returns plain JSON, never a score; it never sees a reference.
- ``Observations``: the keeper validates what comes back against it (``schema.py``).
- ``judge(got, ref) -> {check id: Verdict}`` runs in the grader, on the learner's
  observations and the reference solution's: the ladder ``tensor_verdict`` and the
  field readers below raise ``Malformed`` on data of the wrong shape (``integrity``).

This module never imports torch, so the grader can judge without it; ``measure`` does.
"""

from __future__ import annotations

from .schema import Bits, Described, Flags, RaisedRecord, Schema, validated
from .verdicts import (
    PASS,
    RUNGS,
    Malformed,
    Verdict,
    bools,
    errored,
    explain_raised,
    fail,
    field,
    first_failure,
    flag,
    items,
    sentence,
    tensor_verdict,
    text,
    value,
)

__all__ = [
    "PASS",
    "RUNGS",
    "Bits",
    "Described",
    "Flags",
    "Malformed",
    "RaisedRecord",
    "Schema",
    "Verdict",
    "bools",
    "errored",
    "explain_raised",
    "fail",
    "field",
    "first_failure",
    "flag",
    "items",
    "sentence",
    "tensor_verdict",
    "text",
    "validated",
    "value",
]
