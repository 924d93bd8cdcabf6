"""The service's processes, in the gradebook: who is alive, and what a dead one was grading.

    servers = Servers(engine)
    servers.register(me)        # at start; then servers.beat(me) every BEAT_S seconds
    servers.sweep(me)           # attempts claimed by a dead process go back to the queue
    servers.stopped(me)         # at a clean stop

A process is dead when it said it stopped, when its heartbeat is older than LEASE_S, or,
on this machine, when no process has its pid (so a restart after ``kill -9`` takes back
the dead one's attempts at once, without waiting for the lease). An attempt it was grading
goes back to the queue and is graded again from the start: a grade is saved only by the
process that holds the claim (``queue``), so each attempt is graded exactly once.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Engine

from ..gradebook.databases import writing
from ..gradebook.service_tables import GRADING, AttemptRow, ServerRow
from .queue import REQUEUED

BEAT_S = 5.0  # how often a process says it is alive
LEASE_S = 30.0  # how long another machine's silent process is still taken as alive


@dataclass(frozen=True)
class Me:
    """This process, as the ``servers`` table names it."""

    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    host: str = field(default_factory=socket.gethostname)
    pid: int = field(default_factory=os.getpid)


class Servers:
    """The ``servers`` table of one gradebook."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def register(self, me: Me) -> None:
        now = datetime.now(UTC)
        with self.engine.begin() as conn:
            conn.execute(
                insert(ServerRow).values(
                    id=me.id, host=me.host, pid=me.pid, started_at=now, beat_at=now
                )
            )

    def beat(self, me: Me) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(ServerRow).where(ServerRow.id == me.id).values(beat_at=datetime.now(UTC))
            )

    def stopped(self, me: Me) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(ServerRow).where(ServerRow.id == me.id).values(stopped_at=datetime.now(UTC))
            )

    def sweep(self, me: Me) -> int:
        """Queue again every attempt claimed by a process that is not alive: how many."""
        now = datetime.now(UTC)
        with writing(self.engine) as conn:
            rows = conn.execute(
                select(ServerRow.id, ServerRow.host, ServerRow.pid, ServerRow.beat_at).where(
                    ServerRow.stopped_at.is_(None)
                )
            ).all()
            dead = [r.id for r in rows if r.id != me.id and not _alive(r, me, now)]
            if dead:
                conn.execute(update(ServerRow).where(ServerRow.id.in_(dead)).values(stopped_at=now))
            alive = [r.id for r in rows if r.id not in dead]
            done = conn.execute(
                update(AttemptRow)
                .where(
                    AttemptRow.status == GRADING,
                    AttemptRow.claimed_by.is_(None) | AttemptRow.claimed_by.not_in(alive),
                )
                .values(REQUEUED)
            )
            return int(done.rowcount)


def _alive(row: object, me: Me, now: datetime) -> bool:
    host, pid, beat_at = row.host, row.pid, row.beat_at  # type: ignore[attr-defined]
    if now - beat_at > timedelta(seconds=LEASE_S):
        return False
    if host != me.host:
        return True  # another machine's: its heartbeat is all there is to go by
    if pid == me.pid:
        return False  # this very process registered again: the older entry is a past life
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process has that pid: it may well be a server
    return True
