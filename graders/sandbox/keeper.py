"""The keeper: the trusted process of one job, between the fork server and the confined child.

The fork server hands a job to a spare; the spare becomes the keeper. It forks the child
*before* it reads the job's payload, so the child's memory never holds the job's token,
and it keeps for itself everything the child must not reach: the token, the result pipe
to the runner, the clock and the judgement of what the child sent::

    runner --payload pipe--> keeper --steps pipe--> child (confined; runs the task code)
    runner <--result pipe--- keeper <--step socket-- child
                             keeper <--stdout/stderr pipes-- child

For each step the keeper gives the child its budget (the clock runs from the end of the
previous step), attributes the child's output to the step, parses the step's line
strictly and, when the job names a ``check``, calls it on the result. A step that times
out, dies, or writes what the sandbox does not write ends the child; the runner runs the
remaining steps in a fresh child. The keeper then writes one frame and exits. It runs no
task code, drops nothing of its privileges and is not dumpable (a child of the same uid
cannot read its memory or trace it).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from .capture import Capture
from .child import ChildFds, ChildSpec, Task, describe_exception, run_child
from .contract import Limits
from .memory import JobMemory
from .protocol import FrameError, decode_line, encode_frame
from .reaper import prctl
from .verdict import Verdict, channel_abuse, checked, died, from_end, timed_out

PR_SET_DUMPABLE = 4
EXIT_GRACE_S = 2.0  # after the last line or a kill, how long the child's exit may take
LINE_OVERHEAD = 256  # a step line is its result plus the {"end": i, "ok": ...} around it
Check = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Step:
    """One step as the fork server resolved it: the task, its keeper-side check, its budget."""

    task: Task
    check: Check | None
    timeout_s: float


@dataclass(frozen=True)
class KeeperSpec:
    steps: tuple[Step, ...]
    limits: Limits
    payload_fd: int  # read: {"token": ..., "steps": [payload, ...]} from the runner
    result_fd: int  # write: the one frame for the runner
    child: Callable[[ChildFds], ChildSpec]  # the child's spec, given its descriptors
    memory: JobMemory | None  # the job's memory cgroup, when the machine has one
    child_only: tuple[int, ...] = ()  # descriptors only the child uses (its Landlock ruleset)


def run_keeper(spec: KeeperSpec) -> NoReturn:
    """In the spare, which has just received its job; never returns."""
    code = 1
    try:
        prctl(PR_SET_DUMPABLE, 0)
        child_pid, ends = _fork_child(spec)
        request = _read_json(spec.payload_fd)
        payloads = request["steps"]
        watch = Watch(spec, child_pid, ends, payloads)
        records = watch.run()  # the child is killed by now, not yet reaped
        _write_all(spec.result_fd, encode_frame(str(request["token"]), records))
        # Closed here, not by exit: the runner takes end-of-file as the frame's end, and a
        # warm process's exit (tearing down its memory) would hold it back by milliseconds.
        os.close(spec.result_fd)
        watch.reap()
        code = 0
    except BaseException as exc:  # noqa: BLE001 - a keeper that failed tells the runner nothing: "lost"
        os.write(2, f"keeper: {describe_exception(exc)}\n".encode())
    finally:
        os._exit(code)


@dataclass(frozen=True)
class KeeperEnds:
    channel: socket.socket
    steps_w: int
    stdout_r: int
    stderr_r: int


def _fork_child(spec: KeeperSpec) -> tuple[int, KeeperEnds]:
    """Fork the child with its own ends of the four channels; return its pid and ours."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    steps_r, steps_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        for fd in (spec.payload_fd, spec.result_fd, mine.fileno(), steps_w, out_r, err_r):
            os.close(fd)
        run_child(
            spec.child(ChildFds(steps=steps_r, stdout=out_w, stderr=err_w, channel=theirs.fileno()))
        )
    for fd in (theirs.detach(), steps_r, out_w, err_w, *spec.child_only):
        os.close(fd)
    if spec.memory is not None:
        spec.memory.admit(pid)  # before the child reads its steps, so before any task code
    return pid, KeeperEnds(mine, steps_w, out_r, err_r)


