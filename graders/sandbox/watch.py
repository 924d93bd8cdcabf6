"""The keeper's loop over one job's child: feed its steps, follow its lines, keep its clock.

For each step the watch gives the child its budgets (the clocks run from the end of the
previous step): wall time, and CPU time read from ``/proc`` every ``CPU_POLL_S``, so that a
busy loop ends at its CPU budget whatever the machine's load; and output, so that a flood
(its writer blocked on a full pipe, costing no CPU) ends at ``max_flood_bytes``. It
attributes the child's output to the step, parses the step's line strictly and, when the
job names a ``check``, calls it on the result. A step that times out, dies, floods, or
writes what the sandbox does not write ends the child; the runner runs the remaining
steps in a fresh child. The child is not the keeper's own: the fork server forked it, and
says how it ended (``WatchSpec.exit_status``).
"""

from __future__ import annotations

import json
import os
import secrets
import selectors
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .capture import Capture
from .contract import Limits
from .memory import JobMemory
from .protocol import SEAL_BYTES, FrameError, decode_line, is_ask, is_running
from .verdict import (
    StepOutcome,
    channel_abuse,
    checked,
    died,
    flooded,
    from_end,
    left_a_thread,
    said,
    timed_out,
    used_too_much_cpu,
)
from .words import Words

CPU_POLL_S = 0.05
# The wall budget does not count the time the child spent waiting for a CPU (the kernel's
# run-queue delay, /proc/<pid>/task/*/schedstat): on a busy machine a learner's code is
# not cut short for the machine's load. It stretches the budget at most this many times.
MAX_STRETCH = 4
TICKS = os.sysconf("SC_CLK_TCK")
LINE_OVERHEAD = 256  # a step line is its result plus the {"end": i, "ok": ...} around it
Check = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Step:
    """One step as the keeper resolved it: its keeper-side check and its budgets."""

    check: Check | None
    timeout_s: float  # wall clock
    cpu_s: float  # the child's CPU time


@dataclass(frozen=True)
class WatchSpec:
    steps: tuple[Step, ...]
    limits: Limits
    pid: int  # the child's
    memory: JobMemory | None  # the job's memory cgroup, when the machine has one
    exit_status: Callable[[], int]  # the child's wait status, once its pidfd says it ended


@dataclass
class ChildEnds:
    """The keeper's ends of a child's channels, and a pidfd of the child."""

    channel: socket.socket
    steps_w: int
    stdout_r: int
    stderr_r: int
    pidfd: int
    steps_open: bool = True  # the child reads its steps until this end is closed

    def close_steps(self) -> None:
        """Close the steps pipe (once): the child then has every step."""
        if self.steps_open:
            self.steps_open = False
            os.close(self.steps_w)

    def close(self) -> None:
        """Close every end; a keeper serves many jobs, so none may outlive its job."""
        self.close_steps()
        self.channel.close()
        for fd in (self.stdout_r, self.stderr_r, self.pidfd):
            os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def stretched_deadline(started: float, timeout_s: float, waited_s: float) -> float:
    """When a step started at ``started`` runs out of its wall budget, its ``waited_s``
    seconds on a run queue not counted (at most ``MAX_STRETCH`` budgets in all)."""
    return started + min(timeout_s + max(0.0, waited_s), MAX_STRETCH * timeout_s)


