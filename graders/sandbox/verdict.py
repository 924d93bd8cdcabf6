"""How a step ended, as the keeper saw it, turned into a status and a clear message.

Kept apart from the I/O so every rule can be read (and tested) as a table: what the child
said at the end of the step, how the child died, whether the keeper stopped it at the
step's deadline. These run in the keeper, a process that never runs the task.

Each message of the sandbox's own is also kept as its sentence and values (``Words``), so
the trusted side can say it in the learner's language. What the child itself reported
(the error a task returned) is the child's text: it has no words.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .words import Field, Words

EXIT_CHANNEL_LOST = 86  # the child could not report: its step socket was closed or replaced
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
class StepOutcome:
    """One step's status, its result (only when ``ok``) and why, in words for the learner."""

    status: str  # "ok" | "error" | "timeout" | "integrity"
    result: dict[str, Any] | None
    message: str
    words: Words | None = None  # ``message`` as the sandbox's sentence, when it is one


def said(status: str, sentence: str, **fields: Field) -> StepOutcome:
    """A verdict whose message is one of the sandbox's sentences."""
    words = Words(sentence, fields)
    return StepOutcome(status, None, str(words), words)


def from_end(kind: str, value: Any) -> StepOutcome:
    """What the child reported at the end of a step (already strictly decoded)."""
    if kind == "ok":
        return StepOutcome("ok", value, "")
    if kind == "integrity":
        return StepOutcome("integrity", None, value)
    if kind == "internal":
        return said("error", "the sandbox could not run the job: {reason}", reason=value)
    return StepOutcome("error", None, value)


def timed_out(timeout_s: float) -> StepOutcome:
    return said(
        "timeout",
        "the code did not finish within the time limit of {limit} s",
        limit=f"{timeout_s:g}",
    )


def used_too_much_cpu(cpu_s: float) -> StepOutcome:
    return said(
        "timeout",
        "the code used more than its {limit} s of CPU time and was stopped",
        limit=f"{cpu_s:g}",
    )


def left_a_thread() -> StepOutcome:
    """The child's main thread found a thread of the task's still running when the step's
    seal was to be asked: no result was sealed (not evidence: a pool left open is a mistake)."""
    return said(
        "error",
        "the code left a thread running after it returned; join it first "
        "(for example `with ThreadPoolExecutor() as pool:`)",
    )


def flooded(stream: str, limit: int) -> StepOutcome:
    return said(
        "error",
        "the code wrote more than {limit} MiB to {stream} and was stopped",
        limit=str(limit >> 20),
        stream=stream,
    )


def died(wait_status: int, out_of_memory: str = "") -> StepOutcome:
    """The child ended during a step: killed by a signal, or exited before reporting."""
    if out_of_memory:
        return said("error", "the code exceeded the memory limit ({reason})", reason=out_of_memory)
    if os.WIFSIGNALED(wait_status):
        number = os.WTERMSIG(wait_status)
        if number == signal.SIGSYS:
            # The learner thread's filter kills the process for a write on the step socket
            # (syscalls.channel_filter); nothing else in a child is sent SIGSYS.
            return said("integrity", "the code wrote to the grader's channel")
        hint = (
            _SIGNAL_HINTS.get(signal.Signals(number)) if number in signal.valid_signals() else None
        )
        name = _signal_name(number)
        if hint is None:
            return said("error", "the code was killed by {signal}", signal=name)
        return said(
            "error", "the code was killed by {signal} ({hint})", signal=name, hint=Words(hint)
        )
    code = os.waitstatus_to_exitcode(wait_status)
    if code == EXIT_CHANNEL_LOST:
        return said("integrity", "the channel to the grader was closed or replaced by the code")
    if code == EXIT_SETUP_FAILED:
        return said("error", "the sandbox could not be set up for this job")
    if code != 0:
        return said(
            "error",
            "the code ended the process with exit status {code} (os._exit())",
            code=str(code),
        )
    return said(
        "error",
        "the code ended the process (os._exit() or sys.exit()) before the task returned a result",
    )


def checked(
    verdict: StepOutcome,
    check: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None,
    payload: dict[str, Any],
) -> StepOutcome:
    """``verdict`` after the job's own ``check`` (run by the trusted side) of an ``ok`` result."""
    if verdict.status != "ok" or check is None:
        return verdict
    try:
        return StepOutcome("ok", check(payload, verdict.result or {}), "")
    except (ValueError, TypeError, KeyError) as exc:
        return channel_abuse(
            Words(
                "what came back is not what the grader's code sends: {reason}",
                {"reason": str(exc)[:300]},
            )
        )


def channel_abuse(reason: Words) -> StepOutcome:
    """The child wrote something on the step channel that the sandbox does not write."""
    return StepOutcome("integrity", None, str(reason), reason)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
