"""The fork server ("zygote"): a warm interpreter that forks one fresh keeper per job.

Started by the runner (``python -I -c ...`` possibly inside bubblewrap or unshare), it
receives its configuration, pre-warms torch, then serves ``run`` requests on its control
socket one at a time: hand the job to a spare (forked ahead of time), which becomes the
job's keeper and forks the confined child (``keeper.py``); wait for the keeper (or kill it
when the runner's watchdog says so); then sweep every process the job left, remove its
SysV IPC objects and its scratch directory. It never sees a payload or a result: those go
through pipes between the runner and the keeper.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
from collections import deque
from dataclasses import dataclass
from typing import Any, NoReturn

from . import ipc, landlock, reaper, syscalls
from .child import ChildFds, ChildSpec, describe_exception
from .contract import Limits, ServerConfig
from .keeper import KeeperSpec, Step, run_keeper
from .memory import JobMemory
from .modules import install_from, resolve
from .mounts import set_up_view
from .paths import DEVICES, PSEUDO_READ
from .protocol import recv_message, send_message
from .scratch import make_scratch, remove_tree
from .verdict import EXIT_SETUP_FAILED
from .warmup import warm


@dataclass
class Spare:
    """A child forked ahead of time, waiting on its own socket for the job it will run.

    Forking a warm torch process costs 5-20 ms; a spare is forked while the previous job
    runs, so the fork is off the next job's path.
    """

    pid: int
    sock: socket.socket
    modules: int  # len(sys.modules) at fork time: after an import in the server it is stale


class ForkServer:
    """The serving loop; one job at a time."""

    def __init__(self, ctrl: socket.socket, config: ServerConfig) -> None:
        self.ctrl = ctrl
        self.config = config
        self.landlock_abi = 0
        self.syscall_filter: Any = None
        self.parent_gone = False
        self.spare: Spare | None = None
        self.pending: deque[tuple[dict[str, Any], list[int]]] = deque()
        self.selector = selectors.DefaultSelector()
        self.selector.register(ctrl, selectors.EVENT_READ)
        self.memory = JobMemory(config.memory) if config.memory else None

    def prepare(self) -> list[str]:
        """Set up the view, become the subreaper, warm torch; return notes for the runner."""
        config = self.config
        if config.private_tmp_mib:
            set_up_view(config.private_tmp_mib, config.masks, config.keeps)
        reaper.become_subreaper()
        os.makedirs(config.scratch_root, mode=0o711, exist_ok=True)
        os.chmod(config.scratch_root, 0o711)  # children reach their own directory, list none
        sys.path[:0] = config.task_paths
        notes = []
        if config.confine:
            self.landlock_abi = landlock.abi_version()
            if not self.landlock_abi:
                notes.append("Landlock is not available: children may write outside scratch")
            if syscalls.available():
                self.syscall_filter = syscalls.build_filter()
            else:
                notes.append("seccomp (pyseccomp/libseccomp) is not available: no syscall filter")
        if config.modules_fd is not None:
            notes += install_from(config.modules_fd)
        return notes + warm(config.preload)

    def serve(self) -> None:
        """Handle requests until the parent hangs up."""
        self.spare = self.fork_spare()
        while not self.parent_gone:
            message, fds = self.pending.popleft() if self.pending else recv_message(self.ctrl)
            if message is None:
                return
            if message.get("op") == "run" and len(fds) == 2:
                self.run_job(message, fds)
            else:
                _close_all(fds)  # a kill for a job that already ended

    def run_job(self, message: dict[str, Any], fds: list[int]) -> None:
        """One job: hand it to the spare (its keeper), wait, sweep, report, clean up."""
        job = message["job"]
        try:
            for step in message["steps"]:  # imported here, once: later spares get them warm
                resolve(step["task"]), step["check"] and resolve(step["check"])
        except Exception as exc:  # noqa: BLE001 - any import error is reported to the parent
            _close_all(fds)
            send_message(
                self.ctrl, {"event": "refused", "job": job, "message": describe_exception(exc)}
            )
            return
        if self.memory is not None:
            self.memory.set_limit(int(message["limits"]["memory_mib"]))
        scratch = make_scratch(self.config.scratch_root, job, self.config.uid)
        pid = self.hand_over(
            {"steps": message["steps"], "limits": message["limits"], "scratch": scratch}, fds
        )
        send_message(self.ctrl, {"event": "started", "job": job, "pid": pid})
        self.spare = self.fork_spare()  # while the job runs
        status, killed = self.wait(pid, job)
        clean = reaper.sweep(keep=self.spare.pid)
        if not self.parent_gone:
            send_message(
                self.ctrl,
                {"event": "exited", "job": job, "status": status, "killed": killed, "clean": clean},
            )
        # After the report: the next job's clock starts when its keeper does, so however
        # long this takes, it is never on another job's time.
        ipc.remove_objects(
            self.config.uid, own_namespace=self.config.level in ("bubblewrap", "unshare")
        )
        remove_tree(scratch)

    def hand_over(self, job: dict[str, Any], fds: list[int]) -> int:
        """Give the job to the spare (a fresh one if it is stale or gone); return its pid."""
        spare = self.spare
        if spare is None or spare.modules != len(sys.modules):
            self.discard_spare()
            spare = self.fork_spare()
        ruleset = self.ruleset(job["scratch"])
        try:
            send_message(spare.sock, job, (*fds, *([] if ruleset is None else [ruleset])))
        finally:
            _close_all([*fds, *([] if ruleset is None else [ruleset])])
            spare.sock.close()
            self.spare = None
        return spare.pid

    def fork_spare(self) -> Spare:
        """Fork the child that will run the next job; it waits on its own socket."""
        server_end, spare_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        _flush_stdio()  # nothing buffered here may be written twice
        server_pid = os.getpid()
        pid = os.fork()
        if pid == 0:
            server_end.close()
            self.spare_main(spare_end, server_pid)
        spare_end.close()
        return Spare(pid, server_end, len(sys.modules))

    def discard_spare(self) -> None:
        """Kill and reap the spare (it predates an import the next job needs)."""
        if self.spare is not None:
            reaper.kill(self.spare.pid)
            self.spare.sock.close()
            os.waitpid(self.spare.pid, 0)
            self.spare = None

    def spare_main(self, sock: socket.socket, server_pid: int) -> NoReturn:
        """In the spare: wait for a job, then become its child. Never returns."""
        code = EXIT_SETUP_FAILED
        try:
            reaper.prctl(reaper.PR_SET_PDEATHSIG, signal.SIGKILL)  # no spare outlives its server
            if os.getppid() == server_pid:  # else the server died before the line above
                self.ctrl.close()  # only this process's copy; the child closes every other fd later
                self.selector.close()
                job, fds = recv_message(sock)
                if job is None:
                    code = 0
                else:
                    run_keeper(self.keeper_spec(job, fds))
        finally:
            os._exit(code)

    def keeper_spec(self, job: dict[str, Any], fds: list[int]) -> KeeperSpec:
        """In the spare: what the keeper and its child need, from the job message and its fds."""
        scratch, limits = job["scratch"], Limits(**job["limits"])
        steps = tuple(
            Step(
                resolve(s["task"]),
                resolve(s["check"]) if s["check"] else None,
                float(s["timeout_s"]),
            )
            for s in job["steps"]
        )
        ruleset_fd = fds[2] if len(fds) > 2 else None

        def child(child_fds: ChildFds) -> ChildSpec:
            return ChildSpec(
                functions=tuple(step.task for step in steps),
                limits=limits,
                fds=child_fds,
                scratch=scratch,
                env={**self.config.env, "HOME": scratch, "TMPDIR": scratch},
                uid=self.config.uid,
                ruleset_fd=ruleset_fd,
                syscall_filter=self.syscall_filter,
            )

        return KeeperSpec(
            steps=steps,
            limits=limits,
            payload_fd=fds[0],
            result_fd=fds[1],
            child=child,
            memory=self.memory,
            child_only=() if ruleset_fd is None else (ruleset_fd,),
        )

    def ruleset(self, scratch: str) -> int | None:
        """A Landlock ruleset fd for a job writing to ``scratch``, or None without Landlock."""
        if not self.landlock_abi:
            return None
        rules = [(root, landlock.READ) for root in [*self.config.read_roots, *PSEUDO_READ]]
        rules += [(DEVICES, landlock.DEVICES), (scratch, landlock.handled_fs(self.landlock_abi))]
        return landlock.build_ruleset(self.landlock_abi, rules)

    def wait(self, pid: int, job: int) -> tuple[int, bool]:
        """Wait for the child; kill its group on the parent's request. Returns (status, killed)."""
        pidfd = os.pidfd_open(pid)
        self.selector.register(pidfd, selectors.EVENT_READ)
        killed = False
        try:
            while True:
                for key, _events in self.selector.select():
                    if key.fd == pidfd:
                        reaper.kill_group(pid)  # while the zombie still holds the group id
                        return os.waitpid(pid, 0)[1], killed
                    killed = self.handle_during_job(pid, job) or killed
        finally:
            self.selector.unregister(pidfd)
            os.close(pidfd)

    def handle_during_job(self, pid: int, job: int) -> bool:
        """A control message while a child runs; True when it asked to kill this job."""
        message, fds = recv_message(self.ctrl)
        if message is not None and message.get("op") == "run":
            # The parent already has this job's result and sent the next one.
            self.pending.append((message, fds))
            return False
        _close_all(fds)
        if message is None:
            self.parent_gone = True  # kill the job, then the serving loop ends
        elif message.get("op") != "kill" or message.get("job") != job:
            return False
        reaper.kill_group(pid)
        reaper.kill(pid)
        return message is not None


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        stream.flush()


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def main(fd: int) -> NoReturn:
    """Entry point: ``python -I -c "...; main(fd)"`` with the control socket on ``fd``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner decides when the server stops
    ctrl = socket.socket(fileno=fd)
    message, _fds = recv_message(ctrl)
    if message is None:
        os._exit(0)
    try:
        server = ForkServer(ctrl, ServerConfig(**message["config"]))
        notes = server.prepare()
    except Exception as exc:  # noqa: BLE001 - the runner shows why the server could not start
        send_message(ctrl, {"event": "failed", "message": describe_exception(exc)})
        os._exit(1)
    send_message(ctrl, {"event": "ready", "notes": notes, "vm_mib": _vm_mib()})
    server.serve()
    reaper.sweep()  # the job, if the parent left during one, and the spare
    os._exit(0)


def _vm_mib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) // 1024
    return 0
