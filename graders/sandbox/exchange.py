"""The parent's side of one job: feed the payload, capture output and result, keep the clock.

The parent owns every pipe end that matters: it writes the payload, reads stdout, stderr
and the result channel with caps (draining, not blocking, past the cap), and it alone
decides when time is up; the fork server only kills on its request.
"""

from __future__ import annotations

import os
import selectors
import socket
import time
from dataclasses import dataclass, field

from .contract import SandboxError
from .protocol import recv_message, send_message
from .verdict import Ending

KILL_GRACE_S = 5.0  # after a kill request, how long the server may take to report the exit
DRAIN_S = 1.0  # after the exit, how long to wait for the pipes to reach end-of-file
READ_CHUNK = 1 << 16
# Past its cap, an output is only drained. Pausing after each read lets a flood pile up in
# the pipe (the child blocks on a full pipe) instead of costing a core here and a core in
# the child, for as long as the job runs: ~64 KiB per pause, so 10 MB drain in ~0.2 s.
FLOOD_PAUSE_S = 0.001


@dataclass
class Capture:
    """One capped input stream: keeps the first ``limit`` bytes, counts the rest."""

    fd: int
    limit: int
    data: bytearray = field(default_factory=bytearray)
    overflow: bool = False

    def feed(self, chunk: bytes) -> None:
        room = self.limit - len(self.data)
        if len(chunk) > room:
            self.overflow = True
        self.data += chunk[: max(room, 0)]

    def text(self) -> str:
        return self.data.decode(errors="replace")


class JobPipes:
    """The four pipes of a job: payload in, stdout, stderr and result out."""

    def __init__(self, payload: bytes, max_output: int, max_result: int) -> None:
        payload_r, self.payload_w = os.pipe2(os.O_CLOEXEC)
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        res_r, res_w = os.pipe2(os.O_CLOEXEC)
        self.child_ends: tuple[int, ...] = (payload_r, out_w, err_w, res_w)  # order of ChildFds
        self.payload = memoryview(payload)
        os.set_blocking(self.payload_w, False)
        self.stdout = Capture(out_r, max_output)
        self.stderr = Capture(err_r, max_output)
        self.result = Capture(res_r, max_result)
        self.open_fds = {self.payload_w, out_r, err_r, res_r, *self.child_ends}

    def close_child_ends(self) -> None:
        for fd in self.child_ends:
            self.close(fd)

    def close(self, fd: int) -> None:
        if fd in self.open_fds:
            self.open_fds.discard(fd)
            os.close(fd)

    def close_all(self) -> None:
        for fd in list(self.open_fds):
            self.close(fd)


class Follower:
    """Runs the select loop of one job until its end is known."""

    def __init__(self, ctrl: socket.socket, job: int, pipes: JobPipes, timeout_s: float) -> None:
        self.ctrl, self.job, self.pipes = ctrl, job, pipes
        self.timeout_s = timeout_s
        self.deadline = float("inf")  # set when following starts
        self.kill_sent_at: float | None = None
        self.exited_at: float | None = None
        self.ending: Ending | None = None
        self.pid: int | None = None
        self.selector = selectors.DefaultSelector()
        self.selector.register(ctrl, selectors.EVENT_READ)
        for capture in (pipes.stdout, pipes.stderr, pipes.result):
            self.selector.register(capture.fd, selectors.EVENT_READ, capture)
        self.selector.register(pipes.payload_w, selectors.EVENT_WRITE, "payload")

    def follow(self) -> Ending:
        self.deadline = time.monotonic() + self.timeout_s
        try:
            while not self.finished():
                for key, _events in self.selector.select(self.wait_time()):
                    self.handle(key)
                self.check_clock()
        finally:
            self.selector.close()
        assert self.ending is not None
        return self.ending

    def finished(self) -> bool:
        if self.ending is None:
            return False
        if self.ending.lost or self.exited_at is None:
            return True
        only_control_left = len(self.selector.get_map()) == 1
        return only_control_left or time.monotonic() >= self.exited_at + DRAIN_S

    def wait_time(self) -> float:
        now = time.monotonic()
        if self.ending is not None:
            return max(0.0, (self.exited_at or now) + DRAIN_S - now)
        if self.kill_sent_at is None:
            return max(0.0, self.deadline - now)
        return max(0.0, self.kill_sent_at + KILL_GRACE_S - now)

    def check_clock(self) -> None:
        if self.ending is not None:
            return
        now = time.monotonic()
        if self.kill_sent_at is None and now >= self.deadline:
            send_message(self.ctrl, {"op": "kill", "job": self.job})
            self.kill_sent_at = now
        elif self.kill_sent_at is not None and now >= self.kill_sent_at + KILL_GRACE_S:
            self.ending = Ending(None, timed_out=True, lost="the sandbox did not stop the code in time")

    def handle(self, key: selectors.SelectorKey) -> None:
        if key.data is None:
            self.on_control()
        elif key.data == "payload":
            self.on_payload_writable()
        else:
            self.on_output(key.data)

    def on_control(self) -> None:
        message, fds = recv_message(self.ctrl)
        for fd in fds:
            os.close(fd)
        if message is None:
            self.ending = Ending(None, lost="the sandbox stopped unexpectedly")
        elif message.get("job") != self.job:
            return  # the late report of an earlier job
        elif message["event"] == "started":
            self.pid = message["pid"]
        elif message["event"] == "exited":
            self.exited_at = time.monotonic()
            self.ending = Ending(message["status"], timed_out=message["killed"])
        elif message["event"] == "refused":
            raise SandboxError(f"cannot run the task: {message['message']}")

    def on_payload_writable(self) -> None:
        pipes = self.pipes
        try:
            written = os.write(pipes.payload_w, pipes.payload[:READ_CHUNK])
        except BlockingIOError:
            return
        except BrokenPipeError:
            written = len(pipes.payload)  # the child is gone; its exit tells the story
        pipes.payload = pipes.payload[written:]
        if not pipes.payload:
            self.selector.unregister(pipes.payload_w)
            pipes.close(pipes.payload_w)

    def on_output(self, capture: Capture) -> None:
        chunk = os.read(capture.fd, READ_CHUNK)
        if chunk:
            capture.feed(chunk)
            if capture.overflow:
                time.sleep(FLOOD_PAUSE_S)
            return
        self.selector.unregister(capture.fd)
        self.pipes.close(capture.fd)
        if self.ending is None and self.outputs_done():
            # The child wrote one complete result and closed every output: it is done, and
            # only the teardown of its address space is left. Do not wait for that; the
            # server kills whatever remains and sweeps before it takes the next job.
            send_message(self.ctrl, {"op": "kill", "job": self.job})
            self.ending = Ending(0)

    def outputs_done(self) -> bool:
        pipes = self.pipes
        if {pipes.stdout.fd, pipes.stderr.fd, pipes.result.fd} & pipes.open_fds:
            return False
        result = pipes.result
        return not result.overflow and result.data.endswith(b"\n") and result.data.count(b"\n") == 1
