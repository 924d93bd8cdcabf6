"""One batch on a Dask cluster: notebooks out in batches, each result saved here once.

``cluster.ClusterExecutor`` opens the client; this is what it does with it (the module
docstring of ``cluster`` says how faults are survived).
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from .. import __version__
from ..errors import GraderError
from ..grading.handed_in import grade_notebook
from ..grading.key import course_key
from ..grading.pipeline import ungradable
from ..grading.torch_side import torch_version
from ..notebook.read import MAX_NOTEBOOK_BYTES
from ..results import StudentResult
from ..said import say
from ..submissions.found import Found
from .executor import STOP_POLL_S, Ended, Ready, Save

if TYPE_CHECKING:
    from distributed import Client, Future

    from ..workspace import Workspace
    from .cluster_worker import Reply, Shipped
    from .plan import Plan


class Owner(Protocol):
    """What a run reads of the executor that opened it (``cluster.ClusterExecutor``)."""

    address: str
    isolation: str
    batch_size: int | None
    patience_s: float
    stats: ClusterStats


LOCAL_PREFIX = "local:"  # --cluster local:N: a LocalCluster of the batch's own
IN_FLIGHT_PER_THREAD = 2  # batches queued per worker thread: enough to never leave one idle
MAX_BATCH = 32  # notebooks per task: the scheduler's cost is per task, a kill costs a batch
ALONE_TRIES = 2  # a notebook sent alone that Dask gave up this often is ungradable
REFRESH_S = 5.0  # how often the batch looks how many worker threads the cluster has
# A cluster with no worker at all for this long is taken as gone: the batch stops (what was
# graded is saved; the next run grades the rest) rather than wait for ever. Long enough for
# a nanny to restart its worker, or an autoscaler to bring one.
NO_WORKER_PATIENCE_S = 300.0

Sent = list[tuple[Found, str]]  # a batch's submissions with their grading keys


class ClusterError(GraderError):
    """The cluster cannot grade this batch (a worker differs from this machine, or fails)."""


@dataclass
class ClusterStats:
    """What the cluster did in a run, for the benchmark's figures."""

    shipped: int = 0  # notebooks sent to workers
    tasks: int = 0  # batches sent (split batches count again)
    busy_s: float = 0.0  # time workers spent grading, added up over batches
    killed: int = 0  # batches given up by the scheduler after killing workers
    local: int = 0  # submissions graded here: nothing to send (no notebook, unreadable)
    levels: set[str] = field(default_factory=set)  # isolation levels the workers ran at


