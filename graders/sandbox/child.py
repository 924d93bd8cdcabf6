"""The confined child: confine itself, run each step's task, report on the step socket, ``_exit``.

Forked by the fork server ahead of its job (``spare.py``) and watched by the keeper
(``keeper.py``), which holds everything that matters: the job's token, the result pipe to
the runner, the clock. The child gets only the step payloads and the
step's seal once its task has returned, its stdout/stderr pipes and the step socket. It never
returns into the fork server's loop: every path ends in ``os._exit``, which also skips
interpreter teardown (about a second with torch loaded). The order of the set-up matters
and is spelled out in ``_confine``.

Two threads: each step's task (the course's code, and the learner's code it calls) runs in
a learner thread, under a seccomp filter of its own that keeps it and every thread it
starts off the step socket (``syscalls.channel_filter``): the kernel, not a name the code
cannot spell, keeps learner code from writing the child's line. The main thread starts it,
waits until it has ended, asks for the step's seal only if no thread the task started is
still running (else it tells the keeper so, unsealed, and exits: ``Channel.seal``), and
writes the line from what the task returned, checked with ``type()``; it runs no
learner code: Python runs signal handlers only in the main thread and lets only the main
thread install one, the collector is off while it works (so no learner finalizer runs
there), and it keeps every learner object it was handed alive until ``_exit``.
"""

from __future__ import annotations

import _thread
import gc
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from .contract import Limits
from .limits import apply_rlimits
from .protocol import SEAL_BYTES, encode_ask, encode_line, encode_running
from .raised import read_raised, type_name
from .reaper import PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG, prctl
from .syscalls import CHANNEL_FD
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
    channel_filter: Any = None  # pyseccomp filter the learner thread loads, or None


def run_child(spec: ChildSpec) -> NoReturn:
    """Entry point in the spare, once its job came; never returns."""
    code = EXIT_SETUP_FAILED
    channel = Channel(spec.fds.channel)
    step = 0
    try:
        _single_thread()
        payloads = _read_steps(spec.fds.steps)  # before confining: it is data
        _confine(spec)
        _fresh_library_state()
        call = in_learner_thread(spec.channel_filter)
        # The keeper began the step when it sent the payload: the child says only how it ended,
        # in one line sealed with the step's seal, which it asks for once the task has
        # returned (``_end_encoder``), written by this thread alone.
        for step, (function, payload) in enumerate(zip(spec.functions, payloads, strict=True)):
            encode = _end_encoder(step, channel)
            channel.send(task_line(function, payload, encode, spec.limits.max_result_bytes, call))
            channel.spend()  # before the next step's task runs
        code = 0
    except ChannelLost:
        code = EXIT_CHANNEL_LOST
    except ThreadsLeft:
        code = 0  # the keeper was told; the threads end with this process
    except BaseException as exc:  # noqa: BLE001 - set-up failed: report it, whatever it was
        code = _report_setup_failure(channel, step, exc)
    finally:
        os._exit(code)


class ChannelLost(Exception):
    """The step socket was closed or replaced by the task: nothing can reach the keeper."""


class ThreadsLeft(Exception):
    """A thread the task started was still running when the seal was to be asked: no seal
    is asked, the keeper is told the step ended so, and the child exits."""


