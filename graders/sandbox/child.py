"""The forked child: confine itself, run ``task(payload)``, write one result frame, ``_exit``.

Everything here runs after ``fork()`` in the fork server, so it must never return into the
server's loop: every path ends in ``os._exit`` (which also skips interpreter teardown,
about a second with torch loaded). The order of the set-up matters and is spelled out in
``_confine``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from dataclasses import dataclass
from typing import Any, Callable, NoReturn

from .contract import Limits
from .limits import apply_rlimits
from .protocol import encode_frame
from .reaper import PR_SET_NO_NEW_PRIVS, prctl
from .verdict import EXIT_CHANNEL_LOST, EXIT_SETUP_FAILED

MAX_MESSAGE_CHARS = 2000


@dataclass(frozen=True)
class ChildFds:
    """The pipe ends a child inherits from the parent (through the fork server)."""

    payload: int  # read: the job's payload, JSON, until EOF
    stdout: int
    stderr: int
    result: int  # write: the one result frame


@dataclass(frozen=True)
class ChildSpec:
    """Everything the child needs, prepared by the fork server before ``fork()``."""

    function: Callable[[dict[str, Any]], Any]
    limits: Limits
    fds: ChildFds
    scratch: str
    env: dict[str, str]
    uid: int | None  # run as this uid/gid (the server is root), else stay
    ruleset_fd: int | None  # Landlock ruleset to enforce
    syscall_filter: Any  # pyseccomp filter to load, or None


def run_child(spec: ChildSpec) -> NoReturn:
    """Entry point right after ``fork()``; never returns."""
    code = EXIT_SETUP_FAILED
    try:
        _single_thread()
        _confine(spec)
        payload = _read_payload(spec.fds.payload)
        code = _run_task(spec.function, payload, spec.fds.result, spec.limits.max_result_bytes)
    except BaseException as exc:  # noqa: BLE001 - set-up failed: report it, whatever it was
        code = _report_setup_failure(spec.fds.result, exc)
    finally:
        os._exit(code)


def _single_thread() -> None:
    # First of all: a multi-threaded OpenMP pool inherited across fork() hangs forever in
    # the first large op (a 512x512 matmul), small ops do not, so the hang is intermittent.
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _confine(spec: ChildSpec) -> None:
    os.setsid()  # own session and group: the parent's watchdog kills the whole group
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
    os.chdir(spec.scratch)
    prctl(PR_SET_NO_NEW_PRIVS, 1)  # required by Landlock and seccomp for unprivileged processes
    if spec.ruleset_fd is not None:
        from .landlock import restrict_self

        restrict_self(spec.ruleset_fd)
        os.close(spec.ruleset_fd)
    if spec.syscall_filter is not None:
        spec.syscall_filter.load()


def _arrange_fds(fds: ChildFds, ruleset_fd: int | None) -> None:
    """stdin from /dev/null, stdout/stderr to the capture pipes, every other fd closed."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(fds.stdout, 1)
    os.dup2(fds.stderr, 2)
    keep = sorted({0, 1, 2, fds.payload, fds.result} | ({ruleset_fd} if ruleset_fd is not None else set()))
    for low, high in zip(keep, keep[1:] + [1 << 20]):
        os.closerange(low + 1, high)  # the server's control socket must not leak into the child
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(line_buffering=True)  # keep what was printed before a crash


def _read_payload(fd: int) -> dict[str, Any]:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    return json.loads(b"".join(chunks))


def _run_task(function: Callable[[dict[str, Any]], Any], payload: dict[str, Any], result_fd: int, max_bytes: int) -> int:
    # Bound before the task runs: learner code may monkeypatch os, json or this module.
    write, fstat, close, encode = os.write, os.fstat, os.close, encode_frame
    channel = _identity(fstat(result_fd))
    frame = task_frame(function, payload, encode, max_bytes)
    _flush_stdio()
    try:
        if _identity(fstat(result_fd)) != channel:
            return EXIT_CHANNEL_LOST
        view = memoryview(frame)
        while view:
            view = view[write(result_fd, view):]
        # Closing every output now lets the parent see end-of-file, and so the end of the
        # job, before the kernel spends ~10 ms tearing down this large address space.
        for fd in (result_fd, 1, 2):
            close(fd)
    except OSError:
        return EXIT_CHANNEL_LOST
    return 0


def task_frame(function: Callable[[dict[str, Any]], Any], payload: dict[str, Any],
               encode: Callable[[str, Any], bytes], max_bytes: int) -> bytes:
    """Call the task and turn whatever happens into one result frame (never raises)."""
    try:
        value = function(payload)
    except SystemExit as exc:
        return encode("error", f"the code called sys.exit({_safe_repr(exc.code)})")
    except MemoryError:
        return encode("error", "the code exceeded the memory limit (MemoryError)")
    except BaseException as exc:  # noqa: BLE001 - whatever the task raised is the outcome
        text = describe_exception(exc)
        if "can't allocate memory" in text:  # torch's allocator hitting RLIMIT_AS
            text = f"the code exceeded the memory limit ({text})"[:MAX_MESSAGE_CHARS]
        return encode("error", text)
    if not isinstance(value, dict):
        return encode("integrity", f"the task returned a {type(value).__name__}, not a dict")
    try:
        frame = encode("ok", value)
    except RecursionError:
        return encode("integrity", "the result is nested too deeply")
    except (ValueError, TypeError) as exc:
        return encode("integrity", _encoding_problem(exc))
    if len(frame) > max_bytes:
        return encode("integrity", f"the result is larger than the limit of {max_bytes} bytes")
    return frame


def describe_exception(exc: BaseException) -> str:
    """``"ValueError: message"``, capped; safe against exceptions whose ``str`` misbehaves."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a learner-defined __str__ may raise anything
        text = "<message could not be printed>"
    name = type(exc).__name__
    return (f"{name}: {text}" if text else name)[:MAX_MESSAGE_CHARS]


def _encoding_problem(exc: Exception) -> str:
    if "Out of range float" in str(exc):
        return "the result contains NaN or Infinity, which JSON cannot carry"
    return f"the result is not plain JSON: {exc}"[:MAX_MESSAGE_CHARS]


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)[:200]
    except Exception:  # noqa: BLE001
        return "..."


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - learner code may have replaced or closed them
            pass


def _report_setup_failure(result_fd: int, exc: BaseException) -> int:
    try:
        os.write(result_fd, encode_frame("internal", describe_exception(exc)))
    except (OSError, ValueError):
        return EXIT_SETUP_FAILED
    return 0
