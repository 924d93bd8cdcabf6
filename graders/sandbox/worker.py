"""One fork server as the parent sees it: start it, run jobs through it, restart it, stop it."""

from __future__ import annotations

import itertools
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

from .contract import Job, Outcome, SandboxError
from .exchange import Follower, JobPipes
from .isolation import BASE_ENV, Launch
from .paths import package_parent
from .protocol import recv_message, send_message
from .verdict import Ending, judge

BOOT = "import sys; sys.path.insert(0, sys.argv[2]); from graders.sandbox.zygote import main; main(int(sys.argv[1]))"
READY_TIMEOUT_S = 180.0  # importing and warming torch takes seconds, more on a loaded machine
STOP_TIMEOUT_S = 5.0
MEMORY_HEADROOM_MIB = 64

Spawn = Callable[..., "subprocess.Popen[bytes]"]


class Worker:
    """A fork server process and its control socket."""

    def __init__(self, launch: Launch, config: dict[str, Any], spawn: Spawn) -> None:
        self.launch = launch
        self.config = config
        self.spawn = spawn
        self.proc: subprocess.Popen[bytes] | None = None
        self.ctrl: socket.socket | None = None
        self.notes: list[str] = []
        self.vm_mib = 0
        self.job_ids = itertools.count(1)

    def begin_start(self) -> None:
        """Launch the server and send its configuration (warming continues in the background)."""
        parent_end, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._stderr = tempfile.TemporaryFile()
        command = [*self.launch.prefix, sys.executable, "-I", "-B", "-c", BOOT, str(server_end.fileno()), package_parent()]
        try:
            self.proc = self.spawn(
                command, pass_fds=(server_end.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=self._stderr, env=BASE_ENV, cwd="/", start_new_session=True,
            )
        finally:
            server_end.close()
        self.ctrl = parent_end
        send_message(parent_end, {"op": "init", "config": self.config})

    def finish_start(self) -> None:
        """Wait until the server is warm; raise ``SandboxError`` with its stderr if it fails."""
        assert self.ctrl is not None
        readable, _, _ = select.select([self.ctrl], [], [], READY_TIMEOUT_S)
        message = recv_message(self.ctrl)[0] if readable else None
        if message is None or message.get("event") != "ready":
            reason = (message or {}).get("message") or self._stderr_tail() or "no reason given"
            self.stop()
            raise SandboxError(f"the sandbox ({self.launch.level}) did not start: {reason}")
        self.notes, self.vm_mib = message["notes"], message["vm_mib"]

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and self.ctrl is not None

    def run(self, job: Job) -> Outcome:
        """Run one job; restart the server first if an earlier job broke it."""
        if not self.alive():
            self.stop()
            self.begin_start()
            self.finish_start()
        started = time.monotonic()
        if job.limits.memory_mib < self.vm_mib + MEMORY_HEADROOM_MIB:
            return self._outcome("error", None, "", "", f"the memory limit of {job.limits.memory_mib} MiB is below the "
                                 f"{self.vm_mib} MiB the warm interpreter already uses: raise limits.memory_mib", started)
        pipes = JobPipes(json.dumps(job.payload).encode(), job.limits.max_output_bytes, job.limits.max_result_bytes)
        assert self.ctrl is not None
        follower = Follower(self.ctrl, next(self.job_ids), pipes, job.limits.timeout_s)
        try:
            ending = self._exchange(job, follower)
        except SandboxError:
            raise  # the server refused the task and is ready for the next one
        except OSError:
            ending = Ending(None, lost="the sandbox stopped unexpectedly")  # its socket broke
        except BaseException:
            self.stop()  # interrupted mid-job (Ctrl-C): nobody would ever stop that child
            raise
        finally:
            pipes.close_all()
        if ending.lost:
            self._abandon(follower.pid)
        limits = job.limits
        verdict = judge(ending, bytes(pipes.result.data), pipes.result.overflow, limits.timeout_s, limits.max_result_bytes)
        return self._outcome(verdict.status, verdict.result, pipes.stdout.text(), pipes.stderr.text(), verdict.message, started)

    def _exchange(self, job: Job, follower: Follower) -> Ending:
        request = {"op": "run", "job": follower.job, "task": job.task, "limits": job.limits.to_json()}
        send_message(follower.ctrl, request, follower.pipes.child_ends)
        follower.pipes.close_child_ends()
        return follower.follow()

    def _outcome(self, status: str, result: Any, stdout: str, stderr: str, message: str, started: float) -> Outcome:
        return Outcome(status, result, stdout, stderr, message, self.launch.level, time.monotonic() - started)

    def _abandon(self, child_pid: int | None) -> None:
        """The server failed mid-job: kill it (namespaced levels take the job down with it)."""
        if child_pid is not None and not self.launch.prefix:
            try:
                os.killpg(child_pid, signal.SIGKILL)  # plain levels: same pid namespace
            except (ProcessLookupError, PermissionError):
                pass
        self.stop()

    def stop(self) -> None:
        """Hang up; the server kills its current job and exits. Kill it if it lingers."""
        if self.ctrl is not None:
            self.ctrl.close()
            self.ctrl = None
        if self.proc is not None:
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        lines = self._stderr.read().decode(errors="replace").strip().splitlines()
        return " | ".join(lines[-5:])
