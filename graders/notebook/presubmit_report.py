"""What the pre-submit check found, and the text a learner reads.

Every finding names its question the way the notebook does ("Question 1.2 — clone() of a
tensor that requires grad"), never by a cell number Jupyter does not show.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..i18n import SOURCE_LANGUAGE, _, ngettext, punctuated, speaking
from ..said import Told
from . import LABEL_SEPARATOR


@dataclass(frozen=True)
class Finding:
    """Something about one answer cell (``key`` is an item id or a code exercise id)."""

    key: str
    message: Told
    label: str = ""  # how the notebook names the question; the key when it does not

    def line(self) -> str:
        return f"{self.label or self.key}{punctuated(': ')}{self.message}"


@dataclass(frozen=True)
class CheckReport:
    """What ``check`` found; ``ok`` when every answer given can be read.

    ``stops`` are answer cells that would stop Run All and ``notes`` readable cells worth
    fixing: both are warnings, the grader reads those answers.
    """

    notebook: Path
    assignment: str | None
    saved_at: datetime | None  # None: a file handed in (a CI job's), saved nowhere here
    readable: tuple[str, ...]
    unreadable: tuple[Finding, ...]
    unanswered: tuple[str, ...]
    missing: tuple[str, ...]
    duplicated: tuple[Finding, ...]
    stops: tuple[Finding, ...] = ()
    notes: tuple[Finding, ...] = ()
    labels: dict[str, str] | None = None  # answer key -> label, as the notebook names them
    language: str = SOURCE_LANGUAGE  # the language the report speaks

    @property
    def ok(self) -> bool:
        return not self.unreadable

    def label(self, key: str) -> str:
        return (self.labels or {}).get(key, key)

    def text(self) -> str:
        """The report as a learner reads it, in its language."""
        with speaking(self.language):
            return "\n".join(self._lines())

    def _lines(self) -> list[str]:
        what = _(" (assignment {id})").format(id=self.assignment) if self.assignment else ""
        if self.saved_at is None:
            checked = _("Checked {name}{what} as it was handed in.")
        else:
            checked = _(
                "Checked {name}{what} as saved at {time}; save the notebook first, unsaved "
                "changes are not checked."
            )
        time = f"{self.saved_at:%H:%M:%S}" if self.saved_at else ""
        lines = [checked.format(name=self.notebook.name, what=what, time=time)]
        lines += _section(
            _("The grader cannot read {n} of your answers").format(n=len(self.unreadable)),
            self.unreadable,
        )
        stops = ngettext(
            "{n} answer cell would stop Run All (the grader reads them, but the notebook does "
            "not run from top to bottom)",
            "{n} answer cells would stop Run All (the grader reads them, but the notebook does "
            "not run from top to bottom)",
            len(self.stops),
        )
        lines += _section(stops.format(n=len(self.stops)), self.stops)
        lines += _section(_("Readable, but worth fixing"), self.notes)
        unanswered = _("Not answered yet ({n})").format(n=len(self.unanswered))
        lines += self._listing(unanswered, self.unanswered)
        missing = _(
            "Answer cells missing from the notebook ({n}); they count as unanswered"
        ).format(n=len(self.missing))
        lines += self._listing(missing, self.missing)
        lines += _section(_("Answered more than once"), self.duplicated)
        total = len(self.readable) + len(self.unreadable) + len(self.unanswered) + len(self.missing)
        readable = _(
            "{n} of {total} answers can be read. This check never tells whether an answer is right."
        )
        return [*lines, "", readable.format(n=len(self.readable), total=total)]

    def _listing(self, title: str, keys: tuple[str, ...]) -> list[str]:
        """Keys by the short form of their label ("Question 1.2"), wrapped."""
        names = [self.label(k).split(LABEL_SEPARATOR)[0] for k in keys]
        wrapped = textwrap.fill(
            ", ".join(names),
            width=96,
            initial_indent="  ",
            subsequent_indent="  ",
            break_on_hyphens=False,
        )
        return ["", _("{title}:").format(title=title), wrapped] if keys else []


def _section(title: str, findings: tuple[Finding, ...]) -> list[str]:
    return (
        ["", _("{title}:").format(title=title), *(f"  - {f.line()}" for f in findings)]
        if findings
        else []
    )
