"""Names and Role Provisioning Services: an LMS course's members, as the course's roster.

    pulled = pull_roster(engine, loaded)    # every linked LMS course's active learners
    write_roster(path, pulled, find_roster(root))

The memberships are read page by page (the ``Link: <...>; rel="next"`` headers, on the
memberships endpoint's origin only: ``services.pages``) from every LMS course the course
is bound to (``tool.role_here``: not another LMS course that merely launched it); each
member is a learner id by the rule a launch uses (``people``: the same person launching
later is the same learner), and the active learners become ``roster.csv``, keeping what
the old roster said of each (its section, its ids) where the LMS says nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Engine

from ...course.loaded import LoadedCourse
from ...exports.csv_writer import csv_text
from ...gradebook.lti_tables import LtiContextRow, LtiPlatformRow
from ...gradebook.service_tables import LEARNER
from ...intake.roster import ROSTER_FILE, Roster, RosterEntry, find_roster
from ..refusals import Refused
from .keys import ToolKeys
from .people import People, role_of
from .platforms import Platforms
from .services import ServiceCalls, pages

log = logging.getLogger("graders.service.lti")

MEMBERSHIPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
NRPS_SCOPES = ("https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",)
MAX_PAGES = 10_000  # a platform whose "next" never ends is a bug, not a class
COLUMNS = tuple(f.name for f in fields(RosterEntry) if f.name != "line")


@dataclass(frozen=True)
class Pulled:
    """The learners of the linked LMS courses, and how many pages that took."""

    entries: tuple[RosterEntry, ...]
    pages: int
    contexts: int


def pull_roster(engine: Engine, loaded: LoadedCourse) -> Pulled:
    """The active learners of every LMS course bound to this course."""
    course = loaded.course.id
    platforms, keys = Platforms(engine, course), ToolKeys(engine, course)
    roster = find_roster(loaded.root)
    with engine.connect() as conn:
        contexts = conn.execute(
            select(LtiContextRow.platform_id, LtiContextRow.memberships_url)
            .join(LtiPlatformRow, LtiPlatformRow.id == LtiContextRow.platform_id)
            .where(
                LtiPlatformRow.course == course,
                LtiContextRow.bound.is_(True),
                LtiContextRow.memberships_url.is_not(None),
            )
            .order_by(LtiContextRow.id)
        ).all()
    found: dict[str, RosterEntry] = {}
    pages = 0
    for platform_id, url in contexts:
        assert url is not None  # the query took only those with one
        platform = platforms.get(platform_id)
        people = People(engine, platform, roster)
        for page in _pages(ServiceCalls(platform, keys), url):
            pages += 1
            for member in page:
                entry = _entry(people, member)
                if entry is not None:
                    found.setdefault(entry.student, entry)
    return Pulled(tuple(found.values()), pages, len(contexts))


def _pages(calls: ServiceCalls, url: str) -> Iterator[list[dict[str, Any]]]:
    for answer in pages(calls, url, NRPS_SCOPES, accept=MEMBERSHIPS, limit=MAX_PAGES):
        members = answer.json().get("members", [])
        yield [m for m in members if isinstance(m, dict)]


def _entry(people: People, member: dict[str, Any]) -> RosterEntry | None:
    """An active learner of the LMS course as a roster entry (None: not a learner)."""
    sub = member.get("user_id")
    if not isinstance(sub, str) or member.get("status", "Active") != "Active":
        return None
    person = {
        name: str(member[key])
        for name, key in (
            ("name", "name"),
            ("email", "email"),
            ("sourcedid", "lis_person_sourcedid"),
        )
        if member.get(key)
    }
    if role_of(str(r) for r in member.get("roles", [])) != LEARNER:
        return None  # a teacher of the bound LMS course: not on the roster
    try:
        _user, who = people.identity(sub, LEARNER, person)
    except Refused as refused:  # an id that is someone else's, or none at all: left out
        log.warning(
            "LMS member %r is left out of the roster: %s", sub, refused.message.in_language("en")
        )
        return None
    return RosterEntry(
        student=who.student,
        name=person.get("name", ""),
        email=person.get("email", ""),
        sis_user_id=person.get("sourcedid", ""),
    )


def merged(pulled: Pulled, before: Roster | None) -> list[RosterEntry]:
    """The LMS's learners, with what the roster before said of each where the LMS is silent."""
    entries = []
    for entry in sorted(pulled.entries, key=lambda e: e.student):
        known = before.get(entry.student) if before is not None else None
        if known is not None:
            entry = replace(
                known,
                **{c: getattr(entry, c) for c in COLUMNS if getattr(entry, c)},
            )
        entries.append(entry)
    return entries


def write_roster(root: Path, pulled: Pulled) -> tuple[Path, int, int]:
    """``roster.csv`` in ``root`` made the LMS's list: (its path, learners, left out)."""
    before = find_roster(root)
    entries = merged(pulled, before)
    rows = [COLUMNS, *([getattr(entry, c) for c in COLUMNS] for entry in entries)]
    path = root / ROSTER_FILE
    path.write_text(csv_text(rows), encoding="utf-8")
    kept = {e.student for e in entries}
    gone = len([e for e in before.entries if e.student not in kept]) if before else 0
    return path, len(entries), gone
