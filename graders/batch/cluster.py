"""Grading a batch on a Dask cluster: ``graders autograde ... --cluster ADDRESS``.

    ClusterExecutor("local:2")                 # a LocalCluster of 2 worker processes here
    ClusterExecutor("tcp://scheduler:8786")    # the workers of a running scheduler

The batch stays where it runs: it finds and keys the notebooks, prepares the truths once,
and saves every grade, in this process. The cluster only grades: each worker gets the
course and the prepared truths once, with a plugin (``cluster_worker``) that keeps a warm
graders session for the run, and then batches of notebooks, a few per worker thread at a
time (so memory stays flat however large the class), each answered with plain results.

Faults: Dask runs the batches of a worker that died (``kill -9``) on another worker; a
student is saved at most once per run whatever arrives twice. A batch that killed every
worker it was sent to (the scheduler's ``allowed-failures``) is quarantined: the cluster
drains, then its notebooks are sent one at a time with nothing else in flight, so that a
death is blamed only on the notebook that caused it; one that kills alone, twice, is that
student's ``ungradable`` grade, retried by the next run. When the scheduler goes away the
batch ends, ``lost``, with every grade in hand saved: running again grades the rest.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..errors import UsageError
from .cluster_run import LOCAL_PREFIX, NO_WORKER_PATIENCE_S, ClusterRun, ClusterStats
from .cluster_run import ClusterError as ClusterError
from .executor import Ended, Save

if TYPE_CHECKING:
    from distributed import Client

    from ..workspace import Workspace
    from .plan import Plan

LOCAL_HOST = "127.0.0.1"
CONNECT_TIMEOUT_S = 30


class ClusterExecutor:
    """Grades a plan's submissions on a Dask cluster; the batch saves what comes back."""

    def __init__(
        self,
        address: str,
        *,
        isolation: str = "auto",
        batch_size: int | None = None,
        client: Client | None = None,
        patience_s: float = NO_WORKER_PATIENCE_S,
    ) -> None:
        check_address(address)  # a wrong count is a usage error before anything runs
        self.address = address
        self.isolation = isolation  # each worker takes the best level its machine offers
        self.batch_size = batch_size
        self.client = client  # an open client (tests); else one is opened for the run
        self.patience_s = patience_s  # how long a cluster without workers is waited for
        self.stats = ClusterStats()

    def grade(self, plan: Plan, session: Workspace, save: Save, stop: threading.Event) -> Ended:
        with self._connected() as client:
            return ClusterRun(self, client, plan, session, save).go(stop)

    @contextmanager
    def _connected(self) -> Iterator[Client]:
        if self.client is not None:
            yield self.client
            return
        with open_client(self.address) as client:
            yield client


@contextmanager
def open_client(address: str) -> Iterator[Client]:
    """A client of the cluster at ``address``, or of a LocalCluster for ``local:N``."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise UsageError(
            "--cluster needs Dask's distributed: pip install 'autograd-graders[scale]'"
        ) from exc
    if address.startswith(LOCAL_PREFIX):
        workers = _local_workers(address)
        # One thread per worker process: each has its own warm sandbox, as --workers has here.
        with LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host=LOCAL_HOST,  # a cluster of this machine listens on this machine only
            dashboard_address=f"{LOCAL_HOST}:0",  # any free port: Dask's 8787 may be taken
        ) as cluster:
            # Not `with Client(...)`: that makes it the current client of this thread's
            # context, which only that context may undo, and the service opens its client
            # in one thread and closes it in another.
            client = Client(cluster)
            try:
                client.wait_for_workers(workers, timeout=CONNECT_TIMEOUT_S * workers)
                yield client
            finally:
                _close(client)
        return
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc
    try:
        yield client
    finally:
        _close(client)


def _close(client: Client) -> None:
    if client.status != "running":
        # The scheduler went away: closing cancels Dask's attempts to reconnect, and each
        # cancelled attempt logs a traceback that says nothing the batch does not say.
        logging.getLogger("distributed.client").addFilter(_drop_cancelled)
    client.close(timeout=CONNECT_TIMEOUT_S)


def _drop_cancelled(record: logging.LogRecord) -> bool:
    return not (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError))


def check_address(address: str) -> None:
    """Raise ``UsageError`` when ``address`` is ``local:N`` with a wrong N."""
    if address.startswith(LOCAL_PREFIX):
        _local_workers(address)


def _local_workers(address: str) -> int:
    count = address.removeprefix(LOCAL_PREFIX)
    if not count.isdigit() or not 1 <= int(count) <= 64:
        raise UsageError(f"--cluster {address}: write local:N with N from 1 to 64 workers")
    return int(count)
