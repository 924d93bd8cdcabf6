"""``InProcessRunner``: the honest fake. Runs trusted tasks in this process, same ``Outcome``.

For unit tests of trusted child-side code (truth, checkers) without forking: exceptions
become "error", results are checked exactly as the keeper checks them (the same strict
line parser, the same ``check``). There is no isolation and no timeout, so it must never
see learner code.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from .child import task_line
from .contract import Job, Outcome, SandboxError
from .modules import Sources, install
from .protocol import FrameError, decode_line, encode_line
from .verdict import StepOutcome, channel_abuse, checked, from_end


class InProcessRunner:
    """Runs ``task(payload)`` in the calling process, one job at a time (a lock); what a job
    prints is its own (``_captured``), whatever other threads print meanwhile."""

    isolation = "inprocess"
    memory = "none"
    notes: tuple[str, ...] = ("in-process fake: no isolation",)

    def __init__(self, task_paths: Iterable[str] = (), modules: Sources | None = None) -> None:
        for path in task_paths:
            if path not in sys.path:
                sys.path.append(path)
        for name, (filename, source) in (modules or {}).items():
            if name not in sys.modules:
                install(name, filename, source)
        self._lock = threading.Lock()

    def run(self, job: Job) -> Outcome:
        """Run ``job`` here; stdout/stderr are captured while it runs."""
        started = time.monotonic()
        stdout, stderr = io.StringIO(), io.StringIO()
        payload = json.loads(json.dumps(job.payload))  # the task gets a copy, as in a child
        seal = secrets.token_hex(16)
        encode = lambda kind, value: encode_line({"end": 0, "seal": seal, kind: value})  # noqa: E731
        with self._lock, _captured("stdout", stdout), _captured("stderr", stderr):
            line = task_line(_function(job.task), payload, encode, job.limits.max_result_bytes)
            verdict = _verdict(line, job, payload, seal)
        cap = job.limits.max_output_bytes
        return Outcome(
            verdict.status,
            verdict.result,
            _capped(stdout, cap),
            _capped(stderr, cap),
            verdict.message,
            self.isolation,
            time.monotonic() - started,
            verdict.words,
        )

    def run_all(self, jobs: Sequence[Job]) -> list[Outcome]:
        """Each job in turn (the real runner's grouping into children changes no outcome)."""
        return [self.run(job) for job in jobs]

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> InProcessRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _verdict(line: bytes, job: Job, payload: dict[str, Any], seal: str) -> StepOutcome:
    try:
        kind, value = decode_line(line.rstrip(b"\n"), 0, seal)
    except FrameError as exc:
        return channel_abuse(exc.words)
    return checked(from_end(kind, value), _function(job.check) if job.check else None, payload)


def _function(task: str) -> Callable[..., Any]:
    module, _, name = task.partition(":")
    try:
        function: Callable[..., Any] = getattr(importlib.import_module(module), name)
        return function
    except (ImportError, AttributeError) as exc:
        raise SandboxError(f"cannot run the task: {exc}") from exc


def _capped(stream: io.StringIO, cap: int) -> str:
    return stream.getvalue().encode()[:cap].decode(errors="replace")


class _PerThread:
    """``sys.stdout`` (or ``stderr``) while in-process jobs run: a job's thread writes to its
    job's buffer, every other thread to the stream that was there. Swapping the stream for
    the job's buffer (``contextlib.redirect_stdout``) would take what another thread prints
    meanwhile (a test's command line, run while a service in the same process prepares),
    and, put back, undo a swap that thread made in between."""

    def __init__(self, base: Any) -> None:
        self.base = base
        self.jobs: dict[int, io.StringIO] = {}

    def _target(self) -> Any:
        return self.jobs.get(threading.get_ident(), self.base)

    def write(self, text: str) -> int:
        return int(self._target().write(text))

    def flush(self) -> None:
        self._target().flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)


_SWAPPING = threading.Lock()


@contextlib.contextmanager
def _captured(name: str, buffer: io.StringIO) -> Iterator[None]:
    """What this thread writes to ``sys.<name>`` goes to ``buffer`` until the block ends."""
    with _SWAPPING:
        stream = getattr(sys, name)
        if not isinstance(stream, _PerThread):
            stream = _PerThread(stream)
            setattr(sys, name, stream)
        stream.jobs[threading.get_ident()] = buffer
    try:
        yield
    finally:
        with _SWAPPING:
            del stream.jobs[threading.get_ident()]
            # Put back only what is still ours: a stream another thread set since is theirs.
            if not stream.jobs and getattr(sys, name) is stream:
                setattr(sys, name, stream.base)
