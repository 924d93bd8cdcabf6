"""Who an LMS user is here: a learner id by the service's one rule, and a role.

    people = People(engine, platform, roster)
    who = people.identity(sub, role, person)      # Identity(student, role), remembered

The first launch (or roster sync) of a user decides their learner id, and the gradebook
keeps it (``lti_users``): later launches are the same learner whatever the LMS changes in
their name. The id is, in order, the roster's student whose ``lms_id``, ``sis_user_id``,
``sis_login_id`` or email is the user's; else the LMS's login name (``preferred_username``),
its SIS id (``person_sourcedid``), the email, and last its opaque ``sub`` — each held to
``identity.learner_id``, as a token's student is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, insert, select, update
from sqlalchemy.engine import Engine

from ...errors import UsageError
from ...gradebook.lti_tables import LtiUserRow
from ...gradebook.service_tables import INSTRUCTOR, LEARNER
from ...i18n import N_
from ...intake.roster import Roster
from ..identity import Identity, learner_id
from ..refusals import Refusal, Refused
from .platforms import Platform

# LIS roles that teach (context roles, short or full; a TA is an instructor's sub-role).
TEACHING = ("Instructor", "ContentDeveloper", "Administrator", "Mentor")
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"


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

    def known(self, sub: str) -> tuple[int, str] | None:
        """(lti_users id, learner id) of ``sub``, when seen before."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(LtiUserRow.id, LtiUserRow.student).where(*self._is(sub))
            ).one_or_none()
        return None if row is None else (row.id, row.student)

    def identity(self, sub: str, role: str, person: Mapping[str, str]) -> tuple[int, Identity]:
        """(lti_users id, who ``sub`` is here as ``role``: what ``tool.role_here`` decided
        of the launch), remembering a new user."""
        now = datetime.now(UTC)
        found = self.known(sub)
        with self.engine.begin() as conn:
            if found is not None:
                conn.execute(
                    update(LtiUserRow)
                    .where(LtiUserRow.id == found[0])
                    .values(role=role, seen_at=now)
                )
                return found[0], Identity(found[1], role)
            student = self._learner(sub, person)
            user_id = conn.execute(
                insert(LtiUserRow)
                .values(
                    platform_id=self.platform.id, sub=sub, student=student, role=role, seen_at=now
                )
                .returning(LtiUserRow.id)
            ).scalar_one()
        return user_id, Identity(student, role)

    def _learner(self, sub: str, person: Mapping[str, str]) -> str:
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
                    return entry.student
        candidates = [person.get(n) for n in ("preferred_username", "sourcedid", "email")]
        for candidate in [*candidates, sub]:
            if candidate:
                try:
                    return learner_id(candidate)
                except UsageError:
                    continue
        text = N_("The LMS's user id '{sub}' cannot be a learner id here: ask your instructor.")
        raise Refused(422, Refusal(text, {"sub": sub}))

    def _is(self, sub: str) -> tuple[ColumnElement[bool], ...]:
        return (LtiUserRow.platform_id == self.platform.id, LtiUserRow.sub == sub)
