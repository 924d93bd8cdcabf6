"""Memory the kernel counts: one memory cgroup per fork server, holding its current job's child.

``RLIMIT_AS`` caps the child's address space but misses pages that are not mapped by it
alone: SysV shared memory, memfd and tmpfs files live on after a ``munmap`` and are
charged to nobody's limit. A memory cgroup counts them all. Where the runner may create
cgroups (cgroup v2 with the memory controller delegated, or cgroup v1's memory
hierarchy), it makes one per fork server and hands the server open descriptors of its
control files: the server runs inside namespaces where ``/sys`` is read-only, and a
descriptor opened outside still works. The server writes the job's child's pid into
``cgroup.procs`` before the child runs any task code; the server and the keeper stay
outside, so the kernel's OOM killer can only pick the child.

Where no cgroup can be had, the syscall filter refuses SysV shared memory and memfd
(``syscalls.py``), and the runner's notes say that memory is bounded by address space only.
"""

from __future__ import annotations

import os
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CGROUP_ROOT = Path("/sys/fs/cgroup")
_OOM_KILL = re.compile(rb"^oom_kill (\d+)$", re.M)


@dataclass(frozen=True)
class CgroupLayout:
    """Where a cgroup version keeps its memory files."""

    version: int
    limit_files: tuple[str, ...]  # written with the limit in bytes, in this order
    events_file: str  # holds the line "oom_kill N"


V1 = CgroupLayout(1, ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes"), "memory.oom_control")
V2 = CgroupLayout(2, ("memory.max", "memory.swap.max"), "memory.events")


class JobMemory:
    """The fork server's side: admit a child, set the limit, count OOM kills (descriptors only)."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.version: int = config["version"]
        self.procs: int = config["procs"]
        self.limits: list[int] = config["limits"]
        self.events: int = config["events"]
        self.limit_mib: int | None = None  # None: the cgroup's own default, no limit

    def descriptors(self) -> set[int]:
        """The cgroup files this holds open (a process forked to use it keeps them)."""
        return {self.procs, self.events, *self.limits}

    def set_limit(self, mib: int) -> None:
        if mib == self.limit_mib:
            return
        data = str(mib << 20).encode()
        swap = b"0" if self.version == 2 else data  # v1's memsw counts memory plus swap
        # v1 refuses a memsw limit below the memory limit: when raising, memsw goes first.
        order = list(zip(self.limits, (data, swap)[: len(self.limits)], strict=True))
        raising = self.version == 1 and self.limit_mib is not None and mib > self.limit_mib
        for fd, value in order[::-1] if raising else order:
            os.pwrite(fd, value, 0)
        self.limit_mib = mib

    def admit(self, pid: int) -> None:
        os.pwrite(self.procs, str(pid).encode(), 0)

    def oom_kills(self) -> int:
        found = _OOM_KILL.search(os.pread(self.events, 4096, 0))
        return int(found.group(1)) if found else 0


class Cgroups:
    """The runner's side: one cgroup per fork server under a group of this runner's own."""

    def __init__(self, base: Path, layout: CgroupLayout) -> None:
        self.base, self.layout = base, layout
        self.made: list[Path] = []
        self.fds: list[int] = []

    @classmethod
    def create(cls) -> tuple[Cgroups | None, str]:
        """This runner's group, or None and why not."""
        reasons = []
        for layout, parent in _candidates():
            try:
                base = parent / f"graders-{os.getpid()}-{uuid.uuid4().hex[:8]}"
                base.mkdir()
            except OSError as exc:
                reasons.append(f"cgroup v{layout.version}: {exc.strerror}")
                continue
            groups = cls(base, layout)
            groups.made.append(base)
            if all(
                (base / name).exists() for name in (*layout.limit_files[:1], layout.events_file)
            ):
                return groups, ""
            groups.close()
            reasons.append(f"cgroup v{layout.version}: the memory controller is not delegated here")
        return None, "; ".join(reasons) or "no cgroup filesystem"

    def for_server(self, index: int) -> dict[str, Any]:
        """A cgroup for server ``index``: the descriptors its configuration names (inheritable)."""
        path = self.base / f"w{index}"
        path.mkdir()
        self.made.append(path)
        limits = [
            self._open(path / name) for name in self.layout.limit_files if (path / name).exists()
        ]
        return {
            "version": self.layout.version,
            "procs": self._open(path / "cgroup.procs"),
            "limits": limits,
            "events": self._open(path / self.layout.events_file, os.O_RDONLY),
        }

    def _open(self, path: Path, mode: int = os.O_WRONLY) -> int:
        fd = os.open(path, mode)
        os.set_inheritable(fd, True)
        self.fds.append(fd)
        return fd

    def close(self) -> None:
        """Close the descriptors and remove the groups (empty once the servers have stopped)."""
        for fd in self.fds:
            os.close(fd)
        self.fds.clear()
        for path in reversed(self.made):
            try:
                path.rmdir()
            except OSError:
                pass
        self.made.clear()


def _candidates() -> list[tuple[CgroupLayout, Path]]:
    """Where this process may make cgroups: beside itself in v2, in v1's memory hierarchy."""
    own = _own_cgroups()
    found = []
    if (CGROUP_ROOT / "cgroup.controllers").exists() and "" in own:
        found.append((V2, CGROUP_ROOT / own[""].lstrip("/")))
    if (CGROUP_ROOT / "memory" / "cgroup.procs").exists() and "memory" in own:
        found.append((V1, CGROUP_ROOT / "memory" / own["memory"].lstrip("/")))
    return found


def _own_cgroups() -> dict[str, str]:
    """Controller -> this process's cgroup path ("" is the v2 hierarchy)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    own = {}
    for line in lines:
        _id, controllers, path = line.split(":", 2)
        for name in controllers.split(","):
            own[name.removeprefix("name=")] = path
    return own
