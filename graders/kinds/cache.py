"""The on-disk cache of what kinds prepare: truths, reference observations.

Entries are keyed by exercise content hash + seed + torch version, so a course is run
through torch once per change, not once per student or per command.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..sandbox import Limits
    from .base import Context


@lru_cache(maxsize=1)
def torch_version() -> str:
    """The installed torch version, read without importing torch (which takes seconds)."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "unknown"


def cached(
    ctx: Context, name: str, content_hash: str, compute: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """``compute()``'s result, from the course's cache when this content was seen before.

    One cache serves every kind (truths, reference observations). A result holding an
    ``error`` is never stored: a crash or a timeout may be the machine's, not the course's.
    """
    path = _cache_file(ctx, name, content_hash, ctx.course.seed)
    found = _read_cache(path)
    if found is not None:
        return found
    result = compute()
    if not result.get("error"):
        _write_cache(path, result)
    return result


def cached_many(
    ctx: Context,
    entries: Sequence[tuple[str, str]],
    compute: Callable[[list[int]], list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """``cached`` for several entries (name, content hash) at once: ``compute`` gets the
    indexes of those the cache does not hold, and computes them together."""
    paths = [
        _cache_file(ctx, name, content_hash, ctx.course.seed) for name, content_hash in entries
    ]
    found = [_read_cache(path) for path in paths]
    missing = [i for i, result in enumerate(found) if result is None]
    for i, result in zip(missing, compute(missing) if missing else [], strict=True):
        found[i] = result
        if not result.get("error"):
            _write_cache(paths[i], result)
    return [result or {} for result in found]


def course_limits(ctx: Context) -> Limits:
    """The sandbox limits the course asks for."""
    from ..sandbox import Limits

    limits = ctx.course.limits
    return Limits(timeout_s=limits.timeout_s, cpu_s=limits.timeout_s, memory_mib=limits.memory_mib)


def _cache_file(ctx: Context, exercise_id: str, content_hash: str, seed: int) -> Path | None:
    if ctx.cache_dir is None:
        return None
    return (
        ctx.cache_dir
        / "truth"
        / f"{exercise_id}-{content_hash}-s{seed}-torch{torch_version()}.json"
    )


def _read_cache(path: Path | None) -> dict[str, Any] | None:
    if path is None or not path.is_file():
        return None
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # a damaged cache entry is recomputed, not trusted
    return found if isinstance(found, dict) else None


def _write_cache(path: Path | None, data: dict[str, Any]) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)  # atomic: concurrent graders never read half a file
    except OSError:
        pass  # a read-only course folder still grades, only slower
