"""Requests that wait for a grade: ``GET /api/submissions/{id}?wait=S``, and a page's upload.

A grade saved by this process wakes its waiters at once (``done``, from the grading
thread). One saved by another process sharing the gradebook is seen by the watcher, which
asks the gradebook about every attempt waited for in one query, every LOOK_S seconds
(so a burst of learners waiting costs one query a second, not one each). Waiting never
outlasts what was asked, nor the server's stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool

log = logging.getLogger("graders.service")
LOOK_S = 1.0  # how often the watcher asks the gradebook


class Waiters:
    """Who waits for which attempt, in the event loop of the server."""

    def __init__(
        self, stopping: threading.Event, finished: Callable[[list[int]], set[int]]
    ) -> None:
        self.stopping = stopping
        self.finished = finished  # of these attempts, those graded (or failed) by now
        self._loop: asyncio.AbstractEventLoop | None = None
        self._events: dict[int, set[asyncio.Event]] = {}
        self._watcher: asyncio.Task[None] | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Serve ``loop`` (the server's), and watch the gradebook from it."""
        self._loop = loop
        self._watcher = loop.create_task(self._watch())

    async def stop(self) -> None:
        """Wake every waiter (the server stops) and stop watching."""
        for attempt_id in list(self._events):
            self._wake(attempt_id)
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher

    def done(self, attempt_id: int) -> None:
        """Attempt ``attempt_id`` has its grade: wake its waiters (from any thread)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake, attempt_id)

    async def wait(self, attempt_id: int, seconds: float) -> None:
        """Return once the attempt is graded (or failed), ``seconds`` have passed, or the
        server stops."""
        event = asyncio.Event()
        self._events.setdefault(attempt_id, set()).add(event)
        try:
            # Graded before this waiter came: the watcher's next look would say it late.
            if attempt_id in await run_in_threadpool(self.finished, [attempt_id]):
                return
            left = seconds
            deadline = time.monotonic() + left
            while left > 0 and not self.stopping.is_set() and not event.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), left)
                left = deadline - time.monotonic()
        finally:
            waiting = self._events.get(attempt_id, set())
            waiting.discard(event)
            if not waiting:
                self._events.pop(attempt_id, None)

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(LOOK_S)
            waited = list(self._events)
            if self.stopping.is_set():
                for attempt_id in waited:
                    self._wake(attempt_id)
                continue
            if waited:
                try:
                    for attempt_id in await run_in_threadpool(self.finished, waited):
                        self._wake(attempt_id)
                except Exception:  # noqa: BLE001 - the gradebook away for a moment: look again
                    log.exception("could not look for the grades waited for")

    def _wake(self, attempt_id: int) -> None:
        for event in self._events.get(attempt_id, ()):
            event.set()
