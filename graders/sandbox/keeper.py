"""The keeper: the trusted process of a fork server, between the runner and each confined child.

Forked once from the warm fork server (and again only when it is stale or gone), before
it ever sees a job, the keeper serves the server's jobs one after the other. It never
forks: every child is forked by the server, from its own memory, which holds no payload,
token or result, so no child can find in its memory what another job sent or received.
For each job the server hands it the runner's two pipes and its ends of the child's
channels, and the keeper keeps for itself everything the child must not reach: the token,
the result pipe to the runner, the clock and the judgement of what the child sent::

    runner --payload pipe--> keeper --steps pipe--> child (confined; runs the task code)
    runner <--result pipe--- keeper <--step socket-- child
                             keeper <--stdout/stderr pipes-- child
    fork server --job, child's ends / "exited"--> keeper --"done"--> fork server

The watch over the child (``watch.py``) ends in one frame for the runner; the keeper then
closes every descriptor of the job and tells the server it is done. It runs no task code,
drops nothing of its privileges and is not dumpable (a child of the same uid cannot read
its memory or trace it). Keeping one process for many jobs, rather than forking one per
job, saves a fork and the tear-down of a warm interpreter on every job.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from dataclasses import dataclass
from typing import Any, NoReturn

from .child import close_all_but, describe_exception
from .contract import Limits
from .memory import JobMemory
from .modules import resolve
from .protocol import encode_frame, recv_message, send_message
from .reaper import PR_SET_PDEATHSIG, kill, prctl
from .watch import Check, ChildEnds, Step, Watch, WatchSpec, write_all

PR_SET_DUMPABLE = 4


class Keeper:
    """The keeper's loop: one job at a time, as the fork server sends them."""

    def __init__(self, server: socket.socket, memory: JobMemory | None) -> None:
        self.server, self.memory = server, memory
        self.checks: dict[str, Check] = {}

    def serve(self) -> NoReturn:
        """Until the server hangs up: run each job it sends; never returns."""
        prctl(PR_SET_DUMPABLE, 0)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # no keeper outlives its server
        while True:
            message, fds = recv_message(self.server)
            if message is None:
                os._exit(0)
            if message.get("op") != "job" or len(fds) != 7:
                _close_all(fds)  # the late "exited" of a child whose job is done
                continue
            self.run_job(message, fds)

    def run_job(self, message: dict[str, Any], fds: list[int]) -> None:
        payload_fd, result_fd, channel, steps_w, stdout_r, stderr_r, pidfd = fds
        ends = ChildEnds(socket.socket(fileno=channel), steps_w, stdout_r, stderr_r, pidfd)
        job = message["job"]
        try:
            request = _read_json(payload_fd)
            spec = WatchSpec(
                steps=tuple(
                    Step(self.check(s["check"]), float(s["timeout_s"]), float(s["cpu_s"]))
                    for s in message["steps"]
                ),
                limits=Limits(**message["limits"]),
                pid=int(message["pid"]),
                memory=self.memory,
                exit_status=lambda: self.exit_status(job),
            )
            watch = Watch(spec, ends, request["steps"])
            records = watch.run()  # the child is killed by now; the server reaps it later
            write_all(result_fd, encode_frame(str(request["token"]), records))
        except BaseException as exc:  # noqa: BLE001 - the runner gets no frame: "lost"
            os.write(2, f"keeper: {describe_exception(exc)}\n".encode())
        finally:
            # Closed here: the runner takes end-of-file as the frame's end.
            _close_all([result_fd])
            ends.close()
        send_message(self.server, {"event": "done", "job": job})

    def check(self, name: str | None) -> Check | None:
        """The keeper-side check of a step, imported once for every job that names it."""
        if not name:
            return None
        if name not in self.checks:
            self.checks[name] = resolve(name)
        return self.checks[name]

    def exit_status(self, job: int) -> int:
        """Wait for the server's word on how this job's child ended (its wait status)."""
        while True:
            message, fds = recv_message(self.server)
            _close_all(fds)
            if message is None:
                raise ConnectionError("the fork server has gone")
            if message.get("event") == "exited" and message.get("job") == job:
                return int(message["status"])


@dataclass
class KeeperProcess:
    """The keeper as the fork server sees it: its pid, its socket, the imports it was forked
    with (after an import in the server it is stale: its checks would be imported anew)."""

    pid: int
    sock: socket.socket
    modules: int
    gone: bool = False  # it hung up (died): stopped after its job, replaced for the next

    @classmethod
    def fork(cls, memory: JobMemory | None) -> KeeperProcess:
        """Fork a keeper from the server; it closes at once every descriptor but its socket
        to the server, its standard streams and its cgroup files (whatever the server held
        then: its own, a spare's, the job's being handed over), and serves until the server
        hangs up."""
        server_end, keeper_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # nothing buffered here may be written twice
        pid = os.fork()
        if pid == 0:
            try:
                close_all_but(
                    {0, 1, 2, keeper_end.fileno(), *(memory.descriptors() if memory else ())}
                )
                Keeper(keeper_end, memory).serve()
            finally:
                os._exit(1)
        keeper_end.close()
        return cls(pid, server_end, len(sys.modules))

    def usable(self) -> bool:
        if self.gone or self.modules != len(sys.modules):
            return False
        try:
            return os.waitpid(self.pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False  # ended, and reaped by a sweep

    def stop(self) -> None:
        kill(self.pid)
        self.sock.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass  # reaped already

    def tell_exited(self, job: int, info: Any) -> None:
        """Give the keeper the child's wait status (``os.waitid``'s answer, in the server):
        it cannot wait for a child that is not its own."""
        if info.si_code == os.CLD_EXITED:
            status = (info.si_status & 0xFF) << 8
        else:  # killed, or dumped core: the signal, with the core flag
            status = info.si_status | (0x80 if info.si_code == os.CLD_DUMPED else 0)
        try:
            send_message(self.sock, {"event": "exited", "job": job, "status": status})
        except OSError:
            pass  # it has gone: ``done`` says so

    def done(self, job: int) -> bool:
        """Read the keeper's message: True when it is done with ``job`` or has gone."""
        message, fds = recv_message(self.sock)
        _close_all(fds)
        if message is None:
            self.gone = True
            return True
        return message.get("event") == "done" and message.get("job") == job


def _read_json(fd: int) -> Any:
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return json.loads(b"".join(chunks))


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)
