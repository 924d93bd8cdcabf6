"""The LMSs a course trusts, as registered by ``graders lti add-platform``, and their keys.

    platforms = Platforms(engine, "autograd-course")
    platforms.add(Registration(issuer, client_id, deployment_id, auth_url, token_url, jwks_url))
    platform = platforms.find(issuer, client_id)          # None: not registered
    platforms.deployed(platform, deployment_id)          # False: refuse the launch
    platforms.key_set(platform, kid)                     # its public keys, cached

A platform's keys are fetched from its JWKS URL once and kept in the gradebook (every
process of the service shares them); a message signed with a key id not among them makes
one fetch again, since a platform rotates its keys without telling, at most once every
``REFETCH_S`` (a forged key id must not make the tool hammer the platform).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from joserfc.jwk import KeySet
from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection, Engine

from ...errors import UsageError
from ...gradebook.lti_tables import LtiContextRow, LtiDeploymentRow, LtiPlatformRow
from ...outbound import Limits, OutboundError, checked_url, fetch, origin

REFETCH_S = 5.0
HTTP_TIMEOUT_S = 10.0  # one call to a platform, in all (``graders.outbound``)
ANSWER_BYTES = 4 * 1024 * 1024  # a key set, a token, a page of line items or members


@dataclass(frozen=True)
class Registration:
    """What an LMS administrator's registration of the tool says (``add-platform``)."""

    issuer: str
    client_id: str
    deployment_id: str
    auth_url: str
    token_url: str
    jwks_url: str
    frame_origins: tuple[str, ...] = ()  # the LMS's pages that frame the tool's
    contexts: tuple[str, ...] = ()  # LMS course ids the course is bound to (``tool.role_here``)


@dataclass(frozen=True)
class Platform:
    """A registered LMS."""

    id: int
    issuer: str
    client_id: str
    auth_url: str
    token_url: str
    jwks_url: str
    frame_origins: tuple[str, ...]


class PlatformKeysUnavailable(Exception):
    """The platform's JWKS could not be fetched or read."""