class Channel:
    """The step socket, wherever it is: at ``fd`` until ``_confine`` moves it to
    ``CHANNEL_FD`` (a set-up failure on either side of the move is still reported). Used by
    the main thread only; learner threads cannot reach the socket (``channel_filter``).

    Made before any task runs, it counts the threads running then, as Python counts them
    and as the kernel lists them (``_running_threads``; after ``fork`` Python's count keeps
    the server's threads that did not come along, so counts are compared, never assumed).
    ``seal`` is the one place a seal enters this process, and it asks for none while any
    more run: no thread the task started can be running while a seal exists."""

    def __init__(
        self,
        fd: int,
        read: Any = os.read,
        write: Any = os.write,
        view: Any = memoryview,
        size: Any = len,
        threads: Callable[[], tuple[int, int]] | None = None,
    ) -> None:
        # Bound now, as the defaults were when this module was imported: a task may replace
        # ``os.read``/``os.write`` or a builtin later, or put another file at a number.
        self._fd, self._read, self._write, self._fstat = fd, read, write, os.fstat
        self._view, self._size = view, size
        self._identity = _identity(os.fstat(fd))
        self._sealed: tuple[int, str] | None = None  # the current step's seal, once asked
        self._threads = threads or _running_threads
        self._threads_before = self._threads()

    def send(self, data: bytes) -> None:
        place = self._place()
        try:
            view = self._view(data)
            while view:
                view = view[self._write(place, view) :]
        except OSError:
            raise ChannelLost from None

    def seal(self, step: int) -> str:
        """``step``'s seal, asked of the keeper the first time: only once the step's task
        has returned, so that no seal exists in this process while learner code runs."""
        if self._sealed is None or self._sealed[0] != step:
            if not self._threads_back():
                self.send(encode_running(step))
                raise ThreadsLeft
            self.send(encode_ask(step))
            self._sealed = (step, self._read_seal())
        return self._sealed[1]

    def _threads_back(self, sleep: Any = time.sleep, clock: Any = time.monotonic) -> bool:
        """Whether the threads running are those there before the task ran. A thread that
        has ended may still be leaving the kernel for a moment (its Python state is gone
        first), so the count is read again for up to ``THREAD_EXIT_S``; one that keeps
        running Python code after its count was given back (a thread-local value's
        finalizer) is still a task of this process, and is seen by the kernel's count."""
        deadline = clock() + THREAD_EXIT_S
        while True:
            if self._threads() == self._threads_before:
                return True
            if clock() > deadline:
                return False
            sleep(0.001)

    def spend(self) -> None:
        """Drop the seal of the step whose line was sent (the keeper takes no other line
        for that step): none is left in this process when the next step's task runs."""
        self._sealed = None

    def _read_seal(self) -> str:
        place, answer, most = self._place(), b"", 2 * SEAL_BYTES + 1
        try:
            while not answer.endswith(b"\n") and self._size(answer) < most:
                chunk = self._read(place, most - self._size(answer))
                if not chunk:
                    raise ChannelLost
                answer += chunk
        except OSError:
            raise ChannelLost from None
        return answer.rstrip(b"\n").decode("ascii", "replace")

    def _place(self) -> int:
        for place in (self._fd, CHANNEL_FD):
            try:
                if _identity(self._fstat(place)) == self._identity:
                    return place
            except OSError:
                continue
        raise ChannelLost


THREAD_EXIT_S = 0.5  # the longest an ended thread takes to leave the kernel's list


def _running_threads(
    count: Any = _thread._count, listdir: Any = os.listdir, len: Any = len
) -> tuple[int, int]:
    """Python's count of the threads it started, and the kernel's list of this process's
    threads (-1 where /proc cannot be read): both must be back where they were before the
    task for the seal to be asked."""
    try:
        tasks = len(listdir("/proc/self/task"))
    except OSError:
        tasks = -1
    return count(), tasks


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _end_encoder(step: int, channel: Channel) -> Callable[[str, Any], bytes]:
    # Called only after the step's task has returned (``task_line``): the seal is asked then.
    def encode(kind: str, value: Any) -> bytes:
        return encode_line({"end": step, "seal": channel.seal(step), kind: value})

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
    ruleset_fd = _arrange_fds(spec.fds, spec.ruleset_fd)
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
    if ruleset_fd is not None:
        from .landlock import restrict_self

        restrict_self(ruleset_fd)
        os.close(ruleset_fd)
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


def _arrange_fds(fds: ChildFds, ruleset_fd: int | None) -> int | None:
    """stdin from /dev/null, stdout/stderr to their pipes, the step socket at ``CHANNEL_FD``
    (which the learner thread's filter names), every other fd but the ruleset closed; return
    where the ruleset is now."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(fds.stdout, 1)
    os.dup2(fds.stderr, 2)
    if ruleset_fd == CHANNEL_FD:
        ruleset_fd = os.dup(ruleset_fd)  # out of the channel's way
    if fds.channel != CHANNEL_FD:
        os.dup2(fds.channel, CHANNEL_FD, inheritable=False)
    # The server's and the keeper's descriptors, and any job's, stay out.
    close_all_but({0, 1, 2, CHANNEL_FD, *([] if ruleset_fd is None else [ruleset_fd])})
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(line_buffering=True)  # keep what was printed before a crash
    return ruleset_fd


def _read_steps(fd: int) -> list[dict[str, Any]]:
    """The job's step payloads, as the keeper wrote them."""
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    steps = json.loads(b"".join(chunks))
    if not isinstance(steps, dict) or not isinstance(steps.get("payloads"), list):
        raise ValueError("the step payloads are not a list")
    payloads: list[dict[str, Any]] = steps["payloads"]
    return payloads


