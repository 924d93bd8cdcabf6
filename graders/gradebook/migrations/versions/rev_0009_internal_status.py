"""A submission graders failed on has a status of its own: ``internal``, not ``ungradable``.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06

A data migration: no table changes. A grade saved as ``ungradable`` because graders failed
on it (its error began "internal error while"; such a row was kept with ``retry`` true) is
rewritten as ``internal``, in its status column and its stored result (results document
schema 3, ``results_upgrade.internal_status``); results in the service's queue
(``attempts``) likewise. Running it twice changes nothing.
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

from graders.results_upgrade import internal_status

revision = "0009"
down_revision: str | None = "0008"
branch_labels = None
depends_on = None


def _grades() -> sa.TableClause:
    return sa.table(
        "submissions",
        sa.column("id", sa.Integer),
        sa.column("status", sa.String),
        sa.column("result_json", sa.Text),
    )


def upgrade() -> None:
    conn = op.get_bind()
    grades = _grades()
    kept = sa.select(grades.c.id, grades.c.result_json).where(grades.c.status == "ungradable")
    for row_id, text in conn.execute(kept).all():
        upgraded = _upgraded(text)
        if upgraded is not None:
            conn.execute(
                sa.update(grades)
                .where(grades.c.id == row_id)
                .values(status="internal", result_json=upgraded)
            )
    attempts = sa.table("attempts", sa.column("id", sa.Integer), sa.column("result_json", sa.Text))
    stored = sa.select(attempts.c.id, attempts.c.result_json).where(
        attempts.c.result_json.is_not(None)
    )
    for row_id, text in conn.execute(stored).all():
        upgraded = _upgraded(text)
        if upgraded is not None:
            conn.execute(
                sa.update(attempts).where(attempts.c.id == row_id).values(result_json=upgraded)
            )


def downgrade() -> None:
    conn = op.get_bind()
    grades = _grades()
    kept = sa.select(grades.c.id, grades.c.result_json).where(grades.c.status == "internal")
    for row_id, text in conn.execute(kept).all():
        data = json.loads(text)
        data["status"] = "ungradable"
        conn.execute(
            sa.update(grades)
            .where(grades.c.id == row_id)
            .values(status="ungradable", result_json=json.dumps(data, ensure_ascii=False))
        )


def _upgraded(text: str | None) -> str | None:
    """The stored result as ``internal``, or None when it is something else."""
    if not text:
        return None
    data = json.loads(text)
    if not isinstance(data, dict):
        return None
    upgraded = internal_status(data)
    return None if upgraded is data else json.dumps(upgraded, ensure_ascii=False)
