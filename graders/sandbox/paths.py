"""Which parts of the filesystem a child sees: what it may read, what is masked.

Children read only the interpreter, the ``graders`` package, the task paths and system
directories. Everything else (the course, solutions, home directories) is either masked
with an empty tmpfs (bubblewrap, unshare) or simply not on Landlock's read list (plain).
A directory on the read list whose parent is private to its owner (a pyenv under
``/root``) is masked too and bound back, so an unprivileged child can reach it.
"""

from __future__ import annotations

import os
import stat
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .contract import SandboxError

SYSTEM_READ = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
PSEUDO_READ = ("/proc", "/sys")  # read-only pseudo filesystems
DEVICES = "/dev"
PRIVATE_TMP = "/tmp"


@dataclass(frozen=True)
class View:
    """The filesystem a child gets, as absolute real paths."""

    read_roots: tuple[str, ...]  # readable beneath (besides /proc, /sys, /dev and scratch)
    masks: tuple[str, ...]  # covered by an empty tmpfs (a file: by /dev/null)
    keeps: tuple[str, ...]  # read roots inside a mask or /tmp, bound back on top of it
    private: tuple[str, ...] = ()  # directories above a read root that others cannot traverse


def package_parent() -> str:
    """The directory that holds the ``graders`` package (put on the fork server's sys.path)."""
    return str(Path(__file__).resolve().parent.parent.parent)


def interpreter_roots() -> list[str]:
    """Where this interpreter's own files live (prefixes, stdlib, site-packages)."""
    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    paths = sysconfig.get_paths()
    found.update(
        paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths
    )
    return list(found)


def make_view(hide: Iterable[str], task_paths: Iterable[str]) -> View:
    """The view for children of a runner that must hide ``hide`` and import from ``task_paths``."""
    own = _collapse(
        _real(p)
        for p in [*interpreter_roots(), str(Path(__file__).resolve().parent.parent), *task_paths]
    )
    roots = _collapse([*own, *(_real(p) for p in SYSTEM_READ)])
    hidden = [_real(h) for h in hide if os.path.lexists(h)]
    for h in hidden:
        blocker = next((r for r in roots if _inside(h, r)), None)
        if blocker is not None:
            raise SandboxError(f"cannot hide {h}: the sandbox must read {blocker}")
    private = _private_ancestors(own)
    # /tmp is private at every level that masks, and never readable where none is done.
    masks = [m for m in _collapse([*hidden, *private]) if not _inside(m, PRIVATE_TMP)]
    covered = [*masks, PRIVATE_TMP]  # the levels that mask also give the server its own /tmp
    keeps = tuple(r for r in roots if any(_inside(r, m) and r != m for m in covered))
    return View(
        read_roots=tuple(roots),
        masks=tuple(masks),
        keeps=keeps,
        private=tuple(sorted(set(private))),
    )


def _private_ancestors(roots: Iterable[str]) -> list[str]:
    """Ancestors of ``roots`` that others may not traverse (mode lacks o+x)."""
    private = []
    for root in roots:
        for parent in Path(root).parents:
            if str(parent) != "/" and not os.stat(parent).st_mode & stat.S_IXOTH:
                private.append(str(parent))
    return private


def _real(path: str) -> str:
    return os.path.realpath(path)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _collapse(paths: Iterable[str]) -> list[str]:
    """Existing paths with the ones nested inside another dropped, sorted."""
    kept: list[str] = []
    for path in sorted({p for p in paths if os.path.lexists(p)}):
        if not any(_inside(path, k) for k in kept):
            kept.append(path)
    return kept