def _fresh_library_state() -> None:
    # The warm server may have asked tempfile for its directory before TMPDIR pointed at
    # this job's scratch; forget that answer so tempfile.* follows the job's TMPDIR.
    tempfile: Any = sys.modules.get("tempfile")
    if tempfile is not None:
        tempfile.tempdir = None


Call = Callable[[Task, dict[str, Any]], tuple[str, Any]]


def call_here(function: Task, payload: dict[str, Any]) -> tuple[str, Any]:
    """``("returned", value)`` or ``("raised", exception)``: the task, in this thread."""
    try:
        return "returned", function(payload)
    except BaseException as exc:  # noqa: BLE001 - whatever the task raised is the outcome
        return "raised", exc
    finally:
        _flush_stdio()


def _start(function: Callable[[], None]) -> Callable[[], None]:
    """Run ``function`` in a new thread; return what waits until that thread has *ended*
    (its state deleted, as ``threading``'s join waits), not only returned from ``function``."""
    join: Any = getattr(_thread, "start_joinable_thread", None)  # Python 3.13 and later
    if join is not None:
        return join(function).join  # type: ignore[no-any-return]
    started = _thread.allocate_lock()
    started.acquire()
    gone: list[Any] = []

    def run() -> None:
        # Released by the interpreter when this thread's state is deleted (after its count
        # is taken back); held until then, as ``threading`` holds it.
        sentinel = _thread._set_sentinel()  # type: ignore[attr-defined]
        sentinel.acquire()
        gone.append(sentinel)
        started.release()
        function()

    _thread.start_new_thread(run, ())

    def wait() -> None:
        started.acquire()
        gone[0].acquire()

    return wait


_KEPT: list[Any] = []  # what learner threads handed over: never freed here (see the docstring)


def in_learner_thread(channel_filter: Any) -> Call:
    """A ``call`` that runs each task in a new thread under ``channel_filter`` (when there is
    one) and waits for it. The calling (main) thread touches nothing of what comes back but
    through ``task_line``'s ``type()`` checks, with the collector off, and keeps it alive."""

    def call(function: Task, payload: dict[str, Any]) -> tuple[str, Any]:
        ended: list[tuple[str, Any]] = []

        def learner_thread() -> None:
            try:
                if channel_filter is not None:
                    channel_filter.load()
            except BaseException as exc:  # noqa: BLE001 - no learner code has run: ours
                ended.append(("internal", f"the learner thread's filter: {exc}"))
                return
            try:
                ended.append(call_here(function, payload))
            except BaseException as exc:  # noqa: BLE001 - raised past call_here: the outcome
                ended.append(("raised", exc))

        gc.enable()
        # Waits until the thread has ended, so that the seal's thread count does not see it.
        _start(learner_thread)()
        gc.disable()  # no learner finalizer may run in this thread from now on
        _KEPT.append(ended)
        return ended[0] if ended else ("internal", "the task's thread ended without an outcome")

    return call


def task_line(
    function: Task,
    payload: dict[str, Any],
    encode: Callable[[str, Any], bytes],
    max_bytes: int,
    call: Call = call_here,
) -> bytes:
    """Call the task (through ``call``) and turn whatever happens into one end-of-step line
    (never raises)."""
    how, value = call(function, payload)
    if how == "internal":
        return encode("internal", value)
    if how == "raised":
        return encode("error", _failure(value))
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
        except BaseException:  # noqa: BLE001 - the task may have replaced or closed them
            pass


def _report_setup_failure(channel: Channel, step: int, exc: BaseException) -> int:
    try:
        channel.send(_end_encoder(step, channel)("internal", describe_exception(exc)))
    except (ChannelLost, ValueError):
        return EXIT_SETUP_FAILED
    return 0
