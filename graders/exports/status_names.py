"""Statuses as report readers see them, in the language the report speaks.

The results document's statuses are ids (``wrong``, ``late-cutoff``) and stay so in
every data attribute and CSV; the page shows each one's name.
"""

from __future__ import annotations

from ..i18n import N_, _

NAMES = {
    "correct": N_("correct"),
    "wrong": N_("wrong"),
    "invalid": N_("invalid"),
    "unanswered": N_("unanswered"),
    "error": N_("error"),
    "timeout": N_("timeout"),
    "integrity": N_("integrity"),
    "graded": N_("graded"),
    "late-cutoff": N_("late-cutoff"),
    "ungradable": N_("ungradable"),
    "internal": N_("not graded: a graders error"),
    "missing": N_("missing"),
}


def status_name(status: str) -> str:
    """A question's or a submission's status, named in the current language."""
    return _(NAMES[status]) if status in NAMES else status
