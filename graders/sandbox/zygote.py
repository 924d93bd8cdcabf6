"""The fork server ("zygote"): a warm interpreter that forks one fresh child per job.

Started by the runner (``python -I -c ...`` possibly inside bubblewrap or unshare), it
receives its configuration, pre-warms torch, installs the course's modules (sent once the
runner has them: a command starts the server before it has read the course), then serves
``run`` requests on its control socket one at a time: hand the job to a spare (the job's
child, forked ahead of time, ``spare.py``) and to the keeper (the trusted process that
watches it, ``keeper.py``); tell the keeper how the child ended; when both are done (or the
runner's watchdog asks for a kill), reap the child, sweep every process the job left,
remove its SysV IPC objects and its scratch directory. It never sees a payload or a
result: those go through pipes between the runner and the keeper, so the children it forks
never hold one.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
from collections import deque
from typing import Any, NoReturn

from . import hugepages, ipc, landlock, reaper, syscalls
from .child import ChildFds, ChildSpec, describe_exception
from .contract import ServerConfig
from .keeper import KeeperProcess
from .memory import JobMemory
from .modules import install_from, resolve
from .mounts import set_up_view
from .paths import DEVICES, PSEUDO_READ
from .protocol import recv_message, send_message
from .scratch import make_scratch, remove_tree
from .spare import Spare, child_spec, fork_spare
from .warmup import quiet, settle, warm

WAIT_NOT_REAP = os.WEXITED | os.WNOWAIT  # how the child ended, leaving its pid taken
# A server that has run this many jobs will likely run many more: it then moves its heap onto
# huge pages (~0.3 s once; every later fork and exit ~7 ms cheaper). A one-learner run
# (graders ci, a test cell) never pays for it.
COLLAPSE_AFTER_JOBS = 8


class ForkServer:
    """The serving loop; one job at a time."""

    def __init__(self, ctrl: socket.socket, config: ServerConfig) -> None:
        self.ctrl = ctrl
        self.config = config
        self.landlock_abi = 0
        self.syscall_filters: dict[bool, Any] | None = None  # by "may start processes"
        self.channel_filter: Any = None  # loaded by each task's thread (syscalls.py)
        self.parent_gone = False
        self.spare: Spare | None = None
        self.keeper: KeeperProcess | None = None
        self.pending: deque[tuple[dict[str, Any], list[int]]] = deque()
        self.selector = selectors.DefaultSelector()
        self.selector.register(ctrl, selectors.EVENT_READ)
        self.memory = JobMemory(config.memory) if config.memory else None
        self.jobs_run = 0

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
                self.syscall_filters = {
                    processes: syscalls.build_filter(processes) for processes in (True, False)
                }
                self.channel_filter = syscalls.channel_filter()
            else:
                notes.append("seccomp (pyseccomp/libseccomp) is not available: no syscall filter")
        return notes + warm(config.preload)

    def install(self) -> list[str]:
        """Install the modules the runner sends as source (a course's checkers; none is an
        empty set), then settle the heap; return notes. Raises ``ValueError`` on anything else."""
        message, fds = recv_message(self.ctrl)
        if message is None:
            os._exit(0)  # the runner left before it knew the course
        if message.get("op") != "modules" or len(fds) != 1:
            _close_all(fds)
            raise ValueError(f"expected the modules to install, got {message.get('op')!r}")
        notes = install_from(fds[0])
        settle()
        return notes

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
        """One job: hand it to the spare and the keeper, wait, sweep, report, clean up."""
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
        spare = self.hand_over(message, scratch, fds)
        send_message(self.ctrl, {"event": "started", "job": job, "pid": spare.pid})
        self.spare = self.fork_spare()  # while the job runs
        status, killed = self.wait(spare, job)
        clean = reaper.sweep(keep={self.spare.pid, *([self.keeper.pid] if self.keeper else [])})
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
        self.jobs_run += 1
        if self.jobs_run == COLLAPSE_AFTER_JOBS:
            hugepages.collapse()

    def hand_over(self, message: dict[str, Any], scratch: str, fds: list[int]) -> Spare:
        """Give the job to the spare (a fresh one if it is stale) and its watch to the keeper
        (a fresh one if it is stale or gone); return the spare, now the job's child."""
        spare = self.spare
        if spare is None or spare.modules != len(sys.modules):
            if spare is not None:
                spare.discard()
            spare = self.fork_spare()
        self.spare = None
        keeper = self.current_keeper()
        steps = message["steps"]
        ruleset = self.ruleset(scratch)
        try:
            if self.memory is not None:
                self.memory.admit(spare.pid)  # before the child reads its steps
            job = {"steps": steps, "limits": message["limits"], "scratch": scratch}
            send_message(spare.sock, job, () if ruleset is None else (ruleset,))
            ends = spare.ends
            watch = {"op": "job", "job": message["job"], "steps": steps,
                     "limits": message["limits"], "pid": spare.pid}  # fmt: skip
            theirs = (ends.channel.fileno(), ends.steps_w, ends.stdout_r, ends.stderr_r, ends.pidfd)
            send_message(keeper.sock, watch, (*fds, *theirs))
        finally:
            # Only the pidfd stays here: no later spare may hold this job's channels.
            _close_all([*fds, *([] if ruleset is None else [ruleset])])
            spare.sock.close()
            spare.ends.channel.close()
            spare.ends.close_steps()
            _close_all([spare.ends.stdout_r, spare.ends.stderr_r])
        return spare

    def fork_spare(self) -> Spare:
        """Fork the child of the next job; it waits on its own socket."""

        def spec_of(job: dict[str, Any], fds: ChildFds, ruleset_fd: int | None) -> ChildSpec:
            return child_spec(
                job, fds, ruleset_fd, self.config, self.syscall_filters, self.channel_filter
            )

        return fork_spare(spec_of, self.own_fds)

    def own_fds(self) -> list[int]:
        """The server's descriptors a spare or the keeper closes at once after the fork."""
        keeper = [self.keeper.sock.fileno()] if self.keeper else []
        return [self.ctrl.fileno(), self.selector.fileno(), *keeper]

    def current_keeper(self) -> KeeperProcess:
        """The keeper, forked again when it is stale or has gone (a new one keeps none of
        the server's descriptors: ``KeeperProcess.fork``)."""
        if self.keeper is not None and self.keeper.usable():
            return self.keeper
        if self.keeper is not None:
            self.keeper.stop()
            self.keeper = None
        self.keeper = KeeperProcess.fork(self.memory)
        return self.keeper

    def ruleset(self, scratch: str) -> int | None:
        """A Landlock ruleset fd for a job writing to ``scratch``, or None without Landlock."""
        if not self.landlock_abi:
            return None
        rules = [(root, landlock.READ) for root in [*self.config.read_roots, *PSEUDO_READ]]
        rules += [(DEVICES, landlock.DEVICES), (scratch, landlock.handled_fs(self.landlock_abi))]
        return landlock.build_ruleset(self.landlock_abi, rules)

    def wait(self, spare: Spare, job: int) -> tuple[int, bool]:
        """Until the child has ended and the keeper is done with it, killing the child on the
        parent's request or when the keeper dies; then reap it. Returns (status, killed)."""
        pidfd, keeper = spare.ends.pidfd, self.keeper
        assert keeper is not None
        watched = {pidfd: "child", keeper.sock.fileno(): "keeper"}
        for fd, what in watched.items():
            self.selector.register(fd, selectors.EVENT_READ, what)
        killed = False
        try:
            while watched:
                for key, _events in self.selector.select():
                    if key.data is None:
                        killed = self.handle_during_job(spare.pid, job) or killed
                        continue
                    if key.data == "child":
                        # Not reaped yet: its pid is the keeper's to signal until it is done.
                        keeper.tell_exited(job, os.waitid(os.P_PIDFD, pidfd, WAIT_NOT_REAP))
                    elif not keeper.done(job):
                        continue
                    elif keeper.gone:  # nobody watches the child: it ends now
                        reaper.kill_group(spare.pid)
                        reaper.kill(spare.pid)
                    self.selector.unregister(key.fd)
                    del watched[key.fd]
        finally:
            for fd in watched:
                self.selector.unregister(fd)
            os.close(pidfd)
            if keeper.gone:  # a new one serves the next job
                keeper.stop()
                self.keeper = None
        reaper.kill_group(spare.pid)  # while the zombie still holds the group id
        reaper.kill(spare.pid)
        return os.waitpid(spare.pid, 0)[1], killed

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


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def main(fd: int) -> NoReturn:
    """Entry point: ``python -I -c "...; main(fd)"`` with the control socket on ``fd``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner decides when the server stops
    quiet()  # until the warm heap is frozen (settle)
    ctrl = socket.socket(fileno=fd)
    message, _fds = recv_message(ctrl)
    if message is None:
        os._exit(0)
    try:
        server = ForkServer(ctrl, ServerConfig(**message["config"]))
        notes = server.prepare()
        notes += server.install()
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
