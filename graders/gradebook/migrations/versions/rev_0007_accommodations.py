"""Accommodations: a student's standing rule for every assignment of the course.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06

Only a new table: the extensions an accommodation gives are rows of ``extensions`` (origin
``accommodation``), so every reader of due dates applies them as it applies any other.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accommodations",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course", sa.String(64), nullable=False),
        sa.Column("student", sa.String(255), nullable=False),
        sa.Column("extra_hours", sa.Float(), nullable=False),
        sa.Column("time_factor", sa.Float(), nullable=False),
        sa.Column("extra_attempts", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("by", sa.String(255), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("course", "student"),
    )


def downgrade() -> None:
    op.drop_table("accommodations")