class Watch:
    """The keeper's loop over one child: feed its steps, follow its lines, keep its clock."""

    def __init__(self, spec: WatchSpec, ends: ChildEnds, payloads: list[dict[str, Any]]) -> None:
        self.spec, self.pid, self.payloads = spec, spec.pid, payloads
        # The step's seal, made when the child asks for it (its task has returned): a line
        # without it is not the child's; None until then.
        self.seal: str | None = None
        self.records: list[dict[str, Any]] = []
        self.step = 0
        self.step_started = time.monotonic()
        self.deadline = self.step_started + spec.steps[0].timeout_s
        self.queued_at_start = self.queued()
        self.cpu_at_start = self.cpu_used()
        self.line = bytearray()
        self.max_line = spec.limits.max_result_bytes + LINE_OVERHEAD
        cap = spec.limits.max_output_bytes
        self.stdout = Capture(ends.stdout_r, cap, "stdout")
        self.stderr = Capture(ends.stderr_r, cap, "stderr")
        self.channel = ends.channel
        self.pidfd = ends.pidfd
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
        self._send_steps(ends, payloads)

    def _send_steps(self, ends: ChildEnds, payloads: list[dict[str, Any]]) -> None:
        try:
            write_all(ends.steps_w, json.dumps({"payloads": payloads}).encode())
        except BrokenPipeError:
            pass  # the child is already gone; its exit tells the story
        finally:
            ends.close_steps()

    def run(self) -> list[dict[str, Any]]:
        try:
            self.follow()
            if self.records and self.records[-1]["status"] == "ok":
                self.settle()
        finally:
            self.kill_child()
        return self.records

    def follow(self) -> None:
        """Until every step has its record: feed, read, and keep each step's clocks."""
        while not self.finished():
            wait = min(self.deadline - time.monotonic(), CPU_POLL_S)
            for key, _events in self.selector.select(max(0.0, wait)):
                self.handle(key)
                if self.finished():
                    break
            if self.finished():
                break
            step = self.spec.steps[self.step]
            if time.monotonic() >= self.deadline and self.out_of_wall_time(step.timeout_s):
                self.end_step(timed_out(step.timeout_s))
            elif self.cpu_used() - self.cpu_at_start > step.cpu_s:
                self.end_step(used_too_much_cpu(step.cpu_s))

    def settle(self) -> None:
        """After the last line nothing more may be on the channel: the child's own code
        leaves the moment its line is out. What already arrived is read, without waiting."""
        chunk = bytes(self.line)  # what came after the line in the same read
        if not chunk and self.channel.fileno() in self.selector.get_map():
            self.channel.setblocking(False)
            try:
                chunk = self.channel.recv(1 << 16)
            except (BlockingIOError, ConnectionError):
                chunk = b""
        if chunk:
            self.replace_last(said("integrity", "the code wrote to the grader's channel"))

    def replace_last(self, verdict: StepOutcome) -> None:
        record = self.records[-1]
        record.update(
            status=verdict.status,
            result=None,
            message=verdict.message,
            words=verdict.words.to_json() if verdict.words else None,
        )

    def out_of_wall_time(self, timeout_s: float) -> bool:
        """Past the deadline: is the budget spent, not counting the time the child waited for a
        CPU? If not, the deadline moves by that time (up to ``MAX_STRETCH`` budgets)."""
        stretched = stretched_deadline(
            self.step_started, timeout_s, self.queued() - self.queued_at_start
        )
        if time.monotonic() >= stretched:
            return True
        self.deadline = stretched
        return False

    def queued(self) -> float:
        """Seconds the child's threads have waited on a run queue so far (0 if unknown)."""
        try:
            tasks = os.listdir(f"/proc/{self.pid}/task")
        except OSError:
            return 0.0
        waited = 0
        for task in tasks:
            try:
                with open(f"/proc/{self.pid}/task/{task}/schedstat", "rb") as f:
                    waited += int(f.read().split()[1])
            except (OSError, IndexError, ValueError):
                continue  # a thread that ended, or a kernel without schedstat
        return waited / 1e9

    def cpu_used(self) -> float:
        """The child's CPU time so far, in seconds (0 once it is gone: the wall clock rules)."""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as f:
                fields = f.read().rpartition(b")")[2].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime, every thread

    def finished(self) -> bool:
        return self.step >= len(self.spec.steps) or len(self.records) > self.step

    def handle(self, key: selectors.SelectorKey) -> None:
        if key.data == "line":
            self.on_channel()
        elif key.data == "exit":
            self.on_exit()
        elif key.data.read() == 0:
            self.selector.unregister(key.fd)
        elif key.data.seen > self.spec.limits.max_flood_bytes:
            self.end_step(flooded(key.data.name, self.spec.limits.max_flood_bytes))

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

    def too_large(self) -> StepOutcome:
        limit = str(self.spec.limits.max_result_bytes)
        return channel_abuse(
            Words("the result is larger than the limit of {limit} bytes", {"limit": limit})
        )

    def on_line(self, line: bytes) -> None:
        if len(line) > self.max_line:
            self.end_step(self.too_large())
            return
        if is_ask(line, self.step):
            self.give_seal()
            return
        if is_running(line, self.step) and self.seal is None:
            # Unsealed, so anyone in the child could have written it: it only ends the step
            # as an error, never as a pass, whoever wrote it.
            self.end_step(left_a_thread())
            return
        try:
            kind, value = decode_line(line, self.step, self.seal)
        except FrameError as exc:
            self.end_step(channel_abuse(exc.words))
            return
        if kind != "begin":  # the step's own check, here in the trusted process
            self.end_step(
                checked(
                    from_end(kind, value),
                    self.spec.steps[self.step].check,
                    self.payloads[self.step],
                )
            )

    def give_seal(self) -> None:
        """Answer the child's one request for this step's seal (a second one is not the
        child's: its main thread asks once, after the step's task has returned)."""
        if self.seal is not None:
            self.end_step(channel_abuse(Words("the code wrote to the grader's channel")))
            return
        self.seal = secrets.token_hex(SEAL_BYTES)
        try:
            self.channel.sendall(self.seal.encode() + b"\n")
        except OSError:
            pass  # the child is gone: its exit tells the story

    def on_exit(self) -> None:
        self.wait_status = self.spec.exit_status()  # the fork server, its parent, says how
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

    def end_step(self, verdict: StepOutcome) -> None:
        for capture in (self.stdout, self.stderr):  # what the step printed before its line
            capture.read_available()
        now = time.monotonic()
        self.records.append(
            {
                "status": verdict.status,
                "result": verdict.result,
                "message": verdict.message,
                "words": verdict.words.to_json() if verdict.words else None,
                "stdout": self.stdout.take(),
                "stderr": self.stderr.take(),
                "duration_s": round(now - self.step_started, 6),
            }
        )
        if verdict.status != "ok":
            return  # finished(): the remaining steps run in a fresh child
        self.step += 1
        self.seal = None
        if self.step < len(self.spec.steps):
            self.step_started, self.deadline = now, now + self.spec.steps[self.step].timeout_s
            self.queued_at_start = self.queued()
            self.cpu_at_start = self.cpu_used()

    def out_of_memory(self) -> str:
        memory = self.spec.memory
        if memory is None or memory.oom_kills() <= self.oom_before:
            return ""
        return f"{memory.limit_mib} MiB"

    def kill_child(self) -> None:
        """Kill the child's group and the child (done, or given up on), without waiting.

        The fork server reaps the child only after this job is done, so its pid (and so its
        group id) cannot be reused before then. What it left is swept by the fork server.
        """
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # it never reached setsid(), or its group is gone
        if self.wait_status is None:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        self.selector.close()
