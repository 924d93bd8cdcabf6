"""Turn what the parent observed about a finished child into a status and a clear message.

Kept apart from the I/O so every rule can be read (and tested) as a table: how the child
ended (exit code, signal, killed at the deadline) and what the result channel held.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from typing import Any

from .protocol import FrameError, decode_frame

EXIT_CHANNEL_LOST = 86  # the child could not write its result: the channel was closed or replaced
EXIT_SETUP_FAILED = 87  # confining the child failed before the task ran

_SIGNAL_HINTS = {
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGBUS: "a bus error",
    signal.SIGFPE: "an arithmetic fault",
    signal.SIGILL: "an illegal instruction",
    signal.SIGABRT: "an abort, often native code running out of memory",
    signal.SIGKILL: "possibly for using too much memory",
    signal.SIGXCPU: "it exceeded the CPU time limit",
    signal.SIGXFSZ: "it exceeded the file size limit",
}


@dataclass(frozen=True)
class Ending:
    """How a child ended, as the parent saw it."""

    wait_status: int | None  # None when the fork server never reported an exit
    timed_out: bool = False  # the parent killed it at the deadline
    lost: str = ""  # the fork server itself failed: what happened


@dataclass(frozen=True)
class Verdict:
    status: str
    result: dict[str, Any] | None
    message: str


def judge(ending: Ending, frame: bytes, frame_overflow: bool, timeout_s: float, max_result_bytes: int) -> Verdict:
    """The status of a job from how its child ended and what it wrote as its result."""
    if ending.timed_out:
        return Verdict("timeout", None, f"the code did not finish within the time limit of {timeout_s:g} s")
    if ending.lost or ending.wait_status is None:
        return Verdict("error", None, ending.lost or "the sandbox lost track of the code")
    died = _death_message(ending.wait_status)
    if died is not None:
        return died
    if frame_overflow:
        return Verdict("integrity", None, f"the result is larger than the limit of {max_result_bytes} bytes")
    if not frame:
        return Verdict("error", None, "the code ended the process (os._exit() or sys.exit()) before the task returned a result")
    return _from_frame(frame)


def _death_message(wait_status: int) -> Verdict | None:
    if os.WIFSIGNALED(wait_status):
        number = os.WTERMSIG(wait_status)
        name = _signal_name(number)
        hint = _SIGNAL_HINTS.get(number)
        return Verdict("error", None, f"the code was killed by {name}" + (f" ({hint})" if hint else ""))
    code = os.waitstatus_to_exitcode(wait_status)
    if code == EXIT_CHANNEL_LOST:
        return Verdict("integrity", None, "the result channel was closed or replaced by the code")
    if code == EXIT_SETUP_FAILED:
        return Verdict("error", None, "the sandbox could not be set up for this job")
    if code != 0:
        return Verdict("error", None, f"the code ended the process with exit status {code} (os._exit())")
    return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _from_frame(frame: bytes) -> Verdict:
    try:
        kind, value = decode_frame(frame)
    except FrameError as exc:
        return Verdict("integrity", None, str(exc))
    if kind == "ok":
        return Verdict("ok", value, "")
    if kind == "integrity":
        return Verdict("integrity", None, value)
    if kind == "internal":
        return Verdict("error", None, f"the sandbox could not run the job: {value}")
    return Verdict("error", None, value)
