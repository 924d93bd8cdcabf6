"""The torch that computes the truths: which version it is.

A fact of the truth side, not of any cache: the truth cache invalidates its entries by it,
the grading key and every results document, gradebook run and CI workflow record it, and
a cluster's workers are held to the scheduler's.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import metadata


@lru_cache(maxsize=1)
def torch_version() -> str:
    """The installed torch version (the one the sandbox's children import), read without
    importing torch, which takes seconds."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "unknown"
