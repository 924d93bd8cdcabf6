"""Which LMS courses the course is bound to: an LMS role counts only in one of them.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06

One column of ``lti_contexts``, false for the rows kept: which LMS course an instructor of
another one launched from before the upgrade is not known, so none is bound, and the first
instructor launch after it binds its course (``graders lti add-platform --context`` binds
one by hand). A learner's launch is taken from any LMS course as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "lti_contexts",
        sa.Column("bound", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_column("lti_contexts", "bound")
