"""Where a batch's submissions are graded: the contract, and threads in this process.

    ThreadExecutor(workers).grade(...)      # the default: ``workers`` threads here

Each submission is read and graded by ``grading.handed_in.grade_notebook``, as everywhere
else: what the folder scan found is handed to it as the learner handed it in
(``Found.handed_in``).

An executor grades a plan's submissions wherever it likes and hands the grades to
``save`` in the calling thread the moment they are ready (those that finished together,
together): the batch (``autograde``) owns the gradebook and is the only one that writes
it. ``cluster.ClusterExecutor`` grades on a Dask cluster under the same contract.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..grading.handed_in import grade_notebook
from ..results import StudentResult
from ..submissions.found import Found

if TYPE_CHECKING:
    from ..workspace import Workspace
    from .plan import Plan

STOP_POLL_S = 0.2  # how often a waiting batch looks whether it was asked to stop

SAVE_AT_ONCE = 100  # grades saved in one transaction at most


@dataclass(frozen=True)
class Ready:
    """A grade handed back, with what the gradebook records beside it."""

    found: Found
    key: str
    result: StudentResult
    retry: bool  # the grader failed, not the learner: grade again next run
    isolation: str | None  # where the grading ran (None: where the batch runs, or no code)


Save = Callable[[list[Ready]], None]


@dataclass(frozen=True)
class Ended:
    """How grading a plan ended when not everything was graded (running again goes on)."""

    stopped: bool = False  # asked to stop (Ctrl-C), or could not go on
    lost: str | None = None  # why the grading backend went away (a cluster's scheduler)


class Executor(Protocol):
    """Grades what a plan says somewhere, handing each grade to ``save`` as it comes."""

    def grade(self, plan: Plan, session: Workspace, save: Save, stop: threading.Event) -> Ended:
        """Grade ``plan.todo``; return early, with ``stopped``, once ``stop`` is set."""


class ThreadExecutor:
    """Grades submissions on ``workers`` threads of this process (the session's sandbox)."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)

    def grade(self, plan: Plan, session: Workspace, save: Save, stop: threading.Event) -> Ended:
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="autograde")
        # Each grade lands in this queue as it finishes: waiting on it costs nothing per
        # submission still pending (waiting on the set of futures cost the whole set each time).
        finished: queue.SimpleQueue[Future[tuple[StudentResult, bool]]] = queue.SimpleQueue()
        try:
            futures: dict[Future[tuple[StudentResult, bool]], tuple[Found, str]] = {}
            for found, key in plan.todo:
                # Each student with their own due date (an extension), if they have one.
                prep = plan.prep_for(found.student)
                future = pool.submit(grade_notebook, prep, session.loaded, found.handed_in())
                futures[future] = (found, key)
                future.add_done_callback(finished.put)
            left = len(futures)
            while left and not stop.is_set():
                try:
                    ready = [finished.get(timeout=STOP_POLL_S)]
                except queue.Empty:
                    continue
                while len(ready) < SAVE_AT_ONCE and not finished.empty():
                    ready.append(finished.get())
                # Popped: a grade saved is not held until the batch ends.
                save([Ready(*futures.pop(f), *f.result(), None) for f in ready])
                left -= len(ready)
            return Ended(stopped=bool(left))
        finally:
            # On Ctrl-C, drop what has not started; the runner's shutdown ends what has.
            pool.shutdown(wait=False, cancel_futures=True)
