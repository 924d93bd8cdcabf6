"""The runner's side of one job: feed the payload to the keeper, read its frame, keep a clock.

The runner owns the two pipe ends that matter, the payload it writes and the frame it
reads with a cap, and it alone decides when the keeper itself has taken too long (the
keeper keeps each step's clock; this one is the backstop): the clock starts when the
fork server reports that the job started, so the clean-up of the previous job is not
on this job's time.
"""

from __future__ import annotations

import os
import selectors
import socket
import time
from dataclasses import dataclass

from .capture import Capture
from .contract import SandboxError
from .protocol import recv_message, send_message

KILL_GRACE_S = 5.0  # after a kill request, how long the server may take to report the exit
START_GRACE_S = 60.0  # how long the server may take to start the job (a loaded machine)
DRAIN_S = 1.0  # after the job ended, how long to wait for its frame to reach end-of-file


@dataclass(frozen=True)
class Ending:
    """How a job ended, as the runner saw it."""

    finished: bool  # the keeper wrote a whole frame (or the job ended: the frame tells)
    lost: str = ""  # the fork server or the keeper failed: what happened


class JobPipes:
    """The two pipes of a job: payload to the keeper, frame from it."""

    def __init__(self, payload: bytes, max_frame: int) -> None:
        payload_r, self.payload_w = os.pipe2(os.O_CLOEXEC)
        res_r, res_w = os.pipe2(os.O_CLOEXEC)
        self.keeper_ends: tuple[int, ...] = (payload_r, res_w)  # the order the keeper expects
        self.payload = memoryview(payload)
        os.set_blocking(self.payload_w, False)
        self.frame = Capture(res_r, max_frame)
        self.open_fds = {self.payload_w, res_r, *self.keeper_ends}

    def close_keeper_ends(self) -> None:
        for fd in self.keeper_ends:
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
        self.deadline = time.monotonic() + START_GRACE_S + timeout_s  # until the keeper starts
        self.kill_sent_at: float | None = None
        self.exited_at: float | None = None
        self.ending: Ending | None = None
        self.pid: int | None = None
        self.selector = selectors.DefaultSelector()
        self.selector.register(ctrl, selectors.EVENT_READ)
        self.selector.register(pipes.frame.fd, selectors.EVENT_READ, "frame")
        self.selector.register(pipes.payload_w, selectors.EVENT_WRITE, "payload")

    def follow(self) -> Ending:
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
        frame_done = self.pipes.frame.fd not in self.pipes.open_fds
        return frame_done or time.monotonic() >= self.exited_at + DRAIN_S

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
            self.ending = Ending(False, lost="the sandbox did not stop the code in time")

    def handle(self, key: selectors.SelectorKey) -> None:
        if key.data is None:
            self.on_control()
        elif key.data == "payload":
            self.on_payload_writable()
        else:
            self.on_frame()

    def on_control(self) -> None:
        message, fds = recv_message(self.ctrl)
        for fd in fds:
            os.close(fd)
        if message is None:
            self.ending = Ending(False, lost="the sandbox stopped unexpectedly")
        elif message.get("job") != self.job:
            return  # the late report of an earlier job
        elif message["event"] == "started":
            self.pid = message["pid"]
            self.deadline = time.monotonic() + self.timeout_s  # the job's clock starts now
        elif message["event"] == "exited":
            self.exited_at = time.monotonic()
            self.ending = Ending(True)
        elif message["event"] == "refused":
            raise SandboxError(f"cannot run the task: {message['message']}")

    def on_payload_writable(self) -> None:
        pipes = self.pipes
        try:
            written = os.write(pipes.payload_w, pipes.payload[: 1 << 16])
        except BlockingIOError:
            return
        except BrokenPipeError:
            written = len(pipes.payload)  # the keeper is gone; the frame tells the story
        pipes.payload = pipes.payload[written:]
        if not pipes.payload:
            self.selector.unregister(pipes.payload_w)
            pipes.close(pipes.payload_w)

    def on_frame(self) -> None:
        frame = self.pipes.frame
        if frame.read() > 0:
            return
        self.selector.unregister(frame.fd)
        self.pipes.close(frame.fd)
        if self.ending is None and frame.data.endswith(b"\n") and not frame.overflow:
            # The keeper wrote its whole frame and closed the pipe: the job is done. Do not
            # wait for its exit; the server kills what remains and sweeps before the next job.
            send_message(self.ctrl, {"op": "kill", "job": self.job})
            self.ending = Ending(True)
