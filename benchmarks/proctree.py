"""Run a command and measure it as a whole: wall time, CPU time and peak memory of its tree.

Memory, sampled from ``/proc`` every ``interval`` seconds over the command's whole tree:

- ``tree_rss_mib``: the largest sum of RSS. It counts the pages a forked child shares with
  its warm parent once per process, so it over-counts; ``single_rss_mib`` is the largest
  RSS of one process; ``rusage_maxrss_mib`` is what ``wait4`` reports (the largest of the
  processes the command reaped: bwrap's pid namespace is not among them, see below).
- with ``pss=True`` only: ``tree_pss_mib``, the largest sum of PSS, which splits shared
  pages between their users: the memory the run really occupied; and ``own_pss_mib``,
  the same without the pages that processes forked by a fork server (its spare and the
  jobs running learner code, each capped by the course's memory limit) hold privately:
  what the grader itself occupied. Reading PSS walks a process's page tables (~17 ms for
  500 MB) and slows the run being measured, so timed runs leave it off, or read it every
  ``pss_every``-th sample only.

CPU time: ``wait4`` covers the command and the processes it reaped, but not what runs
under bubblewrap (bwrap does not reap its pid namespace's processes, so their time
reaches no one). The samples add, for each deeper process, its own CPU time and that of
the children it reaped (``/proc/<pid>/stat`` fields 14-17), as last seen.

Processes are found by walking parent links from the command's pid, which also finds
fork servers inside bubblewrap's pid namespace (they keep their host pids in ``/proc``).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024
TICKS = os.sysconf("SC_CLK_TCK")
FORK_SERVER = b"graders.sandbox.zygote"  # in the command line of graders' fork servers


@dataclass(frozen=True)
class Measured:
    """What one command cost (memory in MiB; PSS figures are 0 unless asked for)."""

    returncode: int
    wall_s: float
    cpu_s: float
    rusage_maxrss_mib: float
    single_rss_mib: float
    tree_rss_mib: float
    tree_pss_mib: float
    own_pss_mib: float
    peak_processes: int
    stdout: str
    stderr: str


def run_measured(
    command: Sequence[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    pss: bool = False,
    interval: float = 0.05,
    pss_every: int = 1,
) -> Measured:
    """Run ``command`` to completion, sampling its process tree meanwhile (with ``pss``, the
    PSS figures at every ``pss_every``-th sample)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            text=True,
        )
        sampler = _Sampler(proc.pid, interval, pss, pss_every)
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
    peaks = sampler.peaks
    return Measured(
        proc.returncode,
        wall,
        cpu,
        usage.ru_maxrss / 1024,
        peaks["single"] / 1024,
        peaks["rss"] / 1024,
        peaks["pss"] / 1024,
        peaks["own"] / 1024,
        sampler.peak_count,
        stdout,
        stderr,
    )


@dataclass
class _Seen:
    """A process of the tree as last sampled."""

    parent: int
    own_ticks: int  # utime + stime
    reaped_ticks: int  # cutime + cstime: children it waited for
    last_seen: int  # sample number


class _Sampler(threading.Thread):
    """Samples the tree under ``root`` until stopped; keeps the peaks and each process's CPU."""

    def __init__(self, root: int, interval: float, pss: bool, pss_every: int = 1) -> None:
        super().__init__(daemon=True)
        self.root, self.interval, self.pss, self.pss_every = root, interval, pss, pss_every
        self.peaks = {"single": 0, "rss": 0, "pss": 0, "own": 0}
        self.peak_count = 0
        self.seen: dict[int, _Seen] = {}
        self.samples = 0
        self.commands: dict[int, bytes] = {}
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
        pids = [
            pid
            for pid in tree(self.root, {pid: stat[0] for pid, stat in stats.items()})
            if pid in stats
        ]
        for pid in pids:
            parent, own, reaped = stats[pid]
            self.seen[pid] = _Seen(parent, own, reaped, self.samples)
        rss = [_rss_kib(pid) for pid in pids]
        self._peak("single", max(rss, default=0))
        self._peak("rss", sum(rss))
        self.peak_count = max(self.peak_count, len(pids))
        if (
            self.pss and (self.samples - 1) % self.pss_every == 0
        ):  # the first sample, then every Nth
            forked = {pid for pid in pids if FORK_SERVER in self.command(stats[pid][0])}
            memory = {pid: _pss_and_private_kib(pid) for pid in pids}
            total = sum(pss for pss, _ in memory.values())
            self._peak("pss", total)
            self._peak(
                "own", total - sum(private for pid, (_, private) in memory.items() if pid in forked)
            )

    def _peak(self, name: str, value: int) -> None:
        self.peaks[name] = max(self.peaks[name], value)

    def command(self, pid: int) -> bytes:
        """A process's command line, read once (fork servers live as long as the run)."""
        if pid not in self.commands:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    self.commands[pid] = f.read()
            except OSError:
                self.commands[pid] = b""
        return self.commands[pid]

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


def tree(root: int, parents: dict[int, int]) -> list[int]:
    """``root`` and every descendant, from a pid -> parent map."""
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


def _stats() -> dict[int, tuple[int, int, int]]:
    """pid -> (parent, own CPU ticks, reaped children's CPU ticks), for every process."""
    found = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rindex(b")") + 2 :].split()  # the command name may hold spaces
            found[int(entry.name)] = (
                int(fields[1]),
                int(fields[11]) + int(fields[12]),
                int(fields[13]) + int(fields[14]),
            )
    return found


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE_KIB
    except (OSError, IndexError, ValueError):
        return 0


def _pss_and_private_kib(pid: int) -> tuple[int, int]:
    pss = private = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    pss = int(line.split()[1])
                elif line.startswith((b"Private_Clean:", b"Private_Dirty:")):
                    private += int(line.split()[1])
    except (OSError, ValueError):
        pass
    return pss, private
