"""Who an LMS user is here: a learner id by the service's one rule, and a role.

    people = People(engine, platform, roster)
    who = people.identity(sub, role, person)      # Identity(student, role), remembered

The first launch (or roster sync) of a user decides their learner id, and the gradebook
keeps it (``lti_users``): later launches are the same learner whatever the LMS changes in
their name. The id is, in order, the roster's student whose ``lms_id``, ``sis_user_id``,
``sis_login_id`` or email is the user's; else the LMS's login name (``preferred_username``),
its SIS id (``person_sourcedid``), the email, and last its opaque ``sub`` — each held to
``identity.learner_id``, as a token's student is. A new user is never made someone who is
here already (``People.bind``, the one place a ``sub`` is bound): not another LMS user's
learner id, nor one differing from an id here in case only, nor a learner whose token was
minted unless the roster names them; their launch is refused and nothing is stored.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, insert, select, update
from sqlalchemy.engine import Connection, Engine

from ...errors import UsageError
from ...gradebook.databases import hold
from ...gradebook.lti_tables import LtiPlatformRow, LtiUserRow
from ...gradebook.service_tables import INSTRUCTOR, LEARNER, TOKEN, CredentialRow
from ...i18n import N_
from ...intake.identity import case_key
from ...intake.roster import Roster
from ..identity import Identity, learner_id
from ..refusals import Refusal, Refused
from .platforms import Platform

# LIS roles that teach (context roles, short or full; a TA is an instructor's sub-role).
TEACHING = ("Instructor", "ContentDeveloper", "Administrator", "Mentor")
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
TAKEN = N_(
    "Your LMS account cannot be signed in here: the learner id it would have, '{student}', "
    "is someone else's already. Ask your instructor to add you to the course's roster."
)
log = logging.getLogger("graders.service.lti")


def role_of(roles: Iterable[str]) -> str:
    """INSTRUCTOR when the LMS says the person teaches the LMS course it launched from,
    else LEARNER. Whether that LMS course is this course's is ``tool.role_here``'s to say."""
    for role in roles:
        if role.startswith(MEMBERSHIP):
            name = role.removeprefix(MEMBERSHIP).lstrip("/#").split("#")[0]
        elif "/" in role or ":" in role:
            continue  # an institution or system role: not a role in this course
        else:
            name = role
        if name in TEACHING:
            return INSTRUCTOR
    return LEARNER


class People:
    """The LMS users of one platform, and the learner ids they are."""

    def __init__(self, engine: Engine, platform: Platform, roster: Roster | None) -> None:
        self.engine, self.platform, self.roster = engine, platform, roster

    def identity(self, sub: str, role: str, person: Mapping[str, str]) -> tuple[int, Identity]:
        """(lti_users id, who ``sub`` is here as ``role``: what ``tool.role_here`` decided
        of the launch), remembering a new user."""
        with self.engine.begin() as conn:
            return self.bind(conn, sub, role, person)

    def bind(
        self, conn: Connection, sub: str, role: str, person: Mapping[str, str]
    ) -> tuple[int, Identity]:
        """``identity`` within the caller's transaction (a launch stores all or nothing).

        The one place an LMS user becomes a learner: a new user is refused (403, nothing
        stored) when the learner id they would be is someone else's already (``_taken``)."""
        now = datetime.now(UTC)
        found = conn.execute(
            select(LtiUserRow.id, LtiUserRow.student).where(*self._is(sub))
        ).one_or_none()
        if found is not None:
            conn.execute(
                update(LtiUserRow).where(LtiUserRow.id == found.id).values(role=role, seen_at=now)
            )
            return found.id, Identity(found.student, role)
        student, by_roster = self._learner(sub, person)
        # Two new users claiming one id at once (PostgreSQL): one is bound, one refused.
        hold(conn, f"lti-learner/{case_key(student)}")
        holder = self._taken(conn, student, by_roster)
        if holder is not None:
            log.warning(
                "LMS user %r of %s would be learner %r, which %s is already: refused (a "
                "roster.csv row with their email or SIS id names the learner they are)",
                sub,
                self.platform.issuer,
                student,
                holder,
            )
            raise Refused(403, Refusal(TAKEN, {"student": student}))
        user_id = conn.execute(
            insert(LtiUserRow)
            .values(platform_id=self.platform.id, sub=sub, student=student, role=role, seen_at=now)
            .returning(LtiUserRow.id)
        ).scalar_one()
        return user_id, Identity(student, role)

    def _taken(self, conn: Connection, student: str, by_roster: bool) -> str | None:
        """Who holds ``student`` already, when a new LMS user may not be them (None: free).

        Another LMS user (of any of the course's platforms) is another person, and so is a
        learner whose token was minted, unless the instructor's roster says this LMS user is
        that student; an id differing in case only is one person (``Credentials``'s rule)."""
        course = (
            select(LtiPlatformRow.course)
            .where(LtiPlatformRow.id == self.platform.id)
            .scalar_subquery()
        )
        platforms = select(LtiPlatformRow.id).where(LtiPlatformRow.course == course)
        lms = set(
            conn.execute(
                select(LtiUserRow.student).where(LtiUserRow.platform_id.in_(platforms))
            ).scalars()
        )
        credentials = conn.execute(
            select(CredentialRow.student, CredentialRow.kind)
            .where(CredentialRow.course == course)
            .distinct()
        ).all()
        minted = {row.student for row in credentials if row.kind == TOKEN}
        if student in lms:
            return "another LMS user"
        if student in minted and not by_roster:
            return "a learner with a minted token"
        key = case_key(student)
        for other in sorted({*lms, *(row.student for row in credentials)}):
            if other != student and case_key(other) == key:
                return f"{other!r}, differing in case only,"
        return None

    def _learner(self, sub: str, person: Mapping[str, str]) -> tuple[str, bool]:
        """The learner id ``sub`` would be, and whether the roster said so."""
        if self.roster is not None:
            for entry in self.roster.entries:
                if any(
                    value and value == person.get(name)
                    for value, name in (
                        (entry.lms_id, "lms_id"),
                        (entry.sis_user_id, "sourcedid"),
                        (entry.sis_login_id, "preferred_username"),
                        (entry.email, "email"),
                    )
                ):
                    return entry.student, True
        candidates = [person.get(n) for n in ("preferred_username", "sourcedid", "email")]
        for candidate in [*candidates, sub]:
            if candidate:
                try:
                    return learner_id(candidate), False
                except UsageError:
                    continue
        text = N_("The LMS's user id '{sub}' cannot be a learner id here: ask your instructor.")
        raise Refused(422, Refusal(text, {"sub": sub}))

    def _is(self, sub: str) -> tuple[ColumnElement[bool], ...]:
        return (LtiUserRow.platform_id == self.platform.id, LtiUserRow.sub == sub)
