"""What each database the gradebook runs on needs besides its SQLAlchemy URL.

    engine_for(url)             SQLite: a private file, pragmas for a batch's many small
                                transactions; postgresql:// uses psycopg (3) unless the URL
                                names a driver; a missing driver is a message saying what to
                                install
    create_tables(engine, md)   the tables and their schema revision, settled by one batch
                                at a time however many start at once (SQLite: BEGIN
                                IMMEDIATE; PostgreSQL: an advisory lock); a server that
                                cannot be reached is a message, not a traceback

    upgrade(url)                Alembic's migrations to this graders' tables
    shown_url(url)              the URL as it may be printed (no password)

SQLite is the default (a file in the course folder); PostgreSQL is the one several
machines and several batches share.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from typing import Any

from sqlalchemy import MetaData, create_engine, event, text
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import OperationalError

from ..errors import UsageError
from .revisions import settle

# Any fixed number: batches of every course on a server take the same lock to create tables.
TABLES_LOCK = 0x67726164  # "grad"
WAL_SWITCH_SECONDS = 30.0  # as long as the busy timeout every connection sets
DRIVER_HINT = "pip install 'autograd-graders[scale]' (or psycopg[binary])"


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


def engine_for(url: str) -> Engine:
    """An engine for the gradebook at ``url`` (a new SQLite file is made private first)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        _create_private_file(Path(parsed.database))
    engine = open_engine(parsed)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _create_private_file(path: Path) -> None:
    # Grades are private: a new database file is readable by its owner only. It is made
    # whole beside its place (already in WAL mode) and linked in, so that several batches
    # opening a new gradebook at once find either no file or a finished one: switching a
    # database's journal to WAL takes an exclusive lock that SQLite's busy timeout does not
    # wait for, and a batch that lost that race failed with "database is locked".
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        return
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)  # mkstemp's file is 0600 already
    try:
        with closing(sqlite3.connect(name)) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
        with suppress(FileExistsError):  # another batch linked its file first: use that one
            os.link(name, path)
    finally:
        os.unlink(name)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")  # a report reading the file must not fail a run
    # One grade is one transaction: in the default rollback journal each costs several
    # fsyncs (~25 ms here), which made saving, not grading, the batch's bottleneck. With
    # WAL and synchronous=NORMAL a commit survives a crash or kill -9 of the grader; only
    # a power loss may drop the last grades, and the next run grades those again.
    # WAL is a property of the file: asking for it again only when it is not set yet keeps
    # every later connection from needing the exclusive lock the switch takes.
    if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        _switch_to_wal(cursor)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _switch_to_wal(cursor: Any) -> None:
    # A gradebook made before files were born in WAL mode (or an in-memory one, which
    # answers "memory" and stays so). The switch does not wait on the busy timeout, so a
    # busy database is tried again for as long as that timeout would have waited.
    deadline = time.monotonic() + WAL_SWITCH_SECONDS
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def create_tables(engine: Engine, metadata: MetaData) -> None:
    """Create the tables of a new gradebook, or check the revision of an existing one."""
    with schema_lock(engine) as conn:
        settle(conn, metadata, engine.url.render_as_string(hide_password=True))


@contextmanager
def schema_lock(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that no other batch's schema work runs beside."""
    try:
        with engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                # Takes the write lock now: checking for the tables and creating them must
                # not interleave with another process doing the same.
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            elif conn.dialect.name == "postgresql":
                # CREATE TABLE IF NOT EXISTS is not atomic in PostgreSQL: two batches
                # starting together on a new database would both create, and one would fail.
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": TABLES_LOCK})
            yield conn
            conn.commit()
    except OperationalError as exc:  # no server there, a wrong password, no such database
        raise UsageError(
            f"cannot open the gradebook {engine.url.render_as_string(hide_password=True)}: "
            f"{str(exc.orig).strip()}"
        ) from exc


def shown_url(url: str) -> str:
    """The URL as it may be printed: without its password."""
    return make_url(url).render_as_string(hide_password=True)


def upgrade(url: str) -> tuple[str | None, str]:
    """Migrate the gradebook at ``url`` to this graders' tables: (revision before, after)."""
    from .revisions import upgrade as run_migrations  # Alembic's commands: only here

    with schema_lock(engine_for(url)) as conn:
        return run_migrations(conn)


@contextmanager
def writing(engine: Engine, durable: bool = False) -> Iterator[Connection]:
    """A write transaction, committed at the end; SQLite's writer lock is taken first, so
    what the transaction reads cannot change before it writes.

    ``durable``: on disk at the commit even if the machine loses power. The gradebook's
    SQLite commits are durable against a crash of the process only (``synchronous=NORMAL``:
    a batch grades again what a power cut lost); an upload answered 202 must survive both,
    so its commit waits for the disk (``synchronous=FULL``, this transaction only).
    """
    with engine.connect() as conn:
        sqlite = conn.dialect.name == "sqlite"
        if sqlite and durable:
            conn.exec_driver_sql("PRAGMA synchronous=FULL")
        try:
            if sqlite:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            yield conn
            conn.commit()
        finally:
            if sqlite and durable:
                conn.rollback()  # nothing left open: a pragma runs outside transactions
                conn.exec_driver_sql("PRAGMA synchronous=NORMAL")


@contextmanager
def learner_lock(
    engine: Engine, course: str, assignment: str, student: str, durable: bool = False
) -> Iterator[Connection]:
    """A write transaction in which no other of this learner's on ``assignment`` runs: the
    one lock of every per-learner write that checks what is there first (an upload and the
    attempts left, a review request and the requests left). SQLite: its writer lock;
    PostgreSQL: an advisory lock per learner, so other learners' writes go on."""
    with writing(engine, durable) as conn:
        hold(conn, f"{course}/{assignment}/{student}")
        yield conn


def hold(conn: Connection, key: str) -> None:
    """Until ``conn``'s transaction ends, no other transaction holding ``key`` runs beside
    it: PostgreSQL's advisory lock of the key's hash (SQLite's writer lock, taken by
    ``writing``, already serialises every writer)."""
    if conn.dialect.name == "postgresql":
        number = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": number})
