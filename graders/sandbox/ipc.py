"""SysV IPC objects never outlive a job: after each job the fork server removes them.

The syscall filter already refuses to create them; this is the second line, for machines
without seccomp. In the sandbox's own IPC namespace (bubblewrap, unshare) every object
there is a job's. Without one (plain), only objects created by the job's own uid are
touched, never the host's.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

IPC_RMID = 0
_TABLES = (("shm", "shmctl"), ("msg", "msgctl"), ("sem", "semctl"))
_libc = ctypes.CDLL(None, use_errno=True)


def remove_objects(owner: int | None, own_namespace: bool) -> int:
    """Remove the objects of ``owner`` (any owner in a namespace of our own); how many."""
    if not own_namespace and owner is None:
        return 0
    removed = 0
    for table, call in _TABLES:
        for ident, creator in objects(table):
            if own_namespace or creator == owner:
                args = (ident, 0, IPC_RMID) if call == "semctl" else (ident, IPC_RMID, None)
                removed += getattr(_libc, call)(*args) == 0
    return removed


def objects(table: str) -> list[tuple[int, int]]:
    """(id, creator uid) of each object listed in /proc/sysvipc/<table>."""
    try:
        lines = Path(f"/proc/sysvipc/{table}").read_text().splitlines()
    except OSError:
        return []
    if not lines:
        return []
    header = lines[0].split()
    ident_at, cuid_at = (
        header.index({"shm": "shmid", "msg": "msqid", "sem": "semid"}[table]),
        header.index("cuid"),
    )
    found = []
    for line in lines[1:]:
        fields = line.split()
        try:
            found.append((int(fields[ident_at]), int(fields[cuid_at])))
        except (IndexError, ValueError):
            continue
    return found
