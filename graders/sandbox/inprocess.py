"""``InProcessRunner``: the honest fake. Runs trusted tasks in this process, same ``Outcome``.

For unit tests of trusted child-side code (truth, harness) without forking: exceptions
become "error", results are checked exactly as the real runner checks them. There is no
isolation and no timeout, so it must never see learner code.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import sys
import threading
import time
from typing import Any, Callable, Iterable

from .child import task_frame
from .contract import Job, Outcome, SandboxError
from .protocol import encode_frame
from .verdict import Ending, judge


class InProcessRunner:
    """Runs ``task(payload)`` in the calling process; serialised by a lock (stdout is global)."""

    isolation = "inprocess"

    def __init__(self, task_paths: Iterable[str] = ()) -> None:
        for path in task_paths:
            if path not in sys.path:
                sys.path.append(path)
        self._lock = threading.Lock()

    def run(self, job: Job) -> Outcome:
        """Run ``job`` here; stdout/stderr are captured while it runs."""
        started = time.monotonic()
        stdout, stderr = io.StringIO(), io.StringIO()
        payload = json.loads(json.dumps(job.payload))  # the task gets a copy, as in a child
        limits = job.limits
        with self._lock, contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            frame = task_frame(_function(job), payload, encode_frame, limits.max_result_bytes)
        verdict = judge(Ending(0), frame, False, limits.timeout_s, limits.max_result_bytes)
        cap = limits.max_output_bytes
        return Outcome(verdict.status, verdict.result, _capped(stdout, cap), _capped(stderr, cap), verdict.message,
                       self.isolation, time.monotonic() - started)

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> "InProcessRunner":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _function(job: Job) -> Callable[[dict[str, Any]], Any]:
    try:
        return getattr(importlib.import_module(job.module), job.function)
    except (ImportError, AttributeError) as exc:
        raise SandboxError(f"cannot run the task: {exc}") from exc


def _capped(stream: io.StringIO, cap: int) -> str:
    return stream.getvalue().encode()[:cap].decode(errors="replace")
