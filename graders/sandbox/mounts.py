"""Mount set-up done by the fork server itself at the "unshare" level.

``unshare`` gives the server private namespaces (mount, pid, net, ipc, uts); this module
then does, with mount(2), what bubblewrap does from its command line: a private
size-capped ``/tmp``, an empty read-only tmpfs over every masked path, and the read roots
inside a mask bound back on top (from file descriptors opened before anything was covered).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence

MS_RDONLY, MS_NOSUID, MS_NODEV = 1, 2, 4
MS_REMOUNT, MS_BIND, MS_REC = 32, 4096, 16384

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = (
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
)


def _mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None
) -> None:
    args = [None if s is None else s.encode() for s in (source, target, fstype)]
    if _libc.mount(*args, flags, None if data is None else data.encode()) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {target}: {os.strerror(errno)}")


def _tmpfs(target: str, size: str, mode: str) -> None:
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode={mode}")


def _make_read_only(target: str) -> None:
    _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def set_up_view(tmp_mib: int, masks: Sequence[str], keeps: Sequence[str]) -> None:
    """Private /tmp of ``tmp_mib`` MiB, ``masks`` covered, ``keeps`` bound back read-only."""
    kept = [(path, os.open(path, os.O_PATH | os.O_CLOEXEC)) for path in keeps]
    try:
        _tmpfs("/tmp", f"{tmp_mib}m", "1777")
        for path in masks:
            if os.path.isdir(path):
                _tmpfs(path, "64k", "755")
            else:
                _mount("/dev/null", path, None, MS_BIND)
        for path, fd in kept:
            _bind_back(path, fd)
        for path in masks:
            _make_read_only(path)
    finally:
        for _path, fd in kept:
            os.close(fd)


def _bind_back(path: str, fd: int) -> None:
    if os.path.isdir(f"/proc/self/fd/{fd}"):
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()
    _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
    _make_read_only(path)
