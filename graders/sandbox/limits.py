"""Resource limits of a child (``setrlimit``), applied before the task runs.

Hard and soft limits are set equal, so code in the child cannot raise them again.
"""

from __future__ import annotations

import math
import resource

from .contract import Limits


def rlimits(limits: Limits, *, limit_procs: bool) -> list[tuple[int, int]]:
    """The (resource, value) pairs for a job.

    ``RLIMIT_NPROC`` counts every process of the child's uid, so it is only meaningful
    when the child runs under a uid of its own (``limit_procs``).
    """
    # CPU time is a backstop behind the parent's wall-clock watchdog: one second more,
    # so a busy loop is reported as a timeout by the parent rather than as SIGXCPU.
    cpu_s = math.ceil(limits.timeout_s) + 1
    table = [
        (resource.RLIMIT_AS, limits.memory_mib << 20),
        (resource.RLIMIT_CPU, cpu_s),
        (resource.RLIMIT_FSIZE, limits.max_file_bytes),
        (resource.RLIMIT_NOFILE, limits.max_open_files),
        (resource.RLIMIT_CORE, 0),
    ]
    if limit_procs:
        table.append((resource.RLIMIT_NPROC, limits.max_procs))
    return table


def apply_rlimits(limits: Limits, *, limit_procs: bool) -> None:
    """Set every limit of ``rlimits`` on the calling process."""
    for which, value in rlimits(limits, limit_procs=limit_procs):
        resource.setrlimit(which, (value, value))
