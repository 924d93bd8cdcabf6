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
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .child import task_line
from .contract import Job, Outcome, SandboxError
from .modules import Sources, install
from .protocol import FrameError, decode_line, encode_line
from .verdict import StepOutcome, channel_abuse, checked, from_end


class InProcessRunner:
    """Runs ``task(payload)`` in the calling process; serialised by a lock (stdout is global)."""

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
        with self._lock, contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
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
