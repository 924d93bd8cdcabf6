"""Who is asking: a learner or an instructor, known by a token the instructor minted.

    tokens = Credentials(engine, "autograd-course")
    tokens.mint(["ada", "bob"], LEARNER)          # [("ada", "<token>"), ("bob", "<token>")]
    who = identify(request, tokens, (BearerToken(), SessionCookie()))   # Identity or None

Identity is one pluggable step, "who is this request": each ``Authenticator`` reads what
its kind of request carries (the API's ``Authorization: Bearer``, the pages' session
cookie) and the first that knows the request says who it is. Signing in starts a session
(``start_workspace``): the pages sign in with a token today; LTI 1.3 will start sessions
from a platform's launch the same way, with its learner ids held to the same rule as every
other (``learner_id``).

A token or a session is 256 random bits, kept in the gradebook only as its SHA-256 (a
secret that long needs no slow hash: nothing can be guessed from the digest). Minting a
person's token again replaces it, and ends their sessions: a lost token is fixed by
minting a new one.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from sqlalchemy import delete, insert, or_, select
from sqlalchemy.engine import Connection, Engine
from starlette.requests import Request

from ..errors import UsageError
from ..gradebook.service_tables import (
    HANDOFF,
    INSTRUCTOR,
    LEARNER,
    SESSION,
    TOKEN,
    CredentialRow,
)
from ..intake.identity import (
    RULE,
    case_key,
    id_problem,
    lookalike_note,
    lookalikes,
    student_id,
)

SESSION_COOKIE = "graders_session"
SESSION_HOURS = 12

__all__ = [
    "INSTRUCTOR",
    "LEARNER",
    "Authenticator",
    "BearerToken",
    "Credentials",
    "Identity",
    "SessionCookie",
    "identify",
    "learner_id",
]


@dataclass(frozen=True)
class Identity:
    """A person the service knows: their learner id (an instructor has one too) and role."""

    student: str
    role: str  # LEARNER | INSTRUCTOR

    @property
    def instructor(self) -> bool:
        return self.role == INSTRUCTOR


def learner_id(name: str) -> str:
    """``name`` as a learner id, whatever said it (the command line, an LMS's launch): the
    one rule of submission folders, rosters and times files (``intake.identity``);
    ``UsageError`` saying why when it breaks it."""
    found = student_id(name.strip())
    problem = id_problem(found)
    if problem is not None:
        raise UsageError(f"'{name}' cannot be a learner id: {problem} ({RULE})")
    return found


def digest(secret: str) -> str:
    """What the gradebook keeps of a secret: its SHA-256, in hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


class Credentials:
    """The tokens and sessions of one course, in the gradebook."""

    def __init__(self, engine: Engine, course: str) -> None:
        self.engine, self.course = engine, course

    def mint(self, students: Iterable[str], role: str) -> list[tuple[str, str]]:
        """A new token for each of ``students`` (replacing their tokens and sessions):
        (learner id, token) pairs, in the order given."""
        minted = [(learner_id(s), secrets.token_urlsafe(32)) for s in students]
        now = datetime.now(UTC)
        with self.engine.begin() as conn:
            self._one_per_person(conn, [s for s, _ in minted])
            conn.execute(
                delete(CredentialRow).where(
                    CredentialRow.course == self.course,
                    CredentialRow.student.in_([s for s, _ in minted]),
                )
            )
            if minted:
                conn.execute(
                    insert(CredentialRow),
                    [self._row(s, role, TOKEN, t, now, None) for s, t in minted],
                )
        return minted

    def lookalikes(self, students: Iterable[str]) -> list[str]:
        """Warnings for ``students`` that look like another learner of the course, new or
        known (``'аlice' looks like 'alice' (U+0430 ...)``): the rule rosters and folders
        follow (``intake.identity.lookalikes``). Minting goes on: look-alikes may be two
        people; the instructor is told so before handing the tokens out."""
        new = [learner_id(s) for s in students]
        with self.engine.connect() as conn:
            known = conn.execute(
                select(CredentialRow.student).where(CredentialRow.course == self.course).distinct()
            ).scalars()
            everyone = {*known, *new}
        fresh = set(new)
        return [
            lookalike_note(*((b, a) if b in fresh else (a, b)))
            for a, b in lookalikes(everyone)
            if a in fresh or b in fresh
        ]

    def _one_per_person(self, conn: Connection, students: list[str]) -> None:
        """Ids that differ in case only are one person (one file on a case-insensitive
        disk): minting ``alice`` beside ``Alice`` is refused, as a roster refuses it."""
        known = conn.execute(
            select(CredentialRow.student).where(CredentialRow.course == self.course).distinct()
        ).scalars()
        seen: dict[str, str] = {}
        for student in [*known, *students]:
            other = seen.setdefault(case_key(student), student)
            if other != student:
                raise UsageError(
                    f"'{student}' and '{other}' differ in case only: they cannot be two learners"
                )

    def identity(self, secret: str, kind: str) -> Identity | None:
        """Who holds ``secret`` (a token or a session's), if anyone does now."""
        now = datetime.now(UTC)
        query = select(CredentialRow.student, CredentialRow.role).where(
            CredentialRow.digest == digest(secret),
            CredentialRow.kind == kind,
            CredentialRow.course == self.course,
            or_(CredentialRow.expires_at.is_(None), CredentialRow.expires_at > now),
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).one_or_none()
        return None if row is None else Identity(row.student, row.role)

    def start_workspace(self, who: Identity) -> str:
        """A new page session for ``who``: the secret its cookie carries."""
        secret = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        expires = now + timedelta(hours=SESSION_HOURS)
        with self.engine.begin() as conn:
            # Sessions that expired go as new ones come: the table holds the live ones.
            conn.execute(
                delete(CredentialRow).where(
                    CredentialRow.kind == SESSION, CredentialRow.expires_at <= now
                )
            )
            conn.execute(
                insert(CredentialRow),
                [self._row(who.student, who.role, SESSION, secret, now, expires)],
            )
        return secret

    def hand_off(self, who: Identity, minutes: int = 5) -> str:
        """A one-time secret that starts a session for ``who`` in another window
        (``take``), for a few minutes: an LMS frame that lost its cookie opens one."""
        secret = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        row = self._row(
            who.student, who.role, HANDOFF, secret, now, now + timedelta(minutes=minutes)
        )
        with self.engine.begin() as conn:
            conn.execute(insert(CredentialRow), [row])
        return secret

    def take(self, secret: str) -> Identity | None:
        """Who a hand-off secret was for, once: the secret is gone after."""
        who = self.identity(secret, HANDOFF)
        with self.engine.begin() as conn:
            gone = conn.execute(
                delete(CredentialRow).where(
                    CredentialRow.digest == digest(secret), CredentialRow.kind == HANDOFF
                )
            ).rowcount
        return who if gone == 1 else None  # two windows racing: one gets it

    def end_session(self, secret: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                delete(CredentialRow).where(
                    CredentialRow.digest == digest(secret), CredentialRow.kind == SESSION
                )
            )

    def _row(
        self,
        student: str,
        role: str,
        kind: str,
        secret: str,
        now: datetime,
        expires: datetime | None,
    ) -> dict[str, object]:
        return dict(
            course=self.course,
            student=student,
            role=role,
            kind=kind,
            digest=digest(secret),
            created_at=now,
            expires_at=expires,
        )


class Authenticator(Protocol):
    """One way a request says who sent it."""

    def secret(self, request: Request) -> str | None:
        """The secret the request carries this way, or None when it carries none."""

    @property
    def kind(self) -> str:
        """The kind of credential the secret is (TOKEN or SESSION)."""


def says_bearer(request: Request) -> bool:
    """Whether ``request`` says it is a script's (``Authorization: Bearer ...``): the form
    gate lets it through for that, and ``identify`` then knows it by its token alone."""
    return request.headers.get("authorization", "").lower().startswith("bearer ")


class BearerToken:
    """``Authorization: Bearer TOKEN``: the API's way."""

    kind = TOKEN

    def secret(self, request: Request) -> str | None:
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        return (value.strip() or None) if scheme.lower() == "bearer" else None


class SessionCookie:
    """The session cookie the pages' sign-in set."""

    kind = SESSION

    def secret(self, request: Request) -> str | None:
        return request.cookies.get(SESSION_COOKIE) or None


@dataclass(frozen=True)
class Asked:
    """What a request said about who sent it: nothing, or someone (known or not)."""

    identity: Identity | None
    presented: bool  # a secret came with the request (a forged or replaced one, if unknown)


def identify(
    request: Request, credentials: Credentials, authenticators: Sequence[Authenticator]
) -> Asked:
    """Who sent ``request``: the first authenticator whose secret the request carries.

    Every route learns who is asking here, so the answer is also kept on the request
    (``request.state.identity``, when someone known asked): what the reply is said in
    (``Service.language``) is decided from it in one place, not at each route.

    A request that says it is a script's is who its token says, or nobody: a cookie it
    carries too does not speak for it (the form gate let it pass for its token, without a
    form's; a made-up or empty token beside a browser's cookie would otherwise borrow it)."""
    script = says_bearer(request)
    for way in authenticators:
        if script and way.kind != TOKEN:
            continue
        secret = way.secret(request)
        if secret is not None:
            found = credentials.identity(secret, way.kind)
            if found is not None:
                request.state.identity = found
            return Asked(found, True)
    return Asked(None, False)
