"""One fork server as the parent sees it: start it, run jobs through it, restart it, stop it."""

from __future__ import annotations

import itertools
import json
import os
import secrets
import select
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from .contract import Job, Outcome, SandboxError
from .exchange import Ending, Follower, JobPipes
from .isolation import SERVER_ENV, Launch
from .modules import Sources, to_fd
from .paths import package_parent
from .protocol import FrameError, decode_frame, recv_message, send_message
from .watch import MAX_STRETCH

BOOT = (
    "import sys; sys.path.insert(0, sys.argv[2]); "
    "from graders.sandbox.zygote import main; main(int(sys.argv[1]))"
)
READY_TIMEOUT_S = 180.0  # importing and warming torch takes seconds, more on a loaded machine
STOP_TIMEOUT_S = 5.0
MEMORY_HEADROOM_MIB = 64
KEEPER_SLACK_S = 5.0  # the runner's backstop beyond the steps' own budgets, which the keeper keeps
FRAME_SLACK = 4096  # a step record's fields and the frame around them

Spawn = Callable[..., "subprocess.Popen[bytes]"]


class Worker:
    """A fork server process and its control socket."""

    def __init__(self, launch: Launch, config: dict[str, Any], spawn: Spawn) -> None:
        self.launch = launch
        self.config = config
        self.spawn = spawn
        self.modules: Sources | None = None  # until the runner has them (``give_modules``)
        self.ready = False  # warm and serving: it ran, or may have run, a job
        self.proc: subprocess.Popen[bytes] | None = None
        self.ctrl: socket.socket | None = None
        self.notes: list[str] = []
        self.vm_mib = 0
        self.job_ids = itertools.count(1)

    def begin_start(self) -> None:
        """Launch the server and send its configuration, and the modules when they are known
        (warming continues in the background)."""
        self.ready = False
        parent_end, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._stderr = tempfile.TemporaryFile()
        program = [
            sys.executable,
            "-I",
            "-B",
            "-c",
            BOOT,
            str(server_end.fileno()),
            package_parent(),
        ]
        command, launch_fds = self.launch.command(program)
        memory = self.config.get("memory")
        memory_fds = [memory["procs"], memory["events"], *memory["limits"]] if memory else []
        try:
            self.proc = self.spawn(
                command,
                pass_fds=(server_end.fileno(), *launch_fds, *memory_fds),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._stderr,
                env=SERVER_ENV,
                cwd="/",
                start_new_session=True,
            )
        finally:
            server_end.close()
            for fd in launch_fds:
                os.close(fd)
        self.ctrl = parent_end
        send_message(parent_end, {"op": "init", "config": self.config})
        if self.modules is not None:
            self._send_modules(self.modules)

    def give_modules(self, modules: Sources) -> None:
        """The modules to install (a course's checkers), sent now to a server warming up, and
        again to each server started after this one stops."""
        self.modules = modules
        if self.ctrl is not None:
            self._send_modules(modules)

    def _send_modules(self, modules: Sources) -> None:
        assert self.ctrl is not None
        fd = to_fd(modules)  # a memfd: the course folder is out of the server's sight
        try:
            send_message(self.ctrl, {"op": "modules"}, (fd,))
        finally:
            os.close(fd)

    def finish_start(self) -> None:
        """Wait until the server is warm; raise ``SandboxError`` with its stderr if it fails."""
        assert self.ctrl is not None and self.modules is not None, "give_modules first"
        readable, _, _ = select.select([self.ctrl], [], [], READY_TIMEOUT_S)
        message = recv_message(self.ctrl)[0] if readable else None
        if message is None or message.get("event") != "ready":
            reason = (message or {}).get("message") or self._stderr_tail() or "no reason given"
            self.stop()
            raise SandboxError(f"the sandbox ({self.launch.level}) did not start: {reason}")
        self.notes, self.vm_mib = message["notes"], message["vm_mib"]
        self.ready = True

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and self.ctrl is not None

    def run_job(self, job: Job) -> tuple[Outcome | None, str]:
        """Run ``job`` in a fresh child of its own (after restarting a server a job broke).

        Returns the outcome the keeper reported and ``""``; when the server or the keeper
        failed, ``None`` and what happened. The wire format keeps a list of steps, and
        it always holds this one job: a child never runs two pieces of anyone's code.
        """
        if not self.alive():
            self.stop()
            self.begin_start()
            self.finish_start()
        limits = job.limits
        if limits.memory_mib < self.vm_mib + MEMORY_HEADROOM_MIB:
            message = (
                f"the memory limit of {limits.memory_mib} MiB is below the {self.vm_mib} MiB "
                "the warm interpreter already uses: raise limits.memory_mib"
            )
            return Outcome("error", None, "", "", message, self.launch.level, 0.0), ""
        token = secrets.token_hex(16)
        payload = json.dumps({"token": token, "steps": [job.payload]}).encode()
        pipes = JobPipes(
            payload, limits.max_result_bytes + 2 * limits.max_output_bytes + 2 * FRAME_SLACK
        )
        assert self.ctrl is not None
        # The keeper may stretch the wall budget for a child kept waiting for a CPU.
        backstop = MAX_STRETCH * limits.timeout_s + KEEPER_SLACK_S
        follower = Follower(self.ctrl, next(self.job_ids), pipes, backstop)
        try:
            ending = self._exchange(job, follower)
        except SandboxError:
            raise  # the server refused a task and is ready for the next one
        except OSError:
            ending = Ending(False, lost="the sandbox stopped unexpectedly")  # its socket broke
        except BaseException:
            self.stop()  # interrupted mid-job (Ctrl-C): nobody would ever stop that child
            raise
        finally:
            pipes.close_all()
        if ending.lost:
            self.stop()  # the keeper and its child die with the server (parent-death signals)
            return None, ending.lost
        try:
            records = decode_frame(bytes(pipes.frame.data), token, 1)
        except FrameError as exc:
            return None, f"the sandbox lost track of the job ({exc})"
        if not records:
            return None, "the sandbox lost track of the job (no step was reported)"
        return self._outcome(records[0]), ""

    def _exchange(self, job: Job, follower: Follower) -> Ending:
        step = {
            "task": job.task,
            "check": job.check,
            "timeout_s": job.limits.timeout_s,
            "cpu_s": job.limits.cpu_s,
        }
        limits = job.limits.to_json()
        request = {"op": "run", "job": follower.job, "steps": [step], "limits": limits}
        send_message(follower.ctrl, request, follower.pipes.keeper_ends)
        follower.pipes.close_keeper_ends()
        return follower.follow()

    def _outcome(self, record: dict[str, Any]) -> Outcome:
        return Outcome(
            record["status"],
            record["result"],
            record["stdout"],
            record["stderr"],
            record["message"],
            self.launch.level,
            record["duration_s"],
            record["words"],
        )

    def kill_warming(self) -> None:
        """Kill the server if it is still warming (no job ran: nothing to clean up), from any
        thread: the one in ``finish_start`` then reads the end of its channel and stops it."""
        proc = self.proc
        if proc is not None and not self.ready:
            proc.kill()

    def stop(self) -> None:
        """Hang up; the server kills its current job and exits. Kill it if it lingers, or at
        once while it still warms up (no job ran: nothing of one to clean up), so a command
        that started it early and needed none does not wait for the warm-up to end."""
        if self.ctrl is not None:
            self.ctrl.close()
            self.ctrl = None
        if self.proc is not None:
            if not self.ready:
                self.proc.kill()
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
