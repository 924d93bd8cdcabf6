"""Scratch directories: one fresh, private, writable directory per job, removed after it."""

from __future__ import annotations

import os
import shutil


def make_scratch(root: str, job: int, uid: int | None) -> str:
    """``root/job-<job>``, empty, mode 0700, owned by the child's ``uid`` when given."""
    scratch = os.path.join(root, f"job-{job}")
    if os.path.lexists(scratch):
        remove_tree(scratch)  # left by a server that was killed mid-job
    os.mkdir(scratch, 0o700)
    if uid is not None:
        os.chown(scratch, uid, uid)
    return scratch


def remove_tree(path: str) -> None:
    """Remove a scratch directory, even one whose subdirectories the job made unreadable."""
    try:
        shutil.rmtree(path)
    except OSError:
        for root, dirs, _files in os.walk(path):
            for name in dirs:
                os.chmod(os.path.join(root, name), 0o700)
        shutil.rmtree(path, ignore_errors=True)
