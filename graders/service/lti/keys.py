"""The tool's key pairs: the newest signs the tool's messages (deep linking, its client
assertion), every one not retired is published at ``/lti/jwks``.

    keys = ToolKeys(engine, "autograd-course")
    keys.signing()           # the key to sign with (made on first use)
    keys.rotate()            # a new signing key; the old one stays published a while
    keys.public_set()        # {"keys": [...]}: the public halves, for the JWKS route
    token = keys.sign(claims)                # a JWT signed by the signing key
    claims = keys.read(token, "graders ...")  # the tool's own JWT for that purpose, checked

A rotated key is kept published for ``KEEP_PUBLISHED`` so that a platform that cached
the old key set still checks what was signed just before the rotation.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet, RSAKey
from sqlalchemy import insert, select, update
from sqlalchemy.engine import Engine

from ...gradebook.lti_tables import LtiKeyRow

KEY_BITS = 2048  # RS256, what every LMS accepts
KEEP_PUBLISHED = timedelta(days=7)


class NotOurs(ValueError):
    """A token the tool did not sign for this purpose, or whose time is over."""


class ToolKeys:
    """The key pairs of one course's tool, in the gradebook."""

    def __init__(self, engine: Engine, course: str) -> None:
        self.engine, self.course = engine, course

    def signing(self) -> RSAKey:
        """The current signing key (a new one on first use)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(LtiKeyRow.private_jwk)
                .where(LtiKeyRow.course == self.course, LtiKeyRow.retired_at.is_(None))
                .order_by(LtiKeyRow.created_at.desc())
                .limit(1)
            ).scalar_one_or_none()
        if row is None:
            return self.rotate()
        return RSAKey.import_key(json.loads(row))

    def rotate(self) -> RSAKey:
        """A new signing key; the ones before it are retired (still published a while)."""
        kid = secrets.token_urlsafe(12)
        key = RSAKey.generate_key(KEY_BITS, parameters={"kid": kid, "alg": "RS256", "use": "sig"})
        now = datetime.now(UTC)
        with self.engine.begin() as conn:
            conn.execute(
                update(LtiKeyRow)
                .where(LtiKeyRow.course == self.course, LtiKeyRow.retired_at.is_(None))
                .values(retired_at=now)
            )
            conn.execute(
                insert(LtiKeyRow).values(
                    kid=kid,
                    course=self.course,
                    private_jwk=json.dumps(key.as_dict(private=True)),
                    created_at=now,
                    retired_at=None,
                )
            )
        return key

    def public_set(self) -> dict[str, list[dict[str, Any]]]:
        """The published keys: the signing one and those retired less than a week ago."""
        self.signing()  # a tool that never signed publishes its first key all the same
        since = datetime.now(UTC) - KEEP_PUBLISHED
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(LtiKeyRow.private_jwk)
                .where(LtiKeyRow.course == self.course)
                .where((LtiKeyRow.retired_at.is_(None)) | (LtiKeyRow.retired_at > since))
                .order_by(LtiKeyRow.created_at.desc())
            ).scalars()
            found = [RSAKey.import_key(json.loads(row)) for row in rows]
        return {"keys": [key.as_dict(private=False) for key in found]}

    def sign(self, claims: dict[str, Any]) -> str:
        """``claims`` as a JWT (RS256) signed by the signing key."""
        key = self.signing()
        return jwt.encode({"alg": "RS256", "kid": key.kid, "typ": "JWT"}, claims, key)

    def read(self, token: str, purpose: str) -> dict[str, Any]:
        """The claims of a JWT the tool signed for ``purpose`` (its ``iss`` and ``aud``)
        with a published key, before its ``exp``; ``NotOurs`` otherwise."""
        try:
            published = KeySet.import_key_set(self.public_set())  # type: ignore[arg-type]
            claims = jwt.decode(token, published, algorithms=["RS256"]).claims
            jwt.JWTClaimsRegistry(
                iss={"essential": True, "value": purpose},
                aud={"essential": True, "value": purpose},
                exp={"essential": True},
            ).validate(claims)
        except (JoseError, ValueError, KeyError, TypeError) as error:
            raise NotOurs(str(error)) from None
        return dict(claims)
