"""graders: grade courses on PyTorch autograd semantics.

The public API is what ``__all__`` lists; everything else is internal and may change.
"""

from importlib import import_module as _import_module

__version__ = "0.1.0"
# The distribution's name on package indexes: `graders` there is an unrelated project. The
# import package and the command are `graders`.
__distribution__ = "autograd-graders"

# Lazily resolved so that `import graders` (and `graders --help`) never imports torch.
_PUBLIC = {
    "GraderError": "graders.errors",
    "SpecError": "graders.errors",
    "Submission": "graders.kinds.base",
    "check": "graders.notebook.presubmit",
    "compare": "graders.answers.compare",
    "grade_submission": "graders.grading.pipeline",
    "load_course": "graders.course.load",
    "open_workspace": "graders.workspace",
    "parse_answer": "graders.answers.parse",
    "prepare_assignment": "graders.grading.pipeline",
    "submit": "graders.notebook.submit",
}

__all__ = sorted(["__version__", *_PUBLIC], key=str.casefold)


def __getattr__(name: str) -> object:
    if name in _PUBLIC:
        return getattr(_import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'graders' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
