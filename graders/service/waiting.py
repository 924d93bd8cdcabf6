"""Requests that wait for a grade: ``GET /api/submissions/{id}?wait=S``, and a page's upload.

A grade saved by this process wakes its waiters at once (``done``, from the grading
thread); one saved by another process sharing the gradebook is seen at the next look
(every LOOK_S seconds). Waiting never outlasts what was asked, nor the server's stop.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable

LOOK_S = 1.0  # how often a waiter looks in the gradebook itself


class Waiters:
    """Who waits for which attempt, in the event loop of the server."""

    def __init__(self, stopping: threading.Event) -> None:
        self.stopping = stopping
        self._loop: asyncio.AbstractEventLoop | None = None
        self._events: dict[int, set[asyncio.Event]] = {}

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop that serves requests (set when the server starts)."""
        self._loop = loop

    def done(self, attempt_id: int) -> None:
        """Attempt ``attempt_id`` has its grade: wake its waiters (from any thread)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake, attempt_id)

    async def wait(
        self, attempt_id: int, seconds: float, finished: Callable[[], Awaitable[bool]]
    ) -> None:
        """Return once ``finished()`` says so, ``seconds`` have passed, or the server stops."""
        deadline = time.monotonic() + seconds
        event = asyncio.Event()
        self._events.setdefault(attempt_id, set()).add(event)
        try:
            while not await finished():
                left = deadline - time.monotonic()
                if left <= 0 or self.stopping.is_set():
                    return
                try:
                    await asyncio.wait_for(event.wait(), min(LOOK_S, left))
                except TimeoutError:
                    pass
                event.clear()
        finally:
            waiting = self._events.get(attempt_id, set())
            waiting.discard(event)
            if not waiting:
                self._events.pop(attempt_id, None)

    def _wake(self, attempt_id: int) -> None:
        for event in self._events.get(attempt_id, ()):
            event.set()
