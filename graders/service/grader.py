"""The service's grading: threads taking attempts from the queue, one at a time each, and
grading each where the service grades (``sites``): the session's warm sandbox, as
``graders autograde`` does, or a Dask cluster's workers (``--cluster``).

    grader = Grader(session, queue, servers, Here(session, 2), done=notify)
    grader.start()       # prepares every assignment (truths), opens the site, then grades
    grader.wake()        # an upload came in: an idle thread looks now, not at its next poll
    grader.stop(grace)   # takes nothing more; what is grading has ``grace`` seconds, then
                         # goes back to the queue for the next start

The queue in the gradebook is the bound: a thread claims an attempt only when it is free,
so the site never holds more attempts than the threads the site asked for, however many
wait. A notebook is graded from its bytes in the gradebook (never written to disk), with
the server's receive time as its submission time, by ``grading.handed_in.grade_notebook``
(so it is read and graded exactly as in a batch), and saved here, wherever it was graded:
the grade of record, the late policy and the attempts are the same on both sites. One log
line per attempt: learner, assignment, status, points, seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ..course.loaded import get_assignment
from ..gradebook.service_tables import FAILED, GRADED
from ..grading.pipeline import PreparedAssignment, prepare_assignment
from ..grading.torch_side import torch_version
from ..results import StudentResult, format_points
from ..workspace import Workspace
from .queue import Claimed, Queue
from .servers import BEAT_S, Me, Servers
from .sites import CannotGrade, Site

log = logging.getLogger("graders.service")
POLL_S = 0.5  # how often an idle worker looks for attempts another process accepted
SWEEP_S = 10.0  # how often attempts of dead processes are looked for


class Grader:
    """Grades the queue's attempts at ``site``, on as many threads as it asks for."""

    def __init__(
        self,
        session: Workspace,
        queue: Queue,
        servers: Servers,
        site: Site,
        *,
        done: Callable[[int], None] = lambda _id: None,
    ) -> None:
        self.session, self.queue, self.servers, self.site = session, queue, servers, site
        self.done = done  # told each attempt id once its grade (or failure) is saved
        self.me = Me()
        self._work = threading.Event()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._prepared: dict[str, PreparedAssignment] = {}
        self._lock = threading.Lock()
        self.ready = threading.Event()  # every assignment is prepared, the site open

    def start(self) -> None:
        """Register this process, take back what dead ones held, and start the threads."""
        self.servers.register(self.me)
        taken = self.servers.sweep(self.me)
        if taken:
            log.info("queued again %d attempts a stopped server was grading", taken)
        self._spawn(self._keep_alive, "graders-serve-beat")
        self._spawn(self._prepare_all, "graders-serve-prepare")

    def wake(self) -> None:
        self._work.set()

    def stop(self, grace: float) -> None:
        """Take nothing more; wait up to ``grace`` s for the gradings under way, then queue
        again those still running, and say this process stopped."""
        self._stopping.set()
        self._work.set()
        deadline = time.monotonic() + grace
        for thread in list(self._threads):
            thread.join(max(0.0, deadline - time.monotonic()))
        self.site.close()  # a grading still under way ends, or raises and is queued again
        given = self.queue.give_back(self.me.id)
        if given:
            log.info("queued again %d attempts still grading at shutdown", given)
        self.servers.stopped(self.me)

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _prepare_all(self) -> None:
        # Truths first (cached after the first start), then the site (the sandbox's warm
        # servers, or the cluster's workers with the truths): the first learner waits for
        # neither. Threads start only then, so none claims an attempt it cannot grade yet.
        try:
            prepared = {a.id: self._prep(a.id) for a in self.session.loaded.course.assignments}
            at_once = self.site.open(prepared)
        except Exception:  # noqa: BLE001 - uploads are still taken, and graded at a restart
            log.exception("preparing to grade failed: this server grades nothing")
            at_once = 0
        finally:
            self.ready.set()
        for n in range(at_once):
            if not self._stopping.is_set():
                self._spawn(self._work_loop, f"graders-serve-{n}")

    def _prep(self, assignment: str) -> PreparedAssignment:
        with self._lock:
            if assignment not in self._prepared:
                self._prepared[assignment] = prepare_assignment(
                    self.session.loaded, assignment, self.session.ctx
                )
            return self._prepared[assignment]

    def _keep_alive(self) -> None:
        last_sweep = time.monotonic()
        while not self._stopping.wait(BEAT_S):
            try:
                self.servers.beat(self.me)
                if time.monotonic() - last_sweep >= SWEEP_S:
                    last_sweep = time.monotonic()
                    if self.servers.sweep(self.me):
                        self._work.set()
            except Exception:  # noqa: BLE001 - a gradebook away for a moment: try at the next beat
                log.exception("the heartbeat could not be saved")

    def _work_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                claimed = self.queue.claim(self.me.id)
            except Exception:  # noqa: BLE001 - the gradebook away for a moment: try again
                log.exception("could not take an attempt from the queue")
                claimed = None
                self._stopping.wait(POLL_S)
            if claimed is None:
                self._work.wait(POLL_S)
                self._work.clear()
                continue
            try:
                self._grade(claimed)
            except CannotGrade as exc:
                log.error("submission %d waits in the queue: %s", claimed.id, exc)
                self._release(claimed, counted=False)
                self._stopping.wait(SWEEP_S)  # until the site is back, no attempt is taken
            except Exception:  # noqa: BLE001 - a bug of graders, the gradebook away, a worker killed
                log.exception(
                    "submission %d: grading stopped; it goes back to the queue", claimed.id
                )
                self._release(claimed)

    def _release(self, claimed: Claimed, counted: bool = True) -> None:
        try:
            self.queue.release(claimed, self.me.id, counted=counted)
        except Exception:  # noqa: BLE001 - then the next start's sweep queues it again
            log.exception("submission %d could not go back to the queue", claimed.id)

    def regrade(self, ids: list[int]) -> list[int]:
        """Grade attempts ``ids`` again in this process, against its key, and save each
        before returning (``graders regrade``, a review request answered at the command
        line): taken from the gradebook directly, so that a running ``graders serve``, whose
        key may be the one the instructor just fixed, cannot take them. Returns those it took
        (an attempt being graded or queued now is left to its server)."""
        self.servers.register(self.me)
        self._spawn(self._keep_alive, "graders-regrade-beat")
        try:
            claimed = self.queue.take(ids, self.me.id)
            self.site.open({c.assignment: self._prep(c.assignment) for c in claimed})
            for each in claimed:
                self._grade(each)
            return [c.id for c in claimed]
        finally:
            self.stop(grace=0.0)  # anything not saved goes back to the queue

    def preview(self, claimed: Claimed) -> StudentResult:
        """``claimed`` graded now against today's key, under its learner's due date, and
        saved nowhere: what a regrade would give (a review request's preview)."""
        assignment = get_assignment(self.session.loaded, claimed.assignment)
        mine = self.queue.due_for(assignment, claimed.student)
        return self.site.grade(claimed, self._prep(claimed.assignment).due_on(mine.due)).result

    def _grade(self, claimed: Claimed) -> None:
        started = time.monotonic()
        assignment = get_assignment(self.session.loaded, claimed.assignment)
        mine = self.queue.due_for(assignment, claimed.student)
        graded = self.site.grade(claimed, self._prep(claimed.assignment).due_on(mine.due))
        result = graded.result
        seconds = time.monotonic() - started
        if graded.retry:  # graders failed, not the learner: the attempt costs them nothing
            saved = self.queue.fail(claimed, self.me.id, str(result.error or ""), seconds)
            status, points = FAILED, ""
        else:
            graded_by = (torch_version(), graded.isolation)
            saved = self.queue.finish(claimed, self.me.id, result, seconds, assignment, graded_by)
            status = GRADED
            points = f" {format_points(result.score)}/{format_points(result.max_score)}"
        if not saved:
            log.info(
                "submission %d: taken back while grading; another server grades it", claimed.id
            )
            return
        waited = (time.time() - claimed.received_at.timestamp()) - seconds
        log.info(
            "submission %d %s %s %s%s in %.2f s (queued %.2f s)",
            claimed.id,
            claimed.student,
            claimed.assignment,
            status,
            points,
            seconds,
            max(0.0, waited),
        )
        self.done(claimed.id)
