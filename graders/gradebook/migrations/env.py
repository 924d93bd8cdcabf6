"""Alembic's environment: migrations run on the connection ``gradebook.revisions`` hands over."""

from __future__ import annotations

from alembic import context

from graders.gradebook.tables import Base


def run_on_connection() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=Base.metadata)
    with context.begin_transaction():
        context.run_migrations()


run_on_connection()
