"""The confined child: confine itself, run each step's task, report on the step socket, ``_exit``.

Forked by the fork server ahead of its job (``spare.py``) and watched by the keeper
(``keeper.py``), which holds everything that matters: the job's token, the result pipe to
the runner, the clock. The child gets only the step payloads and the
job's seal (through a pipe it reads once), its stdout/stderr pipes and the step socket. It never
returns into the fork server's loop: every path ends in ``os._exit``, which also skips
interpreter teardown (about a second with torch loaded). The order of the set-up matters
and is spelled out in ``_confine``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from .contract import Limits
from .limits import apply_rlimits
from .protocol import encode_line
from .raised import read_raised, type_name
from .reaper import PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG, prctl
from .verdict import EXIT_CHANNEL_LOST, EXIT_SETUP_FAILED

MAX_MESSAGE_CHARS = 2000
Task = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class ChildFds:
    """The descriptors a child keeps (every other one is closed before the task runs)."""

    steps: int  # read: the step payloads, one JSON list, until EOF
    stdout: int
    stderr: int
    channel: int  # write: the step lines, to the keeper


@dataclass(frozen=True)
class ChildSpec:
    """Everything the child needs, from the fork server's configuration and the job."""

    functions: tuple[Task, ...]  # one per step
    limits: Limits
    fds: ChildFds
    scratch: str
    env: dict[str, str]
    uid: int | None  # run as this uid/gid (the server is root), else stay
    ruleset_fd: int | None  # Landlock ruleset to enforce
    syscall_filter: Any  # pyseccomp filter to load, or None


def run_child(spec: ChildSpec) -> NoReturn:
    """Entry point in the spare, once its job came; never returns."""
    code = EXIT_SETUP_FAILED
    send = _sender(spec.fds.channel)
    seal = ""
    try:
        _single_thread()
        # Read before confining (it is data): the seal comes with the payloads.
        seal, payloads = _read_steps(spec.fds.steps)
        _confine(spec)
        _fresh_library_state()
        # The keeper began the step when it sent the payload: the child says only how it ended,
        # in one line sealed with the job's seal, which no name learner code can use reaches.
        for step, (function, payload) in enumerate(zip(spec.functions, payloads, strict=True)):
            encode = _end_encoder(step, seal)
            line = task_line(function, payload, encode, spec.limits.max_result_bytes)
            _flush_stdio()
            send(line)
        code = 0
    except ChannelLost:
        code = EXIT_CHANNEL_LOST
    except BaseException as exc:  # noqa: BLE001 - set-up failed: report it, whatever it was
        code = _report_setup_failure(send, exc, seal)
    finally:
        os._exit(code)


class ChannelLost(Exception):
    """The step socket was closed or replaced by the task: nothing can reach the keeper."""


def _sender(fd: int, write: Any = os.write, fstat: Any = os.fstat) -> Callable[[bytes], None]:
    # Bound now: a task may replace ``os.write`` later, or put another file at ``fd``.
    identity = _identity(fstat(fd))

    def send(data: bytes) -> None:
        try:
            if _identity(fstat(fd)) != identity:
                raise ChannelLost
            view = memoryview(data)
            while view:
                view = view[write(fd, view) :]
        except OSError:
            raise ChannelLost from None

    return send


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _end_encoder(step: int, seal: str) -> Callable[[str, Any], bytes]:
    def encode(kind: str, value: Any) -> bytes:
        return encode_line({"end": step, "seal": seal, kind: value})

    return encode


def _single_thread() -> None:
    # First of all: a multi-threaded OpenMP pool inherited across fork() hangs forever in
    # the first large op (a 512x512 matmul), small ops do not, so the hang is intermittent.
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _confine(spec: ChildSpec) -> None:
    os.setsid()  # own session and group: the keeper kills the whole group
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _arrange_fds(spec.fds, spec.ruleset_fd)
    os.environ.clear()
    os.environ.update(spec.env)
    # Limits before the uid drop: RLIMIT_NPROC is checked against the new uid at fork time,
    # and once unprivileged the child can no longer raise any of them.
    apply_rlimits(spec.limits, limit_procs=spec.uid is not None)
    if spec.uid is not None:
        os.setgroups([])
        os.setresgid(spec.uid, spec.uid, spec.uid)
        os.setresuid(spec.uid, spec.uid, spec.uid)
    # After the uid change, which clears it: the fork server's end is this child's end.
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.chdir(spec.scratch)
    prctl(PR_SET_NO_NEW_PRIVS, 1)  # required by Landlock and seccomp for unprivileged processes
    if spec.ruleset_fd is not None:
        from .landlock import restrict_self

        restrict_self(spec.ruleset_fd)
        os.close(spec.ruleset_fd)
    if spec.syscall_filter is not None:
        spec.syscall_filter.load()


