"""One way to write a time, on every page and output graders writes: ``2036-10-06 00:29
UTC+02:00``.

A time is shown in the zone the course gives the assignment's due date in, with that
zone's offset written out, so that a learner reading it elsewhere knows which moment is
meant (``UTC`` for UTC itself). Times kept in the gradebook are UTC; due dates keep the
zone the course wrote them in.
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Assignment


def time_text(moment: datetime | str | None, zone: tzinfo | None = None) -> str:
    """``moment`` (a time, or its ISO 8601 text) in ``zone`` (default: its own), written
    ``YYYY-MM-DD HH:MM UTC±HH:MM``; a text that is not a time, as it is."""
    if moment is None or moment == "":
        return ""
    if isinstance(moment, str):
        try:
            return time_text(datetime.fromisoformat(moment), zone)
        except ValueError:
            return moment
    if moment.tzinfo is None:
        return f"{moment:%Y-%m-%d %H:%M}"
    local = moment.astimezone(zone or moment.tzinfo)
    return f"{local:%Y-%m-%d %H:%M} {offset_text(local.utcoffset())}"


def offset_text(offset: timedelta | None) -> str:
    """``UTC+02:00``, ``UTC-05:30``, ``UTC``."""
    if not offset:
        return "UTC"
    sign = "+" if offset >= timedelta(0) else "-"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def zone_of(assignment: Assignment | None) -> tzinfo | None:
    """The zone an assignment's times are shown in: its due date's."""
    return assignment.due.tzinfo if assignment is not None else None
