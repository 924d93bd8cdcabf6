"""One truth cache for every copy of a course this test process makes.

A test copies a course to change it without touching the repository; each copy would then
run torch again for every truth it needs (the cache lives in the course's folder). The
cache is keyed by each exercise's content, seed and torch version, so copies of the same
exercises can share one: ``share_truths(root)`` points the copy's ``.graders-cache`` at a
folder of this process, made on first use and removed at exit. An exercise a test changes
has another key and is computed for it alone.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

_FOLDER: list[Path] = []


def share_truths(root: Path) -> Path:
    """Point ``root``'s truth cache at this process's shared one; return ``root``."""
    if not _FOLDER:
        _FOLDER.append(Path(tempfile.mkdtemp(prefix="graders-test-truths-")))
        atexit.register(shutil.rmtree, _FOLDER[0], True)
    (root / ".graders-cache").symlink_to(_FOLDER[0], target_is_directory=True)
    return root
