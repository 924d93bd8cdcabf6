"""A capped reader of one output stream: keeps the first ``limit`` bytes, drains the rest."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

READ_CHUNK = 1 << 16
# Past its cap, an output is only drained. Pausing after each read lets a flood pile up in
# the pipe (the writer blocks on a full pipe) instead of costing a core here and a core in
# the writer, for as long as the job runs: ~64 KiB per pause, so 10 MB drain in ~0.2 s.
FLOOD_PAUSE_S = 0.001


@dataclass
class Capture:
    """One capped input stream."""

    fd: int
    limit: int
    name: str = "output"
    data: bytearray = field(default_factory=bytearray)
    overflow: bool = False
    seen: int = 0  # bytes read since the last ``take``, the thrown-away ones included

    def feed(self, chunk: bytes) -> None:
        self.seen += len(chunk)
        room = self.limit - len(self.data)
        if len(chunk) > room:
            self.overflow = True
        self.data += chunk[: max(room, 0)]

    def read(self) -> int:
        """Read one chunk: its size, 0 at end of file, -1 when nothing is there (non-blocking)."""
        try:
            chunk = os.read(self.fd, READ_CHUNK)
        except BlockingIOError:
            return -1
        self.feed(chunk)
        if self.overflow:
            time.sleep(FLOOD_PAUSE_S)
        return len(chunk)

    def read_available(self) -> None:
        """Read what is there now, without blocking, up to the cap (a flood is left in the pipe)."""
        os.set_blocking(self.fd, False)
        try:
            while len(self.data) < self.limit and self.read() > 0:
                pass
        finally:
            os.set_blocking(self.fd, True)

    def take(self) -> str:
        """The text captured so far, decoded leniently; the capture starts afresh."""
        text = self.data.decode(errors="replace")
        self.data, self.overflow, self.seen = bytearray(), False, 0
        return text
