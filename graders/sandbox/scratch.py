"""Scratch directories: one fresh, private, writable directory per job, removed after it.

Removal must survive whatever a job left: thousands of nested directories (Python 3.11's
``shutil.rmtree`` and ``os.walk`` recurse, and a deep path is longer than ``PATH_MAX``),
directories it made unreadable, names it chose to collide with ours. ``remove_tree``
therefore never recurses and never follows a path from the top: it works through
directory descriptors, and flattens the tree by moving every subdirectory it meets up to
the top directory, so the work is one loop over directories with O(1) open descriptors.
It never raises; what it cannot remove is renamed out of the way.
"""

from __future__ import annotations

import itertools
import os
import stat

TRASH = ".graders-trash"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def make_scratch(root: str, job: int, uid: int | None) -> str:
    """``root/job-<job>``, empty, mode 0700, owned by the child's ``uid`` when given."""
    scratch = os.path.join(root, f"job-{job}")
    if os.path.lexists(scratch) and not remove_tree(scratch):
        os.rename(
            scratch, os.path.join(root, f"{TRASH}-{job}-{os.getpid()}")
        )  # left by a killed server
    os.mkdir(scratch, 0o700)
    if uid is not None:
        os.chown(scratch, uid, uid)
    return scratch


def remove_tree(path: str) -> bool:
    """Remove ``path`` and everything beneath it; True when it is gone. Never raises."""
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
            return True
        _quietly(os.chmod, path, 0o700, follow_symlinks=False)
        top = os.open(path, _DIR_FLAGS)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        _empty(top)
    finally:
        os.close(top)
    try:
        os.rmdir(path)
    except OSError:
        return False
    return True


def _empty(top: int) -> None:
    """Empty the directory ``top``: its subdirectories are moved up to it, emptied, removed."""
    names = itertools.count()
    pending: list[str | None] = [
        None
    ]  # None is ``top`` itself; the others are names of moved-up directories in it
    while pending:
        name = pending.pop()
        fd = top if name is None else _open_dir(top, name)
        if fd is None:
            continue
        try:
            pending += _clear(fd, top, names)
        finally:
            if fd != top:
                os.close(fd)
        if name is not None:
            _quietly(os.rmdir, name, dir_fd=top)


def _open_dir(parent: int, name: str) -> int | None:
    # The job may have made it unreadable or unwritable (the owner may always chmod).
    _quietly(os.chmod, name, 0o700, dir_fd=parent, follow_symlinks=False)
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError:
        return None


def _clear(fd: int, top: int, names: itertools.count[int]) -> list[str]:
    """Unlink the files of directory ``fd``, move its subdirectories into ``top``: new names."""
    moved: list[str] = []
    try:
        entries = list(os.scandir(fd))
    except OSError:
        return moved
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if not is_dir:
            _quietly(os.unlink, entry.name, dir_fd=fd)
            continue
        if fd == top:
            moved.append(entry.name)  # already a direct child of the top
            continue
        for _attempt in range(5):  # the job may have taken the name we pick
            new = f"{TRASH}-{next(names)}"
            if _quietly(os.rename, entry.name, new, src_dir_fd=fd, dst_dir_fd=top):
                moved.append(new)
                break
    return moved


def _quietly(call: object, *args: object, **kwargs: object) -> bool:
    try:
        call(*args, **kwargs)  # type: ignore[operator]
    except OSError:
        return False
    return True