class ClusterRun:
    """One batch on the cluster: send notebooks in batches, save each result once."""

    def __init__(
        self, owner: Owner, client: Client, plan: Plan, session: Workspace, save: Save
    ) -> None:
        self.owner, self.client, self.plan, self.session = owner, client, plan, session
        self.save = save
        self.key = course_key(plan.prep)
        self.plugin = f"graders-{plan.course}-{plan.assignment}"
        self.saved: set[str] = set()
        self.killed_alone: dict[str, int] = {}  # student -> times Dask gave up on them alone
        self.waiting: deque[Sent] = deque()
        # Notebooks of a batch Dask gave up: each is sent alone with nothing else in flight,
        # so that a death is blamed on the notebook that caused it and on no other.
        self.suspects: deque[Sent] = deque()
        self.in_flight: dict[Future[Any], Sent] = {}
        self.finished: queue.SimpleQueue[Future[Any]] = queue.SimpleQueue()
        self.threads = 1
        self.refreshed = -REFRESH_S  # so that the first look happens at once
        self.workerless_since: float | None = None  # when the cluster was last seen empty

    def go(self, stop: threading.Event) -> Ended:
        remote = [(f, k) for f, k in self.plan.todo if not self._grade_here(f, k)]
        if not remote:
            return Ended()
        self._install()
        try:
            self._refresh_threads()
            size = self.owner.batch_size or _batch_size(len(remote), self.threads)
            self.waiting.extend(remote[i : i + size] for i in range(0, len(remote), size))
            return self._loop(stop)
        finally:
            self._cancel_in_flight()
            self._uninstall()

    def _loop(self, stop: threading.Event) -> Ended:
        while self.waiting or self.suspects or self.in_flight:
            self._fill()
            if stop.is_set():
                return Ended(stopped=True)
            try:
                future = self.finished.get(timeout=STOP_POLL_S)
            except queue.Empty:
                self._refresh_threads()
                if self._workerless_too_long():
                    return Ended(stopped=True, lost=self._no_worker_reason())
                continue
            lost = self._collect(future)
            if lost is not None:
                return Ended(stopped=True, lost=lost)
        return Ended()

    def _fill(self) -> None:
        if self.suspects:
            # Quarantine: the cluster drains, then takes one suspect at a time.
            while self.suspects and not self.in_flight:
                self._send(self.suspects.popleft())
            return
        while self.waiting and len(self.in_flight) < self.threads * IN_FLIGHT_PER_THREAD:
            self._send(self.waiting.popleft())

    def _send(self, batch: Sent) -> None:
        """Ship a batch's notebooks; one that changed since it was keyed is graded here."""
        shipped: list[Shipped] = []
        sent: Sent = []
        for found, key in batch:
            raw = _notebook_bytes(found)
            if raw is None:  # changed since it was keyed: read (and refused) here
                self._save_here(found, key)
                continue
            shipped.append((found.student, found.source, _iso(found.submitted_at),
                            _iso(self.plan.dues.get(found.student)), raw))  # fmt: skip
            sent.append((found, key))
        if shipped:
            self._submit(shipped, sent)

    def _submit(self, shipped: list[Shipped], sent: Sent) -> None:
        from .cluster_worker import grade_batch

        future = self.client.submit(grade_batch, self.plugin, self.key, shipped, pure=False)
        self.in_flight[future] = sent
        future.add_done_callback(self.finished.put)  # called on the client's own thread
        self.owner.stats.shipped += len(shipped)
        self.owner.stats.tasks += 1

    def _collect(self, future: Future[Any]) -> str | None:
        """Save what a finished batch says; the reason the cluster is gone, if it is."""
        if future.status in ("pending", "lost"):
            # It finished, then the worker holding its answer died: Dask runs it again.
            future.add_done_callback(self.finished.put)
            return None
        sent = self.in_flight.pop(future)
        if future.status == "cancelled":
            return f"lost the Dask scheduler at {self.owner.address}"
        if future.status == "finished":
            try:
                reply = future.result()
            except Exception as exc:  # noqa: BLE001 - its answer was lost, then it failed
                return self._failed(exc, sent)
            self._save_reply(reply, sent)
            return None
        return self._failed(future.exception(), sent)

    def _save_reply(self, reply: Reply, sent: Sent) -> None:
        stats = self.owner.stats
        stats.busy_s += reply["busy_s"]
        if reply["isolation"]:
            stats.levels.add(reply["isolation"])
        by_student = {found.student: (found, key) for found, key in sent}
        for student, text, retry in reply["results"]:
            # Parsed and validated here: the worker's JSON is data, never trusted as objects.
            result = StudentResult.parse(text)
            if student not in by_student or result.student != student:
                raise ClusterError(f"a worker answered for {student!r}, which it was not sent")
            self._save_once(*by_student[student], result, retry, reply["isolation"])

    def _failed(self, exc: BaseException | None, sent: Sent) -> str | None:
        from distributed import KilledWorker

        from .cluster_worker import WorkerSetupError

        if isinstance(exc, WorkerSetupError):
            raise ClusterError(
                f"a Dask worker cannot grade this batch: {exc} (this machine: torch "
                f"{torch_version()}, graders {__version__})"
            ) from exc
        if exc is None:  # an error Dask could not say: the batch is sent again
            self.waiting.appendleft(sent)
            return None
        if isinstance(exc, KilledWorker):
            self.owner.stats.killed += 1
            # A batch: each of its notebooks is a suspect, sent alone; a suspect, once more.
            if len(sent) > 1 or self._once_more(sent[0][0].student):
                self.suspects.extend([item] for item in sent)
                return None
        reason = (
            say("grading this notebook killed the Dask worker each time it was sent")
            if isinstance(exc, KilledWorker)
            else say(
                "internal error on a Dask worker: {detail}", detail=f"{type(exc).__name__}: {exc}"
            )
        )
        for found, key in sent:
            self._save_once(found, key, ungradable(found.student, reason), True, None)
        return None

    def _once_more(self, student: str) -> bool:
        """Send a notebook alone again? Once: Dask counts a death against every task the worker
        held, so one killed beside others (before the quarantine began) may be innocent, and a
        worker may also die of something else."""
        tries = self.killed_alone.get(student, 0) + 1
        self.killed_alone[student] = tries
        return tries < ALONE_TRIES

    def _grade_here(self, found: Found, key: str) -> bool:
        """Grade here what needs no worker: no notebook, or one the reader refuses unread."""
        if found.path is not None and found.error is None and _sendable(found):
            return False
        self._save_here(found, key)
        return True

    def _save_here(self, found: Found, key: str) -> None:
        self.owner.stats.local += 1
        prep = self.plan.prep_for(found.student)
        graded = grade_notebook(prep, self.session.loaded, found.handed_in())
        self._save_once(found, key, *graded, None)

    def _save_once(
        self, found: Found, key: str, result: StudentResult, retry: bool, level: str | None
    ) -> None:
        if found.student in self.saved:
            return  # a batch Dask ran twice (its first worker died after answering)
        self.saved.add(found.student)
        self.save([Ready(found, key, result, retry, level)])

    def _install(self) -> None:
        from .cluster_worker import GradingPlugin, course_files, shipment

        plugin = GradingPlugin(
            course_files(self.session.loaded),
            {self.plan.assignment: shipment(self.plan.prep)},
            self.owner.isolation,
            ignore_interrupts=self.owner.address.startswith(LOCAL_PREFIX),
        )
        # A plugin of the same name (left by a run that was killed) is replaced: torn down.
        self.client.register_plugin(plugin, name=self.plugin)

    def _uninstall(self) -> None:
        # The workers' sessions (fork servers) stop with the run, not with the cluster.
        uninstall(self.client, self.plugin)

    def _cancel_in_flight(self) -> None:
        if self.in_flight and self.client.status == "running":
            self.client.cancel(list(self.in_flight))

    def _refresh_threads(self) -> None:
        now = time.monotonic()
        if now - self.refreshed < REFRESH_S or self.client.status != "running":
            return
        self.refreshed = now
        threads = sum(self.client.nthreads().values())
        self.threads = max(1, threads)
        if threads:
            self.workerless_since = None
        elif self.workerless_since is None:
            self.workerless_since = now

    def _workerless_too_long(self) -> bool:
        since = self.workerless_since
        return since is not None and time.monotonic() - since >= self.owner.patience_s

    def _no_worker_reason(self) -> str:
        return (
            f"the Dask cluster at {self.owner.address} has had no worker for "
            f"{self.owner.patience_s:.0f} s"
        )