class Watch:
    """The keeper's loop over one child: feed its steps, follow its lines, keep its clock."""

    def __init__(
        self, spec: KeeperSpec, pid: int, ends: KeeperEnds, payloads: list[dict[str, Any]]
    ) -> None:
        self.spec, self.pid, self.payloads = spec, pid, payloads
        self.records: list[dict[str, Any]] = []
        self.step = 0
        self.step_started = time.monotonic()
        self.deadline = self.step_started + spec.steps[0].timeout_s
        self.line = bytearray()
        self.max_line = spec.limits.max_result_bytes + LINE_OVERHEAD
        cap = spec.limits.max_output_bytes
        self.stdout, self.stderr = Capture(ends.stdout_r, cap), Capture(ends.stderr_r, cap)
        self.channel = ends.channel
        self.pidfd = os.pidfd_open(pid)
        self.wait_status: int | None = None
        self.oom_before = spec.memory.oom_kills() if spec.memory else 0
        self.selector = selectors.DefaultSelector()
        for fd, data in (
            (ends.channel.fileno(), "line"),
            (ends.stdout_r, self.stdout),
            (ends.stderr_r, self.stderr),
            (self.pidfd, "exit"),
        ):
            self.selector.register(fd, selectors.EVENT_READ, data)
        self._send_steps(ends.steps_w, payloads)

    def _send_steps(self, fd: int, payloads: list[dict[str, Any]]) -> None:
        try:
            _write_all(fd, json.dumps(payloads).encode())
        except BrokenPipeError:
            pass  # the child is already gone; its exit tells the story
        finally:
            os.close(fd)

    def run(self) -> list[dict[str, Any]]:
        try:
            while not self.finished():
                for key, _events in self.selector.select(
                    max(0.0, self.deadline - time.monotonic())
                ):
                    self.handle(key)
                    if self.finished():
                        break
                if not self.finished() and time.monotonic() >= self.deadline:
                    self.end_step(timed_out(self.spec.steps[self.step].timeout_s))
        finally:
            self.kill_child()
        return self.records

    def finished(self) -> bool:
        return self.step >= len(self.spec.steps) or len(self.records) > self.step

    def handle(self, key: selectors.SelectorKey) -> None:
        if key.data == "line":
            self.on_channel()
        elif key.data == "exit":
            self.on_exit()
        elif key.data.read() == 0:
            self.selector.unregister(key.fd)

    def on_channel(self) -> int:
        """Read one chunk of lines: its size, 0 at end of file, -1 when nothing is there."""
        try:
            chunk = self.channel.recv(1 << 16)
        except BlockingIOError:
            return -1
        except OSError:
            chunk = b""  # ECONNRESET: the child is gone
        if not chunk:
            self.selector.unregister(self.channel.fileno())
            return 0
        self.line += chunk
        while not self.finished() and b"\n" in self.line:
            line, _, rest = bytes(self.line).partition(b"\n")
            self.line = bytearray(rest)
            self.on_line(line)
        if not self.finished() and len(self.line) > self.max_line:
            self.end_step(self.too_large())
        return len(chunk)

    def too_large(self) -> Verdict:
        return channel_abuse(
            f"the result is larger than the limit of {self.spec.limits.max_result_bytes} bytes"
        )

    def on_line(self, line: bytes) -> None:
        if len(line) > self.max_line:
            self.end_step(self.too_large())
            return
        try:
            kind, value = decode_line(line, self.step)
        except FrameError as exc:
            self.end_step(channel_abuse(str(exc)))
            return
        if kind != "begin":  # the step's own check, here in the trusted process
            self.end_step(
                checked(
                    from_end(kind, value),
                    self.spec.steps[self.step].check,
                    self.payloads[self.step],
                )
            )

    def on_exit(self) -> None:
        self.wait_status = os.waitpid(self.pid, 0)[1]
        self.selector.unregister(self.pidfd)
        self.drain()
        if not self.finished():
            self.end_step(died(self.wait_status, self.out_of_memory()))

    def drain(self) -> None:
        """Read the lines the child left in its channel (it has ended or been killed)."""
        self.channel.setblocking(False)
        while (
            not self.finished()
            and self.channel.fileno() in self.selector.get_map()
            and self.on_channel() > 0
        ):
            pass

    def end_step(self, verdict: Verdict) -> None:
        for capture in (self.stdout, self.stderr):  # what the step printed before its line
            capture.read_available()
        now = time.monotonic()
        self.records.append(
            {
                "status": verdict.status,
                "result": verdict.result,
                "message": verdict.message,
                "stdout": self.stdout.take(),
                "stderr": self.stderr.take(),
                "duration_s": round(now - self.step_started, 6),
            }
        )
        if verdict.status != "ok":
            return  # finished(): the remaining steps run in a fresh child
        self.step += 1
        if self.step < len(self.spec.steps):
            self.step_started, self.deadline = now, now + self.spec.steps[self.step].timeout_s

    def out_of_memory(self) -> str:
        memory = self.spec.memory
        if memory is None or memory.oom_kills() <= self.oom_before:
            return ""
        return f"{memory.limit_mib} MiB"

    def kill_child(self) -> None:
        """Kill the child's group and the child (done, or given up on), without waiting.

        Only while the child is unreaped: its pid (and so its group id) cannot be reused
        until then. Once reaped, what it left is swept by the fork server (the subreaper).
        """
        if self.wait_status is None:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass  # it never reached setsid(): there is no group yet
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        self.selector.close()

    def reap(self) -> None:
        """Wait for the killed child's exit (after the frame: its teardown is on no clock)."""
        if self.wait_status is None:
            self.wait_status = os.waitpid(self.pid, 0)[1]
        os.close(self.pidfd)


def _read_json(fd: int) -> Any:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    return json.loads(b"".join(chunks))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
