"""The login's ``target_link_uri``, kept with its state: a launch must ask for the same.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-05

One nullable column of ``lti_states``: a login begun before the upgrade has none, and its
launch is held to the tool's own URLs only (logins last minutes: there are few, if any).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("lti_states", sa.Column("target_link_uri", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("lti_states", "target_link_uri")
