"""Where the service's attempts are graded: here, in the session's warm sandbox, or on a
Dask cluster's workers (``graders serve --cluster``). The grader (``grader``) claims,
finishes and logs each attempt the same way for both; a site only grades.

    site = Here(session, workers=2)             # or OnCluster(session, "local:2")
    at_once = site.open(prepared)               # every assignment prepared: how many threads
    graded = site.grade(claimed, prep)          # prep: the assignment under the learner's due
    site.close()                                # nothing more is graded; the cluster is left

On a cluster each attempt is one task, sent to a worker that holds the course, the truths
prepared here and a warm graders session (``batch.cluster_worker``, as ``graders autograde
--cluster`` uses it); the task comes back with plain results, parsed and validated here.
Dask runs a task again when the worker holding it dies, and its answer counts once: the
grader saves a grade only while its claim holds. A task that killed every worker it was
sent to comes back to the grader as a failure of its grading, which queues the attempt
again; one that stopped its grader ``queue.MAX_TRIES`` times fails (it costs no attempt).
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..grading.handed_in import HandedIn, grade_notebook
from ..grading.pipeline import PreparedAssignment
from ..results import StudentResult
from ..workspace import Workspace
from .queue import Claimed

if TYPE_CHECKING:
    from distributed import Client, Future

log = logging.getLogger("graders.service")
IN_FLIGHT_PER_THREAD = 2  # attempts sent per worker thread: one graded, one waiting in Dask


@dataclass(frozen=True)
class AttemptGrade:
    """What grading an attempt gave, wherever it ran."""

    result: StudentResult
    retry: bool  # graders failed, not the learner: the attempt costs them nothing
    isolation: str | None  # the level learner code ran under (None: none ran)


class CannotGrade(Exception):
    """The site cannot grade now, for no fault of the notebook (the cluster is away, or its
    workers would grade differently): the attempt waits in the queue, its try not counted."""


class Site(Protocol):
    """Where attempts are graded."""

    def open(self, prepared: Mapping[str, PreparedAssignment]) -> int:
        """Get ready to grade the course's assignments: how many attempts to grade at once."""
        ...

    def grade(self, claimed: Claimed, prep: PreparedAssignment) -> AttemptGrade:
        """Grade one attempt against ``prep`` (the assignment under the learner's due date)."""
        ...

    def close(self) -> None:
        """Grade nothing more; an attempt still grading raises in ``grade``, or ends."""
        ...


class Here:
    """The session's warm sandbox on this machine, ``workers`` notebooks at a time; each
    upload is read from its bytes, never written to disk."""

    def __init__(self, session: Workspace, workers: int) -> None:
        self.session, self.workers = session, workers

    def open(self, prepared: Mapping[str, PreparedAssignment]) -> int:
        # The sandbox's warm servers start now: the first learner does not wait for them.
        log.info("ready to grade, isolation %s", self.session.ctx.runner.isolation)
        return self.workers

    def grade(self, claimed: Claimed, prep: PreparedAssignment) -> AttemptGrade:
        handed_in = HandedIn(
            claimed.student, claimed.notebook, claimed.filename, claimed.received_at
        )
        result, retry = grade_notebook(prep, self.session.loaded, handed_in)
        return AttemptGrade(result, retry, self.session.isolation)

    def close(self) -> None:
        """Nothing to clean: a notebook graded here was never written anywhere."""