class Platforms:
    """The platforms of one course, in the gradebook."""

    def __init__(self, engine: Engine, course: str) -> None:
        self.engine, self.course = engine, course

    def add(self, reg: Registration) -> Platform:
        """Register ``reg`` (or update its endpoints, and add its deployment id)."""
        for name in ("auth_url", "token_url", "jwks_url"):
            _check_url(name.replace("_", "-"), getattr(reg, name))
        origins = _origins(reg)
        values = dict(
            auth_url=reg.auth_url,
            token_url=reg.token_url,
            jwks_url=reg.jwks_url,
            frame_origins=" ".join(origins),
        )
        with self.engine.begin() as conn:
            found = conn.execute(
                select(LtiPlatformRow.id).where(*self._is(reg.issuer, reg.client_id))
            ).scalar_one_or_none()
            if found is None:
                found = conn.execute(
                    insert(LtiPlatformRow)
                    .values(
                        course=self.course,
                        issuer=reg.issuer,
                        client_id=reg.client_id,
                        created_at=datetime.now(UTC),
                        **values,
                    )
                    .returning(LtiPlatformRow.id)
                ).scalar_one()
            else:
                # New endpoints may mean new keys: fetch them again at the next launch.
                conn.execute(
                    update(LtiPlatformRow)
                    .where(LtiPlatformRow.id == found)
                    .values(jwks=None, jwks_at=None, **values)
                )
            known = conn.execute(
                select(LtiDeploymentRow.id).where(
                    LtiDeploymentRow.platform_id == found,
                    LtiDeploymentRow.deployment_id == reg.deployment_id,
                )
            ).scalar_one_or_none()
            if known is None:
                conn.execute(
                    insert(LtiDeploymentRow).values(
                        platform_id=found, deployment_id=reg.deployment_id
                    )
                )
            for context in reg.contexts:
                _bind(conn, found, reg.deployment_id, context)
        platform = self.find(reg.issuer, reg.client_id)
        assert platform is not None
        return platform

    def find(self, issuer: str, client_id: str | None) -> Platform | None:
        """The platform ``issuer`` registered with ``client_id`` (without one: the only
        registration of that issuer, if there is just one)."""
        query = select(LtiPlatformRow).where(
            LtiPlatformRow.course == self.course, LtiPlatformRow.issuer == issuer
        )
        if client_id is not None:
            query = query.where(LtiPlatformRow.client_id == client_id)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return _platform(rows[0]) if len(rows) == 1 else None

    def get(self, platform_id: int) -> Platform:
        with self.engine.connect() as conn:
            return _platform(
                conn.execute(select(LtiPlatformRow).where(LtiPlatformRow.id == platform_id)).one()
            )

    def all(self) -> list[Platform]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(LtiPlatformRow)
                .where(LtiPlatformRow.course == self.course)
                .order_by(LtiPlatformRow.id)
            ).all()
        return [_platform(row) for row in rows]

    def deployed(self, platform: Platform, deployment_id: str) -> bool:
        """Whether ``deployment_id`` is one the administrator registered for ``platform``."""
        with self.engine.connect() as conn:
            return (
                conn.execute(
                    select(LtiDeploymentRow.id).where(
                        LtiDeploymentRow.platform_id == platform.id,
                        LtiDeploymentRow.deployment_id == deployment_id,
                    )
                ).first()
                is not None
            )

    def key_set(self, platform: Platform, kid: str | None) -> KeySet:
        """The platform's public keys, with ``kid`` among them if the platform has it now."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(LtiPlatformRow.jwks, LtiPlatformRow.jwks_at).where(
                    LtiPlatformRow.id == platform.id
                )
            ).one()
        cached = json.loads(row.jwks) if row.jwks else None
        recent = row.jwks_at is not None and datetime.now(UTC) - row.jwks_at < timedelta(
            seconds=REFETCH_S
        )
        if cached is not None and (_has(cached, kid) or recent):
            return KeySet.import_key_set(cached)
        fetched = fetch_jwks(platform.jwks_url)
        with self.engine.begin() as conn:
            conn.execute(
                update(LtiPlatformRow)
                .where(LtiPlatformRow.id == platform.id)
                .values(jwks=json.dumps(fetched), jwks_at=datetime.now(UTC))
            )
        return KeySet.import_key_set(fetched)  # type: ignore[arg-type]

    def _is(self, issuer: str, client_id: str) -> tuple[Any, ...]:
        return (
            LtiPlatformRow.course == self.course,
            LtiPlatformRow.issuer == issuer,
            LtiPlatformRow.client_id == client_id,
        )


def fetch_jwks(url: str) -> dict[str, Any]:
    """The key set published at ``url``; ``PlatformKeysUnavailable`` saying why not."""
    try:
        answer = fetch("GET", url, limits=Limits(deadline_s=HTTP_TIMEOUT_S, max_bytes=ANSWER_BYTES))
        if answer.status != 200:
            raise ValueError(f"HTTP {answer.status}")
        found = answer.json()
        KeySet.import_key_set(found)  # a set that cannot be read is no set
    except (OutboundError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise PlatformKeysUnavailable(f"the platform's keys at {url}: {exc}") from exc
    if not isinstance(found, dict):
        raise PlatformKeysUnavailable(f"the platform's keys at {url}: not a key set")
    return found


def _has(key_set: dict[str, Any], kid: str | None) -> bool:
    return any(k.get("kid") == kid for k in key_set.get("keys", []))


def _platform(row: Any) -> Platform:
    return Platform(
        row.id,
        row.issuer,
        row.client_id,
        row.auth_url,
        row.token_url,
        row.jwks_url,
        tuple(row.frame_origins.split()),
    )


def _check_url(name: str, url: str) -> None:
    """An endpoint graders will call: held to the outbound rules when it is registered, not
    first at a learner's launch (https, except to this machine)."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise UsageError(f"--{name} must be an http(s) URL, got '{url}'")
    try:
        checked_url(url)
    except OutboundError as exc:
        raise UsageError(f"--{name}: {exc}") from None


def _bind(conn: Connection, platform_id: int, deployment_id: str, context: str) -> None:
    """Bind the course to LMS course ``context``: its teachers are the course's instructors."""
    updated = conn.execute(
        update(LtiContextRow)
        .where(LtiContextRow.platform_id == platform_id, LtiContextRow.context_id == context)
        .values(bound=True)
    ).rowcount
    if not updated:
        conn.execute(
            insert(LtiContextRow).values(
                platform_id=platform_id,
                deployment_id=deployment_id,
                context_id=context,
                title="",
                scopes="",
                bound=True,
            )
        )


def _origins(reg: Registration) -> tuple[str, ...]:
    """Who may frame the tool's pages: the origins given, else the issuer's and the
    authorization endpoint's (Canvas frames from the school's own domain: pass it)."""
    wanted = reg.frame_origins or (reg.issuer, reg.auth_url)
    found: list[str] = []
    for url in wanted:
        if urlsplit(url).scheme in ("http", "https") and origin(url) not in found:
            found.append(origin(url))
    return tuple(found)
