"""Back the warm server's heap with transparent huge pages, so that forking it is cheap.

A warm server holds ~250 MiB of anonymous memory (Python objects, torch's allocations). On
4 KiB pages, every fork copies ~60,000 page-table entries and every child's exit frees
them: ~25 ms of CPU per job, more than most jobs' own work. On 2 MiB pages it is a few
hundred entries. A child that writes to a shared huge page gets its own copy of that 4 KiB
only (the kernel splits the mapping first), so memory stays shared as before.

Two halves: ``GLIBC_TUNABLES`` (in the server's environment, see ``isolation.BASE_ENV``)
makes malloc ask for huge pages as the heap grows; ``collapse`` then rebuilds what is left
on small pages (Python's arenas, early allocations) once warming is done. Both are only
speed: on a kernel without ``MADV_COLLAPSE`` (before Linux 6.1) or with THP disabled,
nothing changes but the cost of a fork.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

MALLOC_TUNABLE = "glibc.malloc.hugetlb=1"  # madvise(MADV_HUGEPAGE) on what malloc maps
MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25
HUGE = 2 << 20
THP_SETTING = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def collapse() -> int:
    """Move this process's private anonymous memory onto huge pages; return the MiB moved."""
    if "[never]" in _read(THP_SETTING):
        return 0
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols: libc's madvise
        madvise = libc.madvise
    except (OSError, AttributeError):
        return 0
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    moved = 0
    for start, end in _anonymous_ranges(_read(Path("/proc/self/maps"))):
        madvise(start, end - start, MADV_HUGEPAGE)
        if madvise(start, end - start, MADV_COLLAPSE) == 0:
            moved += (end - start) >> 20
    return moved


def _anonymous_ranges(maps: str) -> list[tuple[int, int]]:
    """The 2 MiB-aligned parts of the private, writable, anonymous mappings (and the heap)."""
    ranges = []
    for line in maps.splitlines():
        fields = line.split()
        name = fields[5] if len(fields) > 5 else ""
        if len(fields) < 5 or fields[1] != "rw-p" or name not in ("", "[heap]"):
            continue
        low, high = (int(x, 16) for x in fields[0].split("-"))
        start, end = -(-low // HUGE) * HUGE, high // HUGE * HUGE
        if end > start:
            ranges.append((start, end))
    return ranges


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