class OnCluster:
    """A Dask cluster's workers: ``local:N`` (a LocalCluster of this process) or the
    address of a running scheduler, which other servers and batches may share."""

    def __init__(
        self,
        session: Workspace,
        address: str,
        *,
        isolation: str = "auto",
        at_once: int | None = None,
    ) -> None:
        from ..batch.cluster import check_address

        check_address(address)  # a malformed local:N is a usage error before anything runs
        self.session, self.address, self.at_once = session, address, at_once
        self.isolation = isolation  # each worker takes the best level its machine offers
        # One plugin per server: servers sharing a cluster each keep their own on its workers.
        self.plugin = f"graders-serve-{session.loaded.course.id}-{uuid.uuid4().hex[:8]}"
        self._keys: dict[str, str] = {}  # assignment -> its course key, named by each task
        self._stack = ExitStack()
        self._client: Client | None = None
        self._in_flight: set[Future[Any]] = set()  # the grader's threads add and remove
        self._lock = threading.Lock()

    def open(self, prepared: Mapping[str, PreparedAssignment]) -> int:
        from ..batch.cluster import open_client
        from ..batch.cluster_run import LOCAL_PREFIX, worker_threads
        from ..batch.cluster_worker import GradingPlugin, course_files, shipment, warm

        shipped = {assignment: shipment(prep) for assignment, prep in prepared.items()}
        self._keys = {assignment: s.course_key for assignment, s in shipped.items()}
        client = self._stack.enter_context(open_client(self.address))
        plugin = GradingPlugin(
            course_files(self.session.loaded),
            shipped,
            self.isolation,
            ignore_interrupts=self.address.startswith(LOCAL_PREFIX),
        )
        client.register_plugin(plugin, name=self.plugin)
        self._client = client
        # The workers' sandboxes start now, as this machine's would: the first learner does
        # not wait for them (a worker that joins later starts its own on its first notebook).
        levels = client.run(warm, self.plugin)
        threads = worker_threads(client)
        log.info(
            "grading on the Dask cluster %s (scheduler %s, %d worker threads), isolation %s",
            self.address,
            client.scheduler_info().get("address"),
            threads,
            ", ".join(sorted(set(levels.values()))) or "-",
        )
        return self.at_once or threads * IN_FLIGHT_PER_THREAD

    def grade(self, claimed: Claimed, prep: PreparedAssignment) -> AttemptGrade:
        from ..batch.cluster_worker import grade_batch

        client = self._client
        if client is None or client.status != "running":
            raise CannotGrade(f"the Dask cluster {self.address} is not connected")
        due = prep.assignment.due.isoformat() if prep.assignment.due else None
        item = (claimed.student, claimed.filename, claimed.received_at.isoformat(), due,
                claimed.notebook)  # fmt: skip
        key = self._keys[claimed.assignment]
        future = client.submit(grade_batch, self.plugin, key, [item], pure=False)
        with self._lock:
            self._in_flight.add(future)
        try:
            reply = _answer(future, self.address)
        finally:
            with self._lock:
                self._in_flight.discard(future)
        return _graded(reply, claimed)

    def close(self) -> None:
        from ..batch.cluster_run import uninstall

        client, self._client = self._client, None
        if client is not None:
            with self._lock:
                out = list(self._in_flight)
            if out and client.status == "running":
                client.cancel(out)  # their gradings raise, and are queued again
            uninstall(client, self.plugin)
        self._stack.close()


def _answer(future: Future[Any], address: str) -> Any:
    """The task's reply; ``CannotGrade`` when the cluster, not the notebook, stopped it."""
    from distributed import KilledWorker

    from ..batch.cluster_worker import WorkerSetupError

    try:
        return future.result()
    except KilledWorker:
        raise  # a notebook that may kill workers: its try counts
    except WorkerSetupError as exc:
        raise CannotGrade(f"a Dask worker cannot grade: {exc}") from exc
    except Exception as exc:
        if future.status == "cancelled" or future.client.status != "running":
            raise CannotGrade(f"lost the Dask cluster {address}") from exc
        raise


def _graded(reply: Any, claimed: Claimed) -> AttemptGrade:
    # Parsed and validated here: the worker's JSON is data, never trusted as objects.
    [(student, text, retry)] = reply["results"]
    result = StudentResult.parse(text)
    if student != claimed.student or result.student != claimed.student:
        raise ValueError(f"a worker answered for {student!r}, not {claimed.student!r}")
    return AttemptGrade(result, bool(retry), reply["isolation"])
