"""The gradebook's schema revision: every open checks it, ``graders db upgrade`` moves it on.

    a new database           its tables are created (``tables``) and stamped with
                             the newest revision
    made before migrations   (tables, no ``alembic_version``): revision 0001 creates the
                             tables it lacks, then it is at 0001
    an older revision        refused until ``graders db upgrade`` has run its migrations
    a revision unknown here  made by a newer graders: refused

The migrations are Alembic's, in ``migrations/``; only ``upgrade`` runs them.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import MetaData, inspect
from sqlalchemy.engine import Connection

from ..errors import UsageError

MIGRATIONS = Path(__file__).with_name("migrations")
BASELINE = "0001"  # the tables of every gradebook made before there were migrations


@cache
def scripts() -> ScriptDirectory:
    return ScriptDirectory(str(MIGRATIONS))


def head() -> str:
    """The newest revision: the one this graders' tables are."""
    found = scripts().get_current_head()
    assert found is not None, "no migrations"
    return found


def current(conn: Connection) -> str | None:
    """The database's revision (None: a new database). A gradebook made before migrations
    is brought to BASELINE first: that revision creates whichever of its tables it lacks."""
    revision = MigrationContext.configure(conn).get_current_revision()
    if revision is None and inspect(conn).get_table_names():
        _migrate(conn, BASELINE)
        revision = BASELINE
    return revision


def settle(conn: Connection, metadata: MetaData, shown: str) -> None:
    """Create a new gradebook's tables, or refuse one whose revision is not this graders'."""
    revision = current(conn)
    if revision is None:
        metadata.create_all(conn)
        MigrationContext.configure(conn).stamp(scripts(), "head")
        return
    if revision == head():
        return
    if revision not in {s.revision for s in scripts().walk_revisions()}:
        raise UsageError(
            f"the gradebook {shown} has revision {revision}, which this graders does not know: "
            "it was upgraded by a newer graders"
        )
    raise UsageError(
        f"the gradebook {shown} has revision {revision}; this graders needs {head()}: run "
        f"`graders db upgrade --db {shown}` (after a copy of the database, to be safe)"
    )


def upgrade(conn: Connection) -> tuple[str | None, str]:
    """Run the migrations up to the newest; (the revision before, the one after)."""
    before = current(conn)
    _migrate(conn, "head")
    return before, head()


def _migrate(conn: Connection, target: str) -> None:
    from alembic import command  # loads Alembic's commands: only when migrations run
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = conn
    command.upgrade(config, target)
