"""The ids of a class's submissions held against each other (and the roster's).

Two ids that differ only in case (``Alice``, ``alice``) are one name on a disk that
ignores case (their feedback pages would be one file), so they cannot be two learners:
when the roster lists exactly one of them, that one is graded and the other is its own
``ungradable`` entry; without that, each is, naming the other, until a folder is
renamed. Ids that look alike (``аlice`` with a Cyrillic ``а``, ``ａlice``, ``alice``) may
be two people: each is graded, and noted with the ids it looks like, so the run can warn.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from ..intake.identity import lookalikes, same_but_case
from ..said import Told, say

if TYPE_CHECKING:
    from ..intake.roster import Roster
    from .found import Found


def one_regardless_of_case(found: list[Found], roster: Roster | None) -> list[Found]:
    """``found`` with every id that another differs from only in case made an error,
    but the roster's own when it lists exactly one of them."""
    refused: dict[str, Told] = {}
    for group in same_but_case(f.student for f in found):
        listed = [s for s in group if roster is not None and s in roster]
        kept = listed[0] if len(listed) == 1 else None
        for student in group:
            if student == kept:
                continue
            others = ", ".join(s for s in group if s != student)
            refused[student] = (
                say(
                    "{student} differs only in case from the roster's {listed}: two names a "
                    "disk that ignores case holds as one; rename the folder if it is theirs",
                    student=student,
                    listed=kept,
                )
                if kept
                else say(
                    "{student} and {others} differ only in case: a disk that ignores case "
                    "holds them as one name, so neither is graded until one is renamed",
                    student=student,
                    others=others,
                )
            )
    return [
        replace(f, path=None, submitted_at=None, error=refused[f.student])
        if f.student in refused
        else f
        for f in found
    ]


def with_lookalikes(
    found: list[Found], roster: Roster | None, known: Collection[str] = ()
) -> list[Found]:
    """``found`` with each id noted with the ids it looks like: of the folder, the roster,
    or ``known`` (a times file's)."""
    mine = {f.student for f in found}
    listed = set(roster.students if roster is not None else ()) | set(known)
    alike: dict[str, list[str]] = {}
    for a, b in lookalikes(mine | listed):
        if a in mine:
            alike.setdefault(a, []).append(b)
        if b in mine:
            alike.setdefault(b, []).append(a)
    return [
        replace(f, looks_like=tuple(alike[f.student])) if f.student in alike else f for f in found
    ]