def uninstall(client: Client, plugin: str) -> None:
    """Remove graders' plugin ``plugin`` from the cluster's workers (their sessions stop).

    A worker that dies (or is being replaced) while the plugin is removed breaks the call:
    tried once more; a plugin still left is replaced by the next one of its name, so a grade
    already saved is never lost to this clean-up.
    """
    for attempt in (1, 2):
        if client.status != "running":
            return
        try:
            client.unregister_worker_plugin(plugin)
            return
        except OSError:  # distributed's CommClosedError: a worker went away mid-call
            if attempt == 2:
                return


def worker_threads(client: Client) -> int:
    """How many notebooks the cluster's workers grade at once, now (at least 1)."""
    threads: int = sum(client.nthreads().values())
    return max(1, threads)


def _batch_size(count: int, threads: int) -> int:
    """Notebooks per task: a few tasks per thread for small classes, MAX_BATCH for large."""
    return max(1, min(MAX_BATCH, count // (threads * 4)))


def _sendable(found: Found) -> bool:
    assert found.path is not None
    try:
        size = found.path.stat().st_size
    except OSError:
        return False
    return 0 < size <= MAX_NOTEBOOK_BYTES


def _notebook_bytes(found: Found) -> bytes | None:
    """The notebook's bytes, or None when the reader must see it here (it grew, or vanished)."""
    assert found.path is not None
    try:
        with found.path.open("rb") as handle:
            raw = handle.read(MAX_NOTEBOOK_BYTES + 1)
    except OSError:
        return None
    return raw if 0 < len(raw) <= MAX_NOTEBOOK_BYTES else None


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when else None
