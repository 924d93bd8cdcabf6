"""Grades kept as typed messages: each stored result moves to schema 2 of the results document.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-05

A data migration: no table changes. A result saved before (schema 1) kept its feedback,
``explain`` and ``error`` as strings, with graders' sentences in other languages beside
them (``said``); it is rewritten as typed texts (``results_upgrade.upgraded_student``), each line a
literal that keeps the translations stored of it. Results are rewritten in the grades
(``submissions``) and in the service's queue (``attempts``). A result already in schema 2
is left as it is, so running the revision twice changes nothing.
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

from graders.errors import UsageError
from graders.results_upgrade import upgraded_student

revision = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None

TABLES = ("submissions", "attempts")


def upgrade() -> None:
    conn = op.get_bind()
    for name in TABLES:
        table = sa.table(name, sa.column("id", sa.Integer), sa.column("result_json", sa.Text))
        stored = sa.select(table.c.id, table.c.result_json).where(table.c.result_json.is_not(None))
        for row_id, text in conn.execute(stored).all():
            upgraded = _upgraded(text)
            if upgraded != text:
                conn.execute(
                    sa.update(table).where(table.c.id == row_id).values(result_json=upgraded)
                )


def downgrade() -> None:
    # Schema 1 kept words, not messages: going back would render every message in one
    # language for good. Restore the copy taken before the upgrade instead. A usage error, so
    # whoever asked is told what to do, not shown a traceback.
    raise UsageError(
        "gradebook revision 0004 cannot be undone (grades before it kept words, not "
        "messages): restore the copy of the database taken before the upgrade"
    )


def _upgraded(text: str) -> str:
    data = json.loads(text)
    if not isinstance(data, dict):
        return text
    return json.dumps(upgraded_student(data), ensure_ascii=False)
