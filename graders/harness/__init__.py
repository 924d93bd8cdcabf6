"""Harnesses of code exercises: one module per exercise, named by the exercise's ``harness``.

Each harness module holds both halves of one exercise's grading, side by side:

- ``observe(fn, seed) -> dict`` runs in the sandbox child: it builds seeded inputs, calls
  the learner's function ``fn`` and measures what happened with ``pristine`` (torch
  functions grabbed before learner code ran). It returns plain JSON observations, never
  a score, and never sees a reference value.
- ``judge(got, ref) -> {check id: Verdict}`` runs in the trusted parent: it compares the
  learner's observations with the reference solution's (``verdicts``).
- ``CHECKS``: the check ids it judges, which an exercise's ``checks`` may use.

Importing a harness module does not import torch (the parent needs only ``CHECKS`` and
``judge``); ``observe`` imports torch-side helpers when it runs, in the child.
``child.run`` is the sandbox task that ties learner source, guard and harness together.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

HARNESSES = ("detach_forward", "freeze_module", "independent_copy", "safe_sgd_step", "straight_through")
TASK = "graders.harness.child:run"
CHECK = "graders.harness.child:check"  # run by the sandbox's keeper on each result


def load(name: str) -> ModuleType | None:
    """The harness module called ``name``, or None when there is none."""
    if name not in HARNESSES:
        return None
    return import_module(f"{__name__}.{name}")


def check_ids(name: str) -> tuple[str, ...]:
    """The check ids the harness ``name`` judges (empty for an unknown harness)."""
    module = load(name)
    return tuple(module.CHECKS) if module else ()
