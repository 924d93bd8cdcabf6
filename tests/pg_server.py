"""A throwaway PostgreSQL server for the tests and the benchmarks: ``initdb`` in a new
folder, ``pg_ctl start`` listening on a unix socket in that folder only (no TCP port),
one new database per caller, and ``stop`` that removes it all.

PostgreSQL refuses to run as root: under root the server runs as the ``postgres`` account
(Debian's package creates it), otherwise as the current user. ``find_bin`` looks for the
binaries in ``$GRADERS_PG_BIN``, on ``PATH``, then in Debian's ``/usr/lib/postgresql/<v>/bin``.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

PORT = 5432  # only names the socket file: the folder is the server's own
SUPERUSER = "graders"


def find_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None when PostgreSQL is not installed."""
    candidates = [os.environ.get("GRADERS_PG_BIN", "")]
    on_path = shutil.which("initdb")
    candidates.append(str(Path(on_path).parent) if on_path else "")
    debian = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    candidates += [str(p) for p in reversed(debian)]
    for folder in filter(None, candidates):
        if (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    return None


class PostgresServer:
    """One server, started by ``start`` and gone after ``stop``."""

    def __init__(self, bin_dir: Path, *, durable: bool = False) -> None:
        self.bin = bin_dir
        self.durable = durable  # fsync on, as a real gradebook would run (the benchmarks)
        self.folder = Path(tempfile.mkdtemp(prefix="graders-pg-"))
        self.data = self.folder / "data"
        self._count = itertools.count()
        self._account = _account()

    @property
    def socket_dir(self) -> Path:
        return self.folder

    def start(self) -> PostgresServer:
        if self._account is not None:
            os.chown(self.folder, self._account.pw_uid, self._account.pw_gid)
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--no-sync",
        )
        options = f"-k {self.folder} -p {PORT} -c listen_addresses='' -c max_connections=200"
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-o", options, "-w",
            "start",
        )  # fmt: skip
        return self

    def stop(self) -> None:
        if self.data.is_dir():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of ``database`` on this server (through its socket)."""
        return f"postgresql+psycopg://{SUPERUSER}@/{database}?host={self.folder}&port={PORT}"

    def new_database(self, prefix: str = "gradebook") -> str:
        """A new, empty database; its URL."""
        import psycopg

        name = f"{prefix}_{os.getpid()}_{next(self._count)}"
        with psycopg.connect(
            host=str(self.folder), port=PORT, user=SUPERUSER, dbname="postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def log(self) -> str:
        path = self.folder / "log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _run(self, tool: str, *args: str, check: bool = True) -> None:
        extra: dict[str, Any] = {}
        if self._account is not None:
            extra = dict(user=self._account.pw_uid, group=self._account.pw_gid, extra_groups=[])
        done = subprocess.run(
            [str(self.bin / tool), *args],
            capture_output=True,
            text=True,
            cwd=self.folder,
            timeout=120,
            env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8"},
            **extra,
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr}\n{self.log()}")


def _account() -> pwd.struct_passwd | None:
    """Whom the server runs as: None for the current user, ``postgres`` under root."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres")
    except KeyError as exc:
        raise RuntimeError(
            "PostgreSQL will not run as root, and there is no postgres account"
        ) from exc
