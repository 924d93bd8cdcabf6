"""Leave no process behind: the fork server is a child subreaper and sweeps after every job.

A learner's process can leave its process group (``setsid``) and its parent can exit, but
an orphan is always re-parented to the nearest subreaper above it, which is the fork
server. So after a job, killing the job's group and then every direct child of the
server, until none is left, removes every process the job started.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from collections.abc import Collection

PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1

_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    """``prctl(option, value, 0, 0, 0)``, raising ``OSError`` on failure."""
    if _libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"prctl({option}): {os.strerror(errno)}")


def become_subreaper() -> None:
    """Make orphaned descendants of this process its own children."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def kill(pid: int) -> None:
    """SIGKILL ``pid``, which may have ended already."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def kill_group(pgid: int) -> None:
    """SIGKILL a process group, if it still has members."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def sweep(keep: Collection[int] = (), limit_s: float = 5.0) -> bool:
    """Kill and reap every child of this process but those in ``keep`` (the fork server's
    spare and keeper); True when no other is left."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid:
            continue  # reaped one; look again
        strays = [p for p in children() if p not in keep]
        if not strays:
            return True
        for stray in strays:
            try:
                os.kill(stray, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.0005)
    return False


def children() -> list[int]:
    """Pids whose parent is this process.

    Read from /proc/<pid>/stat (this kernel may lack /proc/<pid>/task/<tid>/children);
    a few milliseconds on a busy host, well under a millisecond inside a pid namespace.
    """
    me = os.getpid()
    return [
        int(entry.name)
        for entry in os.scandir("/proc")
        if entry.name.isdigit() and parent_of(entry.name) == me
    ]


def parent_of(pid: int | str | None) -> int | None:
    """The parent pid of ``pid``, None when it has gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name (field 2) may contain spaces and parentheses: parse after the last ')'.
    return int(stat[stat.rindex(b")") + 2 :].split()[1])