def close_all_but(keep: set[int]) -> None:
    """Close every descriptor of this (just forked) process but ``keep``: what a process
    forked from the fork server holds is what it was meant to, never what the server
    happened to hold at that moment (a job's pipes in the middle of a hand-over)."""
    kept = sorted(fd for fd in keep if fd >= 0)
    for low, high in zip([-1, *kept], [*kept, 1 << 20], strict=True):
        if low + 1 < high:  # an empty range is not a no-op: closerange(0, 0) closes everything
            os.closerange(low + 1, high)


def _arrange_fds(fds: ChildFds, ruleset_fd: int | None) -> None:
    """stdin from /dev/null, stdout/stderr to their pipes, every fd but the kept ones closed."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(fds.stdout, 1)
    os.dup2(fds.stderr, 2)
    # The server's and the keeper's descriptors, and any job's, stay out.
    close_all_but({0, 1, 2, fds.steps, fds.channel, *([] if ruleset_fd is None else [ruleset_fd])})
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(line_buffering=True)  # keep what was printed before a crash


def _read_steps(fd: int) -> tuple[str, list[dict[str, Any]]]:
    """The job's seal and its step payloads, as the keeper wrote them."""
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    steps = json.loads(b"".join(chunks))
    if not isinstance(steps, dict) or not isinstance(steps.get("payloads"), list):
        raise ValueError("the step payloads are not a list")
    return str(steps["seal"]), steps["payloads"]


def _fresh_library_state() -> None:
    # The warm server may have asked tempfile for its directory before TMPDIR pointed at
    # this job's scratch; forget that answer so tempfile.* follows the job's TMPDIR.
    tempfile: Any = sys.modules.get("tempfile")
    if tempfile is not None:
        tempfile.tempdir = None


def task_line(
    function: Task, payload: dict[str, Any], encode: Callable[[str, Any], bytes], max_bytes: int
) -> bytes:
    """Call the task and turn whatever happens into one end-of-step line (never raises)."""
    try:
        value = function(payload)
    except BaseException as exc:  # noqa: BLE001 - whatever the task raised is the outcome
        return encode("error", _failure(exc))
    if type(value) is not dict:
        return encode("integrity", f"the task returned a {type_name(value)}, not a dict")
    try:
        line = encode("ok", value)
    except RecursionError:
        return encode("integrity", "the result is nested too deeply")
    except (ValueError, TypeError) as exc:
        return encode("integrity", _encoding_problem(exc))
    if len(line) > max_bytes:
        return encode("integrity", f"the result is larger than the limit of {max_bytes} bytes")
    return line


def describe_exception(exc: BaseException) -> str:
    """``"ValueError: message"``, capped; read without running any code of ``exc``'s
    (``raised.py``), so a task's own exception class cannot act here."""
    return read_raised(exc).described(MAX_MESSAGE_CHARS)


def _encoding_problem(exc: Exception) -> str:
    if "Out of range float" in str(exc):
        return "the result contains NaN or Infinity, which JSON cannot carry"
    return f"the result is not plain JSON: {exc}"[:MAX_MESSAGE_CHARS]


_EXIT_CODE: Any = SystemExit.__dict__["code"].__get__


def _failure(exc: BaseException) -> str:
    """What a task's exception says, read without running any of its code."""
    cls = type(exc)
    if issubclass(cls, SystemExit):
        code = _EXIT_CODE(exc)
        kind = type(code)
        shown = repr(code)[:200] if kind is int or kind is str or code is None else "..."
        return f"the code called sys.exit({shown})"
    if issubclass(cls, MemoryError):
        return "the code exceeded the memory limit (MemoryError)"
    text = describe_exception(exc)
    if "can't allocate memory" in text:  # torch's allocator hitting RLIMIT_AS
        text = f"the code exceeded the memory limit ({text})"[:MAX_MESSAGE_CHARS]
    return text


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()  # type: ignore[union-attr]  # None when closed: caught below
        except Exception:  # noqa: BLE001 - the task may have replaced or closed them
            pass


def _report_setup_failure(send: Callable[[bytes], None], exc: BaseException, seal: str) -> int:
    try:
        send(_end_encoder(0, seal)("internal", describe_exception(exc)))
    except (ChannelLost, ValueError):
        return EXIT_SETUP_FAILED
    return 0
