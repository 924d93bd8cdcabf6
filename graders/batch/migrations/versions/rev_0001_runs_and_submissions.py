"""The gradebook's first tables: runs and submissions.

Revision ID: 0001
Revises:
Create Date: 2026-12-03

Every gradebook made before graders used migrations has exactly these tables: opening
one stamps it with this revision.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course", sa.String(64), nullable=False),
        sa.Column("assignment", sa.String(64), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("graded", sa.Integer(), nullable=False),
        sa.Column("skipped", sa.Integer(), nullable=False),
        sa.Column("ungradable", sa.Integer(), nullable=False),
        sa.Column("torch_version", sa.String(32), nullable=False),
        sa.Column("isolation", sa.String(16), nullable=True),
    )
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course", sa.String(64), nullable=False),
        sa.Column("assignment", sa.String(64), nullable=False),
        sa.Column("student", sa.String(255), nullable=False),
        sa.Column("run_id", sa.Integer(), sa.ForeignKey("runs.id"), nullable=True),
        sa.Column("grading_key", sa.String(64), nullable=False),
        sa.Column("retry", sa.Boolean(), nullable=False),
        sa.Column("source", sa.String(1024), nullable=True),
        sa.Column("submitted_at", sa.DateTime(), nullable=True),
        sa.Column("graded_at", sa.DateTime(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("raw_score", sa.Float(), nullable=False),
        sa.Column("max_score", sa.Float(), nullable=False),
        sa.Column("late_factor", sa.Float(), nullable=False),
        sa.Column("torch_version", sa.String(32), nullable=False),
        sa.Column("isolation", sa.String(16), nullable=True),
        sa.Column("result_json", sa.Text(), nullable=False),
        sa.UniqueConstraint("course", "assignment", "student"),
    )
    op.create_index("ix_submissions_assignment", "submissions", ["assignment"])


def downgrade() -> None:
    op.drop_index("ix_submissions_assignment", table_name="submissions")
    op.drop_table("submissions")
    op.drop_table("runs")
