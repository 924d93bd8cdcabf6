"""The LTI side of one course's service: its platforms, its keys, logins under way, what a
launch stores, and the passback that runs beside the grader.

    tool = LtiTool(engine, loaded)
    state, nonce = tool.begin_login(platform, target)      # signed, stored nowhere
    accepted = tool.accept_launch(id_token, state, known, tool_url)  # checked, then stored

A launch is checked completely, then stored in one transaction, so that a refused one
stores nothing (its login's state stays unused until it expires; a first instructor launch
refused binds no LMS course). A login initiation stores nothing (anyone may send one): its
state is a token the tool signed, carrying the nonce and the ``target_link_uri``, and it
is first stored when a launch the platform signed uses it up, kept as used until it
expires. In that transaction, in this order: the login's state is used up (two posts of
one launch: one wins), the role decided (binding the LMS course on a
platform's first instructor launch), the LMS user remembered as a learner (refused when the
id is someone else's: ``People.bind``), the LMS course and its services' endpoints, and for
a learner's launch of an assignment the line item and their outcome, so that their grade of
record goes back from now on.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from ...course.loaded import LoadedCourse
from ...gradebook.lti_tables import (
    PENDING,
    LtiContextRow,
    LtiLineItemRow,
    LtiOutcomeRow,
    LtiStateRow,
)
from ...gradebook.service_tables import INSTRUCTOR, LEARNER
from ...i18n import N_
from ...intake.roster import find_roster
from ...notebook.parts import place_exercises
from ..identity import Identity
from ..refusals import Refusal, Refused
from .keys import NotOurs, ToolKeys
from .messages import DEEP_LINKING, Launch, checked_launch
from .passback import Passback
from .people import People, role_of
from .platforms import Platform, Platforms

LOGIN_MINUTES = 10  # how long a login may take at the platform (a slow SSO page)
STATE_PURPOSE = "graders lti login"  # the ``iss`` and ``aud`` of a login's signed state
FRAMES_CACHE_S = 30.0
DEBOUNCE_S = 1.0
log = logging.getLogger("graders.service.lti")
LOGIN_GONE = N_(
    "This sign-in from your LMS has expired or was already used: open the assignment again "
    "from the LMS."
)


@dataclass(frozen=True)
class Login:
    """A login a launch answers, as its signed state says."""

    digest: str
    platform_id: int
    nonce: str
    target_link_uri: str
    expires_at: datetime


@dataclass(frozen=True)
class Accepted:
    """A launch checked and stored: what it asks for, and who it signs in."""

    launch: Launch
    platform: Platform
    who: Identity


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class LtiTool:
    """LTI 1.3 for one course's service."""

    def __init__(self, engine: Engine, loaded: LoadedCourse, every_s: float = 10.0) -> None:
        self.engine, self.loaded = engine, loaded
        self.course = loaded.course.id
        self.platforms = Platforms(engine, self.course)
        self.keys = ToolKeys(engine, self.course)
        self.passback = Passback(engine, loaded, self.platforms, self.keys)
        self.every_s = every_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._frames: tuple[float, str] | None = None

    def points(self, assignment: str) -> float:
        """The assignment's points: the line item's ``scoreMaximum``."""
        found = self.loaded.course.assignment(assignment)
        assert found is not None
        return round(sum(p.points for p in place_exercises(self.loaded, found)), 4)

    def begin_login(self, platform: Platform, target_link_uri: str) -> tuple[str, str]:
        """A new login's (state, nonce), stored nowhere: the state is a token the tool signs,
        carrying the platform, the nonce and the ``target_link_uri`` the login asked for
        (its launch must claim the same), good for ``LOGIN_MINUTES``. A login initiation is
        a GET anyone may send: it writes no row (``tests/service/lti/test_lti_launch.py``)."""
        nonce = secrets.token_urlsafe(32)
        now = int(time.time())
        claims = {
            "iss": STATE_PURPOSE,
            "aud": STATE_PURPOSE,
            "iat": now,
            "exp": now + LOGIN_MINUTES * 60,
            "platform": platform.id,
            "nonce": nonce,
            "target": target_link_uri,
        }
        return self.keys.sign(claims), nonce

    def _login(self, state: str) -> Login:
        """The login a launch's ``state`` answers: signed by the tool, in its time, unused."""
        try:
            claims = self.keys.read(state, STATE_PURPOSE)
            login = Login(
                digest(state),
                int(claims["platform"]),
                str(claims["nonce"]),
                str(claims["target"]),
                datetime.fromtimestamp(int(claims["exp"]), UTC),
            )
        except (NotOurs, KeyError, TypeError, ValueError):
            raise Refused(401, Refusal(LOGIN_GONE)) from None
        with self.engine.connect() as conn:
            used = conn.execute(
                select(LtiStateRow.used_at).where(LtiStateRow.state_digest == login.digest)
            ).first()
        if used is not None or login.platform_id not in {p.id for p in self.platforms.all()}:
            raise Refused(401, Refusal(LOGIN_GONE))
        return login

    def accept_launch(
        self,
        id_token: str,
        state: str,
        known_assignment: Callable[[str], bool],
        tool_url: str,
    ) -> Accepted:
        """The launch ``id_token`` answering the login ``state``, checked, then stored;
        ``tool_url`` is the tool's base URL (its launch must lead there)."""
        row = self._login(state)
        platform = self.platforms.get(row.platform_id)
        launch = checked_launch(
            id_token,
            platform,
            lambda kid: self.platforms.key_set(platform, kid),
            nonce=row.nonce,
            deployed=lambda deployment: self.platforms.deployed(platform, deployment),
            target=row.target_link_uri,
            tool_url=tool_url,
        )
        assignment = launch.custom.get("assignment")
        if launch.message_type != DEEP_LINKING and assignment and not known_assignment(assignment):
            text = N_("There is no assignment '{assignment}' in this course.")
            raise Refused(404, Refusal(text, {"assignment": assignment}))
        people = People(self.engine, platform, find_roster(self.loaded.root))
        # One transaction: a refusal past this point (a deep link by a learner, a learner id
        # someone else holds) rolls back the login's use, the LMS course's binding and all.
        with self.engine.begin() as conn:
            self._use(conn, row)
            role, bound_now = self.role_here(conn, platform, launch)
            if launch.message_type == DEEP_LINKING and role != INSTRUCTOR:
                text = N_("Only the course's instructors may add assignments.")
                raise Refused(403, Refusal(text))
            user_id, who = people.bind(conn, launch.sub, role, launch.person)
            context = self._context(conn, platform, launch)
            if bound_now and context is not None:
                conn.execute(
                    update(LtiContextRow).where(LtiContextRow.id == context).values(bound=True)
                )
            if context is not None and assignment and not who.instructor:
                self._outcome(conn, context, launch, assignment, user_id, who.student)
        if bound_now:
            log.warning(
                "the course is now bound to LMS course %r (%s) of %s: its first instructor launch",
                launch.context_id,
                launch.context_title,
                platform.issuer,
            )
        self.wake()
        return Accepted(launch, platform, who)

    def role_here(self, conn: Connection, platform: Platform, launch: Launch) -> tuple[str, bool]:
        """What the launch's person is in this course, and whether their launch binds the
        course to its LMS course (the caller binds it with the rest of what it stores): the
        one place an LMS role becomes a role here. An LMS's teaching role counts only in an
        LMS course the course is bound to (``graders lti add-platform --context``, or the
        first instructor launch of a platform none is bound to yet); from another LMS course
        (a sandbox course a learner made on the same LMS), or with no LMS course at all, the
        person is a learner. Institution and system roles never count (``people.role_of``)."""
        if role_of(launch.roles) != INSTRUCTOR:
            return LEARNER, False
        if launch.context_id is None:
            log.warning(
                "an instructor's launch from %s without an LMS course: a learner here",
                platform.issuer,
            )
            return LEARNER, False
        bound = set(
            conn.execute(
                select(LtiContextRow.context_id).where(
                    LtiContextRow.platform_id == platform.id, LtiContextRow.bound.is_(True)
                )
            ).scalars()
        )
        if launch.context_id in bound:
            return INSTRUCTOR, False
        if bound:
            log.warning(
                "an instructor of LMS course %r of %s, which this course is not bound to, "
                "launched it: a learner here (graders lti add-platform --context binds one)",
                launch.context_id,
                platform.issuer,
            )
            return LEARNER, False
        return INSTRUCTOR, True

    def _use(self, conn: Connection, login: Login) -> None:
        """The login's state used up: kept, as used, until it expires (a row a launch the
        platform signed writes, never a login initiation); those expired go as new come."""
        now = datetime.now(UTC)
        conn.execute(delete(LtiStateRow).where(LtiStateRow.expires_at <= now))
        try:
            conn.execute(
                insert(LtiStateRow).values(
                    state_digest=login.digest,
                    nonce=login.nonce,
                    platform_id=login.platform_id,
                    target_link_uri=login.target_link_uri,
                    expires_at=login.expires_at,
                    used_at=now,
                )
            )
        except IntegrityError:  # the same launch posted twice at once: the other one won
            text = N_("This sign-in was already used: open the assignment again from your LMS.")
            raise Refused(401, Refusal(text)) from None

    def _context(self, conn: Connection, platform: Platform, launch: Launch) -> int | None:
        """The LMS course's row (made or brought up to date), with its services' endpoints."""
        if launch.context_id is None:
            return None
        values = dict(
            deployment_id=launch.deployment_id,
            title=launch.context_title,
            lineitems_url=launch.lineitems_url,
            memberships_url=launch.memberships_url,
            scopes=" ".join(launch.ags_scopes),
        )
        found = conn.execute(
            select(LtiContextRow.id).where(
                LtiContextRow.platform_id == platform.id,
                LtiContextRow.context_id == launch.context_id,
            )
        ).scalar_one_or_none()
        if found is not None:
            conn.execute(update(LtiContextRow).where(LtiContextRow.id == found).values(**values))
            return int(found)
        return int(
            conn.execute(
                insert(LtiContextRow)
                .values(platform_id=platform.id, context_id=launch.context_id, **values)
                .returning(LtiContextRow.id)
            ).scalar_one()
        )

    def _outcome(
        self,
        conn: Connection,
        context: int,
        launch: Launch,
        assignment: str,
        user_id: int,
        student: str,
    ) -> None:
        """The learner's outcome on the assignment's line item (both made when new)."""
        if launch.lineitems_url is None and launch.lineitem_url is None:
            return  # the platform offers no grade service to this link
        item = conn.execute(
            select(LtiLineItemRow.id, LtiLineItemRow.url).where(
                LtiLineItemRow.context_row_id == context, LtiLineItemRow.assignment == assignment
            )
        ).one_or_none()
        if item is None:
            item_id = conn.execute(
                insert(LtiLineItemRow)
                .values(
                    context_row_id=context,
                    assignment=assignment,
                    url=launch.lineitem_url,
                    score_maximum=self.points(assignment),
                )
                .returning(LtiLineItemRow.id)
            ).scalar_one()
        else:
            item_id = item.id
            if item.url is None and launch.lineitem_url is not None:
                # The link's own line item (made by deep linking): no need to look it up.
                conn.execute(
                    update(LtiLineItemRow)
                    .where(LtiLineItemRow.id == item_id)
                    .values(url=launch.lineitem_url)
                )
        known = conn.execute(
            select(LtiOutcomeRow.id).where(
                LtiOutcomeRow.line_item_id == item_id, LtiOutcomeRow.user_id == user_id
            )
        ).first()
        if known is None:
            conn.execute(
                insert(LtiOutcomeRow).values(
                    line_item_id=item_id,
                    user_id=user_id,
                    course=self.course,
                    assignment=assignment,
                    student=student,
                    state=PENDING,
                    sent_score=None,
                    sent_at=None,
                    tries=0,
                    error=None,
                )
            )

    def frame_ancestors(self) -> str:
        """The CSP ``frame-ancestors`` of the pages: the platforms' origins (none: 'none')."""
        now = time.monotonic()
        if self._frames is None or now - self._frames[0] > FRAMES_CACHE_S:
            origins = sorted({o for p in self.platforms.all() for o in p.frame_origins})
            self._frames = (now, " ".join(["'self'", *origins]) if origins else "'none'")
        return self._frames[1]

    def wake(self) -> None:
        """Look for grades to send now (a grade was saved, a learner launched)."""
        self._wake.set()

    def start(self) -> None:
        """Send grades back from a thread of their own: a slow LMS never holds up grading."""
        self._thread = threading.Thread(target=self._run, name="lti-passback", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._wake.wait(self.every_s):
                # A burst of grades wakes it many times: one round after a breath sends them all.
                self._stop.wait(min(DEBOUNCE_S, self.every_s))
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.passback.send_changed(self._stop)
            except Exception:  # a bug or a database hiccup must not end the passback for good
                log.exception("LTI passback round failed; the next round tries again")
