"""A ``dask scheduler`` and a ``dask worker`` process, as docs/how-to/cluster.md has an
instructor start them, for the tests that grade on a cluster that is not their own.

    servers = DaskServers(tmp_path / "dask")    # started; servers.address is the scheduler's
    servers.kill_scheduler()                    # kill -9
    servers.stop()
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

DASK = Path(sys.executable).parent / "dask"  # what docs/how-to/cluster.md has instructors run


class DaskServers:
    """A scheduler and a worker process (two workers of one thread), each in its own session."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        info = folder / "scheduler.json"
        self.scheduler = _start(
            DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
            "--scheduler-file", str(info),
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while not info.exists() or not info.read_text().strip():
            assert time.monotonic() < deadline and self.scheduler.poll() is None, "no scheduler"
            time.sleep(0.1)
        self.address = json.loads(info.read_text())["address"]
        self.workers = _start(
            DASK, "worker", "--scheduler-file", str(info), "--nworkers", "2", "--nthreads", "1",
            "--no-dashboard",
        )  # fmt: skip

    def kill_scheduler(self) -> None:
        os.killpg(self.scheduler.pid, signal.SIGKILL)

    def stop(self) -> None:
        for proc in (self.workers, self.scheduler):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=60)


def _start(*command: str | Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(c) for c in command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
