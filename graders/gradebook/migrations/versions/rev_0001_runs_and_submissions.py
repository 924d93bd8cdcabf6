"""The gradebook's first tables: runs and submissions, and the term's decisions.

Revision ID: 0001
Revises:
Create Date: 2026-12-03

Gradebooks made before graders had migrations hold some of these tables already (the
first versions only ``runs`` and ``submissions``), with exactly these columns: each table
is created only where it is missing, so this revision brings any of them up to date.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None

TABLES = ("runs", "submissions", "extensions", "overrides", "dropped", "audit", "batch_sources")


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    for name, create in _creators().items():
        if name not in present:
            create()


def downgrade() -> None:
    for name in reversed(TABLES):
        op.drop_table(name)


def _creators() -> dict[str, Callable[[], None]]:
    return {
        "runs": _runs,
        "submissions": _submissions,
        "extensions": _extensions,
        "overrides": _overrides,
        "dropped": _dropped,
        "audit": _audit,
        "batch_sources": _batch_sources,
    }


def _who() -> list[sa.Column[Any]]:
    return [
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course", sa.String(64), nullable=False),
        sa.Column("assignment", sa.String(64), nullable=False),
    ]


def _by() -> list[sa.Column[Any]]:
    return [
        sa.Column("by", sa.String(255), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    ]


def _runs() -> None:
    op.create_table(
        "runs",
        *_who(),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("graded", sa.Integer(), nullable=False),
        sa.Column("skipped", sa.Integer(), nullable=False),
        sa.Column("ungradable", sa.Integer(), nullable=False),
        sa.Column("torch_version", sa.String(32), nullable=False),
        sa.Column("isolation", sa.String(16), nullable=True),
    )


def _submissions() -> None:
    op.create_table(
        "submissions",
        *_who(),
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


def _extensions() -> None:
    op.create_table(
        "extensions",
        *_who(),
        sa.Column("student", sa.String(255), nullable=False),
        sa.Column("origin", sa.String(32), nullable=False),
        sa.Column("due", sa.DateTime(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        *_by(),
        sa.UniqueConstraint("course", "assignment", "student", "origin"),
    )


def _overrides() -> None:
    op.create_table(
        "overrides",
        *_who(),
        sa.Column("student", sa.String(255), nullable=False),
        sa.Column("question", sa.String(255), nullable=False),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        *_by(),
        sa.UniqueConstraint("course", "assignment", "student", "question"),
    )


def _dropped() -> None:
    op.create_table(
        "dropped",
        *_who(),
        sa.Column("student", sa.String(255), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        *_by(),
        sa.UniqueConstraint("course", "assignment", "student"),
    )


def _audit() -> None:
    op.create_table(
        "audit",
        *_who(),
        sa.Column("student", sa.String(255), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        *_by(),
        sa.Column("previous", sa.Text(), nullable=True),
    )
    op.create_index("ix_audit_student", "audit", ["course", "student"])


def _batch_sources() -> None:
    op.create_table(
        "batch_sources",
        *_who(),
        sa.Column("folder", sa.Text(), nullable=False),
        sa.Column("times", sa.Text(), nullable=True),
        sa.Column("out", sa.Text(), nullable=False),
        sa.Column("roster", sa.Text(), nullable=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("course", "assignment"),
    )
