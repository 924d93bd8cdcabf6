"""``open_runner``: a pool of warm fork servers behind the ``Runner`` interface."""

from __future__ import annotations

import os
import queue
import tempfile
import threading
import weakref
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .contract import Job, Outcome, SandboxError
from .isolation import BASE_ENV, PRIVATE_SCRATCH, Launch, choose
from .memory import Cgroups
from .modules import Sources
from .paths import View, make_view
from .scratch import remove_tree
from .worker import Worker

MAX_WORKERS = 64
UID_BASE = 1_000_000_000  # children's uids: far above any system or human account


class ForkServerRunner:
    """Runs each job in a fresh child of one of ``workers`` warm fork servers.

    Made by ``begin_runner`` (the servers warming) and ready after ``finish_start`` (the
    course's modules installed, every server warm); ``open_runner`` does both.
    ``run`` is thread-safe: it borrows an idle server for the duration of the job.
    ``notes`` lists what this machine could not provide (e.g. no seccomp).
    """

    def __init__(
        self,
        launch: Launch,
        configs: Sequence[dict[str, Any]],
        host_scratch: str | None,
        notes: Iterable[str] = (),
        cgroups: Cgroups | None = None,
    ) -> None:
        self.isolation = launch.level
        self.memory = f"cgroup v{cgroups.layout.version}" if cgroups else "address space"
        # Servers are spawned from one long-lived thread: bwrap's --die-with-parent is tied to
        # the thread that started it, and a short-lived caller thread would take it down.
        self._spawner = ThreadPoolExecutor(1, thread_name_prefix="graders-sandbox-spawn")
        self._workers = [Worker(launch, config, self._spawn) for config in configs]
        self._idle: queue.SimpleQueue[Worker] = queue.SimpleQueue()
        self._closed = threading.Event()
        self._finalizer = weakref.finalize(
            self, _shut_down, self._workers, self._spawner, host_scratch, cgroups
        )
        self.notes = tuple(notes)
        self._ready = False
        try:
            for worker in self._workers:
                worker.begin_start()  # all servers warm up at once
        except BaseException:
            self.close()
            raise

    def finish_start(self, modules: Sources | None = None) -> ForkServerRunner:
        """Give every server ``modules`` (a course's code, as source) and wait until each is
        warm; return the runner, ready for jobs. Raises ``SandboxError`` (and stops them all)
        when one does not start."""
        try:
            for worker in self._workers:
                worker.give_modules(modules or {})
            for worker in self._workers:
                worker.finish_start()
        except BaseException:
            self.close()
            raise
        for worker in self._workers:
            self._idle.put(worker)
        self._ready = True
        self.notes = tuple(
            sorted({*self.notes, *(note for worker in self._workers for note in worker.notes)})
        )
        return self

    def _spawn(self, *args: Any, **kwargs: Any) -> Any:
        import subprocess

        return self._spawner.submit(subprocess.Popen, *args, **kwargs).result()

    def run(self, job: Job) -> Outcome:
        """Run ``job`` in a fresh child; only sandbox failures raise (``SandboxError``)."""
        return self.run_all([job])[0]

    def run_all(self, jobs: Sequence[Job]) -> list[Outcome]:
        """Run each of ``jobs`` in a fresh child of its own (see ``Runner.run_all``).

        One job, one child: a job never finds in its process anything an earlier job of
        the same learner left there (its source, a patched checker, a line on the channel).
        The spare child a server forks ahead keeps that cheap. A server that dies is
        restarted and its job tried once more in a fresh one; a job that kills that one
        too is reported as lost.
        """
        return [self._one(job) for job in jobs]

    def _one(self, job: Job) -> Outcome:
        got, lost = self._attempt(job)
        if lost:
            got, lost = self._attempt(job)  # once more, in a fresh server
        return got if got is not None else self._lost(lost, job)

    def _attempt(self, job: Job) -> tuple[Outcome | None, str]:
        if self._closed.is_set():
            raise SandboxError("the runner is closed")
        if not self._ready:
            raise SandboxError("the runner is not ready: finish_start first")
        worker = self._idle.get()
        try:
            return worker.run_job(job)
        finally:
            self._idle.put(worker)

    def _lost(self, why: str, job: Job) -> Outcome:
        return Outcome("error", None, "", "", why, self.isolation, 0.0)

    def close(self) -> None:
        """Stop every server and remove the scratch directories; idempotent."""
        self._closed.set()
        self._finalizer()

    def __enter__(self) -> ForkServerRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _shut_down(
    workers: list[Worker],
    spawner: ThreadPoolExecutor,
    host_scratch: str | None,
    cgroups: Cgroups | None,
) -> None:
    for worker in workers:
        worker.stop()
    spawner.shutdown(wait=False)
    if host_scratch is not None:
        remove_tree(host_scratch)
    if cgroups is not None:
        cgroups.close()


