"""Faults the cluster tests inject into Dask workers: plugins registered before graders' own,
so that every worker (one restarted after a crash too) gets them.

Learner code cannot kill a worker (it runs in the worker's sandbox children), so a
notebook that does is simulated here, as is a worker whose torch differs from the batch's.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from distributed import WorkerPlugin


class KillsItsWorker(WorkerPlugin):
    """Grading the notebook of any of ``students`` ends the worker's process at once."""

    def __init__(self, *students: str) -> None:
        self.students = frozenset(students)

    def setup(self, worker: Any) -> None:
        from graders.batch import cluster_worker

        real = cluster_worker.grade_notebook
        students = self.students

        def grade_notebook(prep: Any, loaded: Any, handed_in: Any) -> Any:
            if handed_in.student in students:
                # kill -9 of itself, as KillsItsWorkerOnce does: os._exit(1) once left a
                # worker whose connection had closed unreaped for 300 s in CI.
                os.kill(os.getpid(), signal.SIGKILL)
            return real(prep, loaded, handed_in)

        cluster_worker.grade_notebook = grade_notebook  # type: ignore[assignment]


class OtherTorch(WorkerPlugin):
    """The worker says it has another torch than the batch's machine."""

    def setup(self, worker: Any) -> None:
        from graders.batch import cluster_worker
        from graders.grading import key as grading_key

        for module in (grading_key, cluster_worker):  # where the batch's code reads it
            module.torch_version = lambda: "0.0.0+elsewhere"  # type: ignore[attr-defined]


class KillsItsWorkerOnce(WorkerPlugin):
    """The first grading of any of ``students``'s notebooks kills its worker (``kill -9`` of
    itself, mid-job); the grading Dask sends again after the death runs as usual. The first
    time is marked by a file in ``folder``, which every worker of this machine sees."""

    def __init__(self, folder: str, *students: str) -> None:
        self.folder, self.students = folder, frozenset(students)

    def setup(self, worker: Any) -> None:
        from graders.batch import cluster_worker

        real = cluster_worker.grade_notebook
        folder, students = self.folder, self.students

        def grade_notebook(prep: Any, loaded: Any, handed_in: Any) -> Any:
            if handed_in.student in students:
                try:
                    os.close(
                        os.open(os.path.join(folder, handed_in.student), os.O_CREAT | os.O_EXCL)
                    )
                except FileExistsError:
                    return real(prep, loaded, handed_in)  # killed once already: graded now
                os.kill(os.getpid(), signal.SIGKILL)
            return real(prep, loaded, handed_in)

        cluster_worker.grade_notebook = grade_notebook  # type: ignore[assignment]
