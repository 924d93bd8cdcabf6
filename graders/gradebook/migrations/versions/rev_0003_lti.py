"""The tables of LTI 1.3: platforms, deployments, the tool's keys, logins under way, LMS
users, LMS courses, their line items and the scores sent to them.

Revision ID: 0003
Revises: 0002
Create Date: 2027-02-01

Only new tables: the grades and the service's tables of a gradebook at 0002 are untouched.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course", sa.String(64), nullable=False),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("auth_url", sa.Text(), nullable=False),
        sa.Column("token_url", sa.Text(), nullable=False),
        sa.Column("jwks_url", sa.Text(), nullable=False),
        sa.Column("frame_origins", sa.Text(), nullable=False),
        sa.Column("jwks", sa.Text(), nullable=True),
        sa.Column("jwks_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("course", "issuer", "client_id"),
    )
    op.create_table(
        "lti_deployments",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("platform_id", sa.Integer(), sa.ForeignKey("lti_platforms.id"), nullable=False),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.UniqueConstraint("platform_id", "deployment_id"),
    )
    op.create_table(
        "lti_keys",
        sa.Column("kid", sa.String(64), primary_key=True),
        sa.Column("course", sa.String(64), nullable=False),
        sa.Column("private_jwk", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("retired_at", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "lti_states",
        sa.Column("state_digest", sa.String(64), primary_key=True),
        sa.Column("nonce", sa.String(64), nullable=False, unique=True),
        sa.Column("platform_id", sa.Integer(), sa.ForeignKey("lti_platforms.id"), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "lti_users",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("platform_id", sa.Integer(), sa.ForeignKey("lti_platforms.id"), nullable=False),
        sa.Column("sub", sa.String(255), nullable=False),
        sa.Column("student", sa.String(255), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("seen_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("platform_id", "sub"),
    )
    op.create_index("ix_lti_users_student", "lti_users", ["student"])
    op.create_table(
        "lti_contexts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("platform_id", sa.Integer(), sa.ForeignKey("lti_platforms.id"), nullable=False),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.Column("context_id", sa.String(255), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("lineitems_url", sa.Text(), nullable=True),
        sa.Column("memberships_url", sa.Text(), nullable=True),
        sa.Column("scopes", sa.Text(), nullable=False),
        sa.UniqueConstraint("platform_id", "context_id"),
    )
    op.create_table(
        "lti_line_items",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("context_row_id", sa.Integer(), sa.ForeignKey("lti_contexts.id"), nullable=False),
        sa.Column("assignment", sa.String(64), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("score_maximum", sa.Float(), nullable=False),
        sa.UniqueConstraint("context_row_id", "assignment"),
    )
    op.create_table(
        "lti_outcomes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("line_item_id", sa.Integer(), sa.ForeignKey("lti_line_items.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("lti_users.id"), nullable=False),
        sa.Column("course", sa.String(64), nullable=False),
        sa.Column("assignment", sa.String(64), nullable=False),
        sa.Column("student", sa.String(255), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("sent_score", sa.Float(), nullable=True),
        sa.Column("sent_at", sa.DateTime(), nullable=True),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.UniqueConstraint("line_item_id", "user_id"),
    )


def downgrade() -> None:
    for name in (
        "lti_outcomes",
        "lti_line_items",
        "lti_contexts",
        "lti_users",
        "lti_states",
        "lti_keys",
        "lti_deployments",
        "lti_platforms",
    ):
        op.drop_table(name)
