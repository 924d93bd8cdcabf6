"""The on-disk cache of what kinds prepare in torch: truths, reference observations.

Grading owns it: a kind is handed it as a ``kinds.base.TruthStore`` (``prepare``,
``prepare_many``, ``self_test``) and says only what an entry is named, the hash of what
its result depends on, and how to compute it. The cache adds what invalidates every entry
alike, the course's seed and the torch version, so a course is run through torch once per
change, not once per student or per command::

    <course>/.graders-cache/truth/<name>-<key>-s<seed>-torch<version>.json

A folder of None keeps nothing (``graders ... --no-cache``): every entry is computed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .torch_side import torch_version

if TYPE_CHECKING:
    from ..kinds.base import Context, TruthStore


@dataclass(frozen=True)
class TruthCache:
    """A course's truth cache (``folder``: its ``.graders-cache``, or None for none)."""

    folder: Path | None
    seed: int

    @classmethod
    def of(cls, ctx: Context) -> TruthCache:
        """The cache of the course ``ctx`` opened (its folder, its seed)."""
        return cls(ctx.cache_dir, ctx.course.seed)

    def cached(self, name: str, key: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``compute()``'s result, from the cache when this content was seen before."""
        return self.cached_many([(name, key)], lambda missing: [compute()])[0]

    def cached_many(
        self,
        entries: Sequence[tuple[str, str]],
        compute: Callable[[list[int]], list[dict[str, Any]]],
    ) -> list[dict[str, Any]]:
        """``cached`` for several entries (name, key) at once: ``compute`` gets the indexes
        of those the cache does not hold, and computes them together."""
        paths = [self._file(name, key) for name, key in entries]
        found = [_read(path) for path in paths]
        missing = [i for i, result in enumerate(found) if result is None]
        for i, result in zip(missing, compute(missing) if missing else [], strict=True):
            found[i] = result
            if not result.get("error"):  # a crash or a timeout may be the machine's
                _write(paths[i], result)
        return [result or {} for result in found]

    def _file(self, name: str, key: str) -> Path | None:
        if self.folder is None:
            return None
        return self.folder / "truth" / f"{name}-{key}-s{self.seed}-torch{torch_version()}.json"


def _read(path: Path | None) -> dict[str, Any] | None:
    if path is None or not path.is_file():
        return None
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # a damaged cache entry is recomputed, not trusted
    return found if isinstance(found, dict) else None


def _write(path: Path | None, data: dict[str, Any]) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)  # atomic: concurrent graders never read half a file
    except OSError:
        pass  # a read-only course folder still grades, only slower


if TYPE_CHECKING:  # the type checker holds the cache to what kinds are handed
    _fulfils: TruthStore = TruthCache(None, 0)
