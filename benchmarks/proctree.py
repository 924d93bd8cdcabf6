"""Run a command and measure it as a whole: wall time, CPU time and peak memory of its tree.

Peak memory is taken two ways, because neither alone answers "how much memory did the
run need":

- ``rusage_maxrss_mib``: the ``ru_maxrss`` that ``wait4`` reports for the command, i.e.
  the largest peak RSS of any single process it reaped (the kernel keeps no sum; bwrap's
  pid namespace is not reaped, see below), and ``single_rss_mib``, the same sampled over
  the whole tree;
- ``tree_rss_mib`` / ``tree_pss_mib``: the largest sum over the whole process tree,
  sampled from ``/proc`` every ``interval`` seconds. RSS counts the pages a forked child
  shares with its warm parent once per process (an over-count); PSS splits shared pages
  between their users, so the PSS sum is the memory the run really occupied.

CPU time is taken from the samples too: ``wait4`` covers the command and the processes
it reaped, but not what runs under bubblewrap (bwrap does not reap its pid namespace's
processes, so their time reaches no one). Deeper processes add their own CPU time and
that of the children they reaped (``/proc/<pid>/stat`` fields 14-17), each as last seen.

Processes are found by walking parent links from the command's pid, which also finds
fork servers inside bubblewrap's pid namespace (they keep their host pids in ``/proc``).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Measured:
    """What one command cost."""

    returncode: int
    wall_s: float
    cpu_s: float  # user + system of the whole tree (see the module docstring)
    rusage_maxrss_mib: float
    single_rss_mib: float  # the largest RSS one process of the tree had, sampled
    tree_rss_mib: float
    tree_pss_mib: float
    peak_processes: int
    stdout: str
    stderr: str


def run_measured(command: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
                 interval: float = 0.05) -> Measured:
    """Run ``command`` to completion, sampling its process tree's memory meanwhile."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(list(command), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err, text=True)
        sampler = _Sampler(proc.pid, interval)
        sampler.start()
        try:
            # wait4, not wait: its rusage covers the command and every descendant it reaped.
            _pid, status, usage = os.wait4(proc.pid, 0)
        finally:
            sampler.stop()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    cpu = usage.ru_utime + usage.ru_stime + sampler.unreaped_cpu_s()
    return Measured(proc.returncode, wall, cpu, usage.ru_maxrss / 1024, sampler.peak_single_kib / 1024,
                    sampler.peak_rss_kib / 1024, sampler.peak_pss_kib / 1024, sampler.peak_count, stdout, stderr)


@dataclass
class _Seen:
    """A process of the tree as last sampled."""

    parent: int
    own_ticks: int  # utime + stime
    reaped_ticks: int  # cutime + cstime: children it waited for
    last_seen: int  # sample number


class _Sampler(threading.Thread):
    """Samples the tree under ``root`` until stopped; keeps the peaks and each process's CPU."""

    def __init__(self, root: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.root, self.interval = root, interval
        self.peak_rss_kib = self.peak_pss_kib = self.peak_single_kib = 0
        self.peak_count = 0
        self.seen: dict[int, _Seen] = {}
        self.samples = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.sample()
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()

    def sample(self) -> None:
        self.samples += 1
        stats = _stats()
        pids = tree(self.root, {pid: stat[0] for pid, stat in stats.items()})
        for pid in pids:
            if pid in stats:
                parent, own, reaped = stats[pid]
                self.seen[pid] = _Seen(parent, own, reaped, self.samples)
        rss = [_rss_kib(pid) for pid in pids]
        self.peak_rss_kib = max(self.peak_rss_kib, sum(rss))
        self.peak_single_kib = max(self.peak_single_kib, max(rss))
        self.peak_pss_kib = max(self.peak_pss_kib, sum(_pss_kib(pid) for pid in pids))
        self.peak_count = max(self.peak_count, len(pids))

    def unreaped_cpu_s(self) -> float:
        """CPU time of the processes below the command's children, which ``wait4`` misses.

        The command's children are in ``wait4``'s figure with all they reaped. Below them,
        each process counts its own time and its reaped children's, except a child its
        (sampled) parent outlived: the parent reaped it, so it is in the parent's count.
        """
        ticks = 0
        for pid, seen in self.seen.items():
            if pid == self.root or seen.parent == self.root:
                continue
            parent = self.seen.get(seen.parent)
            reaped_by_parent = parent is not None and parent.last_seen > seen.last_seen
            ticks += seen.reaped_ticks + (0 if reaped_by_parent else seen.own_ticks)
        return ticks / TICKS


def _stats() -> dict[int, tuple[int, int, int]]:
    """pid -> (parent, own CPU ticks, reaped children's CPU ticks), for every process."""
    found = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            fields = _stat_fields(entry.name)
            if fields is not None:
                found[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14]))
    return found


def tree(root: int, parents: dict[int, int] | None = None) -> list[int]:
    """``root`` and every live descendant, from the parent links in ``/proc/<pid>/stat``."""
    if parents is None:
        parents = {pid: stat[0] for pid, stat in _stats().items()}
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


def _stat_fields(pid: str) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (field 3 is index 0)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rindex(b")") + 2:].split()


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE_KIB
    except (OSError, IndexError, ValueError):
        return 0


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0
