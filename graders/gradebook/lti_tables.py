"""The gradebook's tables for LTI 1.3: the platforms (LMSs) a course trusts, the tool's
keys, launches under way, who each LMS user is here, and the grades sent back.

    lti_platforms    an LMS registration: issuer, client id, its endpoints, its keys (cached)
    lti_deployments  the deployment ids registered for a platform (a launch from any other
                     deployment is refused)
    lti_keys         the tool's own key pairs: the newest unretired one signs, every one not
                     retired long ago is published (a platform may hold an old one a while)
    lti_states       each login's state a launch used up (its SHA-256), with its nonce and
                     the tool's URL the login asked to launch (``target_link_uri``), kept
                     till the state expires: used once; a login initiation writes no row
                     (its state is a token the tool signed)
    lti_users        an LMS user (platform, ``sub``) and the learner id they are here
    lti_contexts     an LMS course linked to this course, with its services' endpoints
    lti_line_items   an assignment's column in an LMS course's gradebook (its URL once known)
    lti_outcomes     a learner's score for one line item: what was sent last, and whether
                     sending it is still to do (a failure waits to be sent again)

Every score sent, or refused by the platform, is also a line of the audit trail.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from .tables import Base, UtcDateTime

PENDING, POSTED, FAILED_PASSBACK = "pending", "posted", "failed"


class LtiPlatformRow(Base):
    """An LMS that may launch this course: how to reach it and check what it signs."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("course", "issuer", "client_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    auth_url: Mapped[str] = mapped_column(Text)
    token_url: Mapped[str] = mapped_column(Text)
    jwks_url: Mapped[str] = mapped_column(Text)
    frame_origins: Mapped[str] = mapped_column(Text)  # space-separated: may frame the pages
    jwks: Mapped[str | None] = mapped_column(Text)  # the platform's public keys, as fetched
    jwks_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class LtiDeploymentRow(Base):
    """A deployment of the tool in a platform (an LMS account, or one course)."""

    __tablename__ = "lti_deployments"
    __table_args__ = (UniqueConstraint("platform_id", "deployment_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id"))
    deployment_id: Mapped[str] = mapped_column(String(255))


class LtiKeyRow(Base):
    """One of the tool's key pairs (a private JWK, as JSON)."""

    __tablename__ = "lti_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    course: Mapped[str] = mapped_column(String(64))
    private_jwk: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    retired_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class LtiStateRow(Base):
    """A login's state, used up by its launch (its SHA-256), the nonce, and the
    ``target_link_uri`` of the login initiation, kept till it expires: a second launch with
    it is refused. Stored by the launch only (an older version stored it at the login)."""

    __tablename__ = "lti_states"

    state_digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    nonce: Mapped[str] = mapped_column(String(64), unique=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id"))
    # None: a login begun before revision 0005 (its launch is held to the tool's URLs only).
    target_link_uri: Mapped[str | None] = mapped_column(Text)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class LtiUserRow(Base):
    """An LMS user, and the learner id (and role) they have here."""

    __tablename__ = "lti_users"
    __table_args__ = (UniqueConstraint("platform_id", "sub"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id"))
    sub: Mapped[str] = mapped_column(String(255))
    student: Mapped[str] = mapped_column(String(255), index=True)
    role: Mapped[str] = mapped_column(String(16))
    seen_at: Mapped[datetime] = mapped_column(UtcDateTime)


class LtiContextRow(Base):
    """An LMS course that launched this course, and its services' endpoints."""

    __tablename__ = "lti_contexts"
    __table_args__ = (UniqueConstraint("platform_id", "context_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id"))
    deployment_id: Mapped[str] = mapped_column(String(255))
    context_id: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(Text)
    lineitems_url: Mapped[str | None] = mapped_column(Text)
    memberships_url: Mapped[str | None] = mapped_column(Text)
    scopes: Mapped[str] = mapped_column(Text)  # the AGS scopes the platform granted
    # An LMS role counts here (an instructor's launch is an instructor's) only when the
    # course is bound to this LMS course: ``lti.tool.role_here``.
    bound: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class LtiLineItemRow(Base):
    """An assignment's column in one LMS course's gradebook."""

    __tablename__ = "lti_line_items"
    __table_args__ = (UniqueConstraint("context_row_id", "assignment"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    context_row_id: Mapped[int] = mapped_column(ForeignKey("lti_contexts.id"))
    assignment: Mapped[str] = mapped_column(String(64))
    url: Mapped[str | None] = mapped_column(Text)  # None until found or created
    score_maximum: Mapped[float] = mapped_column(Float)


class LtiOutcomeRow(Base):
    """A learner's score for one line item: the last one sent, and what is still to send."""

    __tablename__ = "lti_outcomes"
    __table_args__ = (UniqueConstraint("line_item_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    line_item_id: Mapped[int] = mapped_column(ForeignKey("lti_line_items.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("lti_users.id"))
    course: Mapped[str] = mapped_column(String(64))
    assignment: Mapped[str] = mapped_column(String(64))
    student: Mapped[str] = mapped_column(String(255))
    state: Mapped[str] = mapped_column(String(16))  # PENDING | POSTED | FAILED_PASSBACK
    sent_score: Mapped[float | None] = mapped_column(Float)  # scoreGiven of the last success
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    tries: Mapped[int] = mapped_column(Integer)  # failed sends since the last success
    error: Mapped[str | None] = mapped_column(Text)
