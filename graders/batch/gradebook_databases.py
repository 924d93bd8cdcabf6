"""What each database the gradebook runs on needs besides its SQLAlchemy URL.

    open_engine(url)            postgresql:// uses psycopg (3) unless the URL names a driver;
                                a missing driver is a message saying what to install
    create_tables(engine, md)   the tables, created once however many batches start at once
                                (PostgreSQL: under an advisory lock); a server that cannot
                                be reached is a message, not a traceback

SQLite is the default (a file in the course folder, its pragmas set in ``gradebook``);
PostgreSQL is the one several machines and several batches share.
"""

from __future__ import annotations

import importlib.util

from sqlalchemy import MetaData, create_engine, text
from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import OperationalError

from ..errors import UsageError

# Any fixed number: batches of every course on a server take the same lock to create tables.
TABLES_LOCK = 0x67726164  # "grad"
TABLE_ATTEMPTS = 3
DRIVER_HINT = "pip install 'graders[scale]' (or psycopg[binary])"


def open_engine(url: URL) -> Engine:
    """An engine for ``url``; ``UsageError`` when the database's driver is not installed."""
    if url.drivername == "postgresql" and importlib.util.find_spec("psycopg") is not None:
        # SQLAlchemy's default for postgresql:// is psycopg2; psycopg 3 is what graders installs.
        url = url.set(drivername="postgresql+psycopg")
    try:
        return create_engine(url)
    except ModuleNotFoundError as exc:
        raise UsageError(
            f"the gradebook {url.render_as_string(hide_password=True)} needs the driver "
            f"{exc.name}, which is not installed: {DRIVER_HINT}"
        ) from exc


def create_tables(engine: Engine, metadata: MetaData) -> None:
    """Create the tables that do not exist yet, one batch at a time."""
    for attempt in range(TABLE_ATTEMPTS):
        try:
            with engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    # CREATE TABLE IF NOT EXISTS is not atomic in PostgreSQL: two batches
                    # starting together on a new database would both create, one would fail.
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": TABLES_LOCK})
                metadata.create_all(conn)
            return
        except OperationalError as exc:  # no server there, a wrong password, no such database
            # SQLite has no such lock: a batch that lost the race finds the tables made.
            if "already exists" in str(exc.orig) and attempt < TABLE_ATTEMPTS - 1:
                continue
            raise UsageError(
                f"cannot open the gradebook {engine.url.render_as_string(hide_password=True)}: "
                f"{str(exc.orig).strip()}"
            ) from exc
