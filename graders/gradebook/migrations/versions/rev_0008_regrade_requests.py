"""Regrade requests: a learner asks for a review of one question; the instructor answers.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06

Only a new table: an accepted request's points are an override (``overrides``), a regrade
is the attempt graded again, so the grades' tables are untouched.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "regrade_requests",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course", sa.String(64), nullable=False),
        sa.Column("assignment", sa.String(64), nullable=False),
        sa.Column("student", sa.String(255), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=True),
        sa.Column("question", sa.String(255), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("points", sa.Float(), nullable=True),
        sa.Column("by", sa.String(255), nullable=True),
        sa.Column("asked_at", sa.DateTime(), nullable=False),
        sa.Column("decided_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_requests_learner", "regrade_requests", ["course", "assignment", "student"])


def downgrade() -> None:
    op.drop_index("ix_requests_learner", "regrade_requests")
    op.drop_table("regrade_requests")