def open_runner(
    level: str = "auto",
    workers: int = 1,
    hide: Iterable[str] = (),
    require_full: bool = False,
    *,
    task_paths: Iterable[str] = (),
    preload: Iterable[str] = (),
    modules: Sources | None = None,
    tmp_mib: int = 256,
) -> ForkServerRunner:
    """Start ``workers`` warm fork servers at isolation ``level`` and return the runner.

    ``level``: "auto" (the best this machine offers: bubblewrap, unshare, then plain),
    or one of "bubblewrap", "unshare", "plain", "unsafe" (never chosen by "auto").
    ``hide``: paths children must not see (the course directory). ``require_full``: fail
    rather than fall back to "plain". ``task_paths``: extra directories to import task
    modules from; ``preload``: task modules imported before forking (missing ones are
    noted, not fatal); ``modules``: modules given as source (name -> (file name, source)),
    installed in each server after warming, before it forks (a course's checkers).
    ``tmp_mib``: size of the private /tmp holding scratch directories.
    Raises ``SandboxError`` when the level is not available or a server does not start.
    """
    started = begin_runner(
        level, workers, hide, require_full, task_paths=task_paths, preload=preload, tmp_mib=tmp_mib
    )
    return started.finish_start(modules)


def begin_runner(
    level: str = "auto",
    workers: int = 1,
    hide: Iterable[str] = (),
    require_full: bool = False,
    *,
    task_paths: Iterable[str] = (),
    preload: Iterable[str] = (),
    tmp_mib: int = 256,
) -> ForkServerRunner:
    """``open_runner`` without waiting: the servers start warming now, and the runner takes
    jobs after ``finish_start(modules)``. A command that has not read its course yet starts
    the sandbox so, and the seconds of torch's warm-up pass while it reads it."""
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be between 1 and {MAX_WORKERS}, got {workers}")
    task_paths = [os.path.realpath(p) for p in task_paths]
    view = make_view(hide, task_paths)
    launch = choose(level, view, tmp_mib, require_full)
    host_scratch = None if launch.private_tmp else tempfile.mkdtemp(prefix="graders-sandbox-")
    base = {
        **launch.server_config(view),
        "env": BASE_ENV,
        "task_paths": task_paths,
        "preload": list(preload),
        "scratch_root": PRIVATE_SCRATCH if host_scratch is None else host_scratch,
    }
    configs = [{**base, "uid": _child_uid(launch, index)} for index in range(workers)]
    if host_scratch is not None:
        configs = [
            {**config, "scratch_root": os.path.join(host_scratch, f"w{index}")}
            for index, config in enumerate(configs)
        ]
        os.chmod(host_scratch, 0o711)
    cgroups, why_not = Cgroups.create() if launch.confine else (None, "")
    if cgroups is not None:
        configs = [
            {**config, "memory": cgroups.for_server(index)} for index, config in enumerate(configs)
        ]
    uid = _child_uid(launch, 0)
    notes = _notes(launch, view, uid) + _memory_notes(launch, cgroups, why_not)
    return ForkServerRunner(launch, configs, host_scratch, notes, cgroups)


def _notes(launch: Launch, view: View, uid: int | None) -> list[str]:
    notes = []
    if launch.level == "plain":
        notes.append(
            "reduced isolation: no namespaces (the network is cut by seccomp only, /tmp is shared)"
        )
        if uid is not None and view.private:
            notes.append(
                f"children cannot read {', '.join(view.private)}: they can import only the modules "
                "the warm server imported (torch, numpy, the preloaded tasks)"
            )
    if launch.level == "unsafe":
        notes.append("unsafe: children run unconfined, with limits and timeouts only")
    return notes


def _memory_notes(launch: Launch, cgroups: Cgroups | None, why_not: str) -> list[str]:
    if not launch.confine:
        return []
    if cgroups is not None:
        return [
            "memory: each job's memory, shared or not, is counted in a cgroup "
            f"v{cgroups.layout.version} of its own"
        ]
    return [
        f"memory: bounded by address space only ({why_not}); "
        "SysV shared memory and memfd are refused"
    ]


def _child_uid(launch: Launch, index: int) -> int | None:
    """A uid of its own for each server's children, when the runner is root.

    Unique per server (and, through the pid, per runner process), so that RLIMIT_NPROC
    and signals never reach another server's child.
    """
    if not launch.confine or os.geteuid() != 0:
        return None
    return UID_BASE + (os.getpid() % 10_000_000) * MAX_WORKERS + index
