"""``open_runner``: a pool of warm fork servers behind the ``Runner`` interface; ``LazyRunner``,
the same started on its first job or in the background."""

from __future__ import annotations

import os
import queue
import tempfile
import threading
import weakref
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .contract import Job, Outcome, Runner, SandboxError
from .isolation import (
    BASE_ENV,
    PRIVATE_SCRATCH,
    Launch,
    choose,
    first_choice,
    probe,
)
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

    def abort_start(self) -> None:
        """Kill the servers that are still warming (from any thread): a ``finish_start``
        waiting for them raises ``SandboxError`` at once and stops the runner."""
        for worker in self._workers:
            worker.kill_warming()

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
    preload = list(preload)
    # The servers start at the first level to try while its probe runs beside them (a
    # probe is a Python started in that launch: a tenth of a second that would otherwise
    # come before the seconds of warm-up); only a level the probe refuses costs a restart.
    first = first_choice(level, view, tmp_mib, require_full)
    if first is not None:
        try:
            started = _begin_at(first, workers, view, task_paths, preload)
        except (OSError, SandboxError):
            started = None  # choose() below says why, from the probe
        if started is not None:
            if probe(first, view) is None:
                return started
            started.close()
    return _begin_at(choose(level, view, tmp_mib, require_full), workers, view, task_paths, preload)


def _begin_at(
    launch: Launch, workers: int, view: View, task_paths: list[str], preload: list[str]
) -> ForkServerRunner:
    host_scratch = None if launch.private_tmp else tempfile.mkdtemp(prefix="graders-sandbox-")
    base = {
        **launch.server_config(view),
        "env": BASE_ENV,
        "task_paths": task_paths,
        "preload": preload,
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


class LazyRunner:
    """A ``Runner`` that starts the sandbox on the first job, so that cached work never
    pays the seconds of warm-up; or sooner (``start_soon``), even before the course's
    modules are known (``give_modules``): its servers then warm while the course is read.
    A workspace's runner; one notebook's grader starts it first of all
    (``integrations.ci.early``), before the rest of graders is imported."""

    def __init__(
        self,
        level: str,
        workers: int,
        hide: tuple[str, ...],
        preload: tuple[str, ...],
        modules: Sources | None = None,
    ) -> None:
        self._args = (level, workers, hide, preload)
        self._modules = modules  # None until the course is read
        self._starting: ForkServerRunner | None = None  # servers warming, modules not sent
        self._runner: Runner | None = None
        self._closed = False
        self._lock = threading.Lock()  # held while servers start: one start at a time
        self._state = threading.Lock()  # held a moment: what ``close`` reads while they do
        self._finishing: ForkServerRunner | None = None  # servers being waited for

    @property
    def started(self) -> bool:
        return self._runner is not None

    def give_modules(self, modules: Sources) -> None:
        """The course's modules the servers install (``sandbox_modules``), once it is read."""
        self._modules = modules

    def start_soon(self) -> None:
        """Start the sandbox now, in a thread, while the caller does what needs no sandbox
        (one notebook: its course read, its truths read, its predictions graded); the first
        job waits for it only as long as it still takes."""
        threading.Thread(
            target=self._start_quietly, name="graders-sandbox-start", daemon=True
        ).start()

    def _start_quietly(self) -> None:
        try:
            if self._modules is None:
                self._begin()  # the rest when the first job comes, with the course's modules
            else:
                self._get()
        except Exception:  # noqa: BLE001 - the first job starts it again, and says why not
            return

    @property
    def isolation(self) -> str:
        return self._get().isolation

    def run(self, job: Job) -> Outcome:
        return self._get().run(job)

    def run_all(self, jobs: Sequence[Job]) -> list[Outcome]:
        return self._get().run_all(jobs)

    def close(self) -> None:
        # A start under way (``start_soon``'s thread, waiting for the servers to warm) is cut
        # short: its servers are killed, that thread's wait ends with an error it swallows,
        # and what is left is stopped here, under the lock that thread held. One notebook
        # that needed no job then ends at once rather than when torch is warm.
        with self._state:
            self._closed = True
            finishing = self._finishing
        if finishing is not None:
            finishing.abort_start()
        with self._lock:
            for runner in (self._runner, self._starting):
                if runner is not None:
                    runner.close()

    def _begin(self) -> None:
        with self._lock:
            if self._runner is None and self._starting is None and not self._closed:
                self._starting = self._warming()
                if self._closed:  # closed while it started: nobody else would stop it
                    self._starting.close()

    def _get(self) -> Runner:
        with self._lock:
            if self._runner is None:
                if self._closed:  # a late start_soon thread: nothing may start any more
                    raise SandboxError("the runner is closed")
                starting = self._starting or self._warming()
                self._starting = None
                with self._state:
                    self._finishing = starting
                try:
                    ready = starting.finish_start(self._modules or {})
                finally:
                    with self._state:
                        self._finishing = None
                if self._closed:  # closed as it became ready: nobody else would stop it
                    ready.close()
                    raise SandboxError("the runner is closed")
                self._runner = ready
            return self._runner

    def _warming(self) -> ForkServerRunner:
        """Fork servers that start warming now, importing the ``preload`` modules."""
        level, workers, hide, preload = self._args
        return begin_runner(level, workers=workers, hide=hide, preload=preload)
