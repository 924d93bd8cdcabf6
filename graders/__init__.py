"""graders: grade courses on PyTorch autograd semantics.

The public API is what ``__all__`` lists; everything else is internal and may change.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

# Lazily resolved so that `import graders` (and `graders --help`) never imports torch.
_PUBLIC = {
    "load_course": "graders.load",
    "Submission": "graders.grade",
    "prepare_assignment": "graders.grade",
    "grade_submission": "graders.grade",
    "parse_answer": "graders.answers",
    "compare": "graders.compare",
    "check": "graders.presubmit",
    "GraderError": "graders.errors",
    "SpecError": "graders.errors",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'graders' has no attribute {name!r}")
