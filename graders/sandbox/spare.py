"""Spares: the next job's child, forked ahead of time by the fork server, waiting for its job.

Forking a warm torch process costs 5-20 ms; a spare is forked while the previous job
runs, so the fork is off the next job's path. It is forked with its ends of the four
channels already made (the server keeps the other ends for the keeper), and it waits on a
socket of its own for the job: the tasks to run, the limits, the scratch directory and,
with Landlock, the ruleset to enforce. Then it confines itself and runs (``child.py``).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from . import reaper
from .child import ChildFds, ChildSpec, run_child
from .contract import Limits
from .modules import resolve
from .protocol import recv_message
from .verdict import EXIT_SETUP_FAILED
from .watch import ChildEnds

SpecOf = Callable[[dict[str, Any], ChildFds, int | None], ChildSpec]


@dataclass
class Spare:
    """A child forked ahead of time; the server holds the keeper's ends of its channels."""

    pid: int
    sock: socket.socket  # the job is sent here
    ends: ChildEnds  # the keeper's ends (and a pidfd), handed over with the job
    modules: int  # len(sys.modules) at fork time: after an import in the server it is stale

    def discard(self) -> None:
        """Kill and reap it (it predates an import the next job needs, or the server stops)."""
        reaper.kill(self.pid)
        self.sock.close()
        self.ends.close()
        os.waitpid(self.pid, 0)


def fork_spare(spec_of: SpecOf, server_fds: Callable[[], list[int]]) -> Spare:
    """Fork the child of the next job. ``spec_of(job, fds, ruleset_fd)`` builds its spec when
    the job comes; ``server_fds()`` are the server's descriptors the spare closes at once."""
    server_end, spare_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    steps_r, steps_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # nothing buffered here may be written twice
    server_pid = os.getpid()
    pid = os.fork()
    if pid == 0:
        for fd in (server_end.detach(), mine.detach(), steps_w, out_r, err_r, *server_fds()):
            os.close(fd)
        fds = ChildFds(steps=steps_r, stdout=out_w, stderr=err_w, channel=theirs.detach())
        _spare_main(spare_end, server_pid, fds, spec_of)
    for fd in (spare_end.detach(), theirs.detach(), steps_r, out_w, err_w):
        os.close(fd)
    ends = ChildEnds(mine, steps_w, out_r, err_r, os.pidfd_open(pid))
    return Spare(pid, server_end, ends, len(sys.modules))


def _spare_main(sock: socket.socket, server_pid: int, fds: ChildFds, spec_of: SpecOf) -> NoReturn:
    """In the spare: wait for a job, then become its child. Never returns."""
    code = EXIT_SETUP_FAILED
    try:
        reaper.prctl(reaper.PR_SET_PDEATHSIG, signal.SIGKILL)  # no spare outlives its server
        if os.getppid() == server_pid:  # else the server died before the line above
            job, job_fds = recv_message(sock)
            if job is None:
                code = 0
            else:
                run_child(spec_of(job, fds, job_fds[0] if job_fds else None))
    finally:
        os._exit(code)


def child_spec(
    job: dict[str, Any],
    fds: ChildFds,
    ruleset_fd: int | None,
    config: Any,
    syscall_filters: dict[bool, Any] | None,
    channel_filter: Any = None,
) -> ChildSpec:
    """In the spare: the child's spec, from the job message and the server's configuration.

    ``syscall_filters`` holds the server's two filters, by whether the job may start
    processes (``Limits.may_fork``); any other job gets the one that refuses ``fork`` and
    ``exec``. ``channel_filter``: the one the task's thread loads (``syscalls``)."""
    scratch = job["scratch"]
    limits = Limits(**job["limits"])
    return ChildSpec(
        functions=tuple(resolve(step["task"]) for step in job["steps"]),
        limits=limits,
        fds=fds,
        scratch=scratch,
        env={**config.env, "HOME": scratch, "TMPDIR": scratch},
        uid=config.uid,
        ruleset_fd=ruleset_fd,
        syscall_filter=None if syscall_filters is None else syscall_filters[limits.may_fork],
        channel_filter=channel_filter,
    )
