"""What learner code may reach: the modules it may import, the names it may use.

An allowlist, not a denylist: a module that is not on the course's list (``code_imports``,
else ``DEFAULT_IMPORTS``) is not importable; the modules in ``TAMPERING`` are the tools for
reaching into the grading process, and importing one is a refusal (``integrity``), not a
plain ``ImportError``. The tables are data; ``learner`` (the compiler) and ``guards`` (the
rewritten code's helpers) apply them.
"""

from __future__ import annotations

import types

DEFAULT_IMPORTS = (
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.nn.parameter",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.autograd",
    "torch.autograd.functional",
    "torch.autograd.grad_mode",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "torch.testing",
    "numpy",
    "numpy.linalg",
    "numpy.random",
    "math",
    "random",
    "copy",
    "functools",
    "itertools",
    "collections",
    "collections.abc",
    "typing",
    "dataclasses",
    "warnings",
    "traceback",
    "logging",
    "tempfile",
    "time",
    "contextlib",
)
# Modules whose only use in a learner's answer would be to reach into the grading process.
TAMPERING = frozenset(
    {
        "sys",
        "gc",
        "ctypes",
        "_ctypes",
        "cffi",
        "inspect",
        "signal",
        "threading",
        "_thread",
        "weakref",
        "_weakref",
        "builtins",
        "importlib",
        "pickle",
        "_pickle",
        "marshal",
        "types",
        "code",
        "codeop",
        "dis",
        "faulthandler",
        "resource",
        "mmap",
        "socket",
        "subprocess",
        "multiprocessing",
        "graders",
        "json",
        "torch.library",
        "torch._C",
        "torch.utils.cpp_extension",
        "torch.overrides",
        "torch.utils._python_dispatch",
        "torch.nn.modules.module",
        "torch.optim.optimizer",
        "_io",
        "io",
        "posix",
        "os",
        "pathlib",
        "shutil",
    }
)
# Data-model names learner code may read on any object: none of them leads anywhere new.
SAFE_DUNDERS = frozenset(
    {
        "__init__",
        "__new__",
        "__name__",
        "__qualname__",
        "__module__",
        "__doc__",
        "__class__",
        "__len__",
        "__iter__",
        "__next__",
        "__enter__",
        "__exit__",
        "__call__",
        "__repr__",
        "__str__",
        "__format__",
        "__getitem__",
        "__setitem__",
        "__delitem__",
        "__contains__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__hash__",
        "__bool__",
        "__add__",
        "__sub__",
        "__mul__",
        "__truediv__",
        "__floordiv__",
        "__mod__",
        "__pow__",
        "__matmul__",
        "__neg__",
        "__pos__",
        "__abs__",
        "__iadd__",
        "__isub__",
        "__imul__",
        "__itruediv__",
        "__radd__",
        "__rsub__",
        "__rmul__",
        "__rtruediv__",
        "__float__",
        "__int__",
        "__index__",
        "__version__",
    }
)
NAMES_OK = SAFE_DUNDERS | {"__all__", "__slots__"}
ATTRIBUTE_HOOKS = frozenset({"__getattr__", "__getattribute__"})
# Names that hand a raw memory address to numpy or torch, whatever object carries them.
RAW_MEMORY = ("__array_interface__", "__array_struct__", "__cuda_array_interface__")
# Attributes of allowed modules that evaluate strings as code, outside this compiler.
EVALUATES = frozenset({("typing", "get_type_hints"), ("typing", "ForwardRef")})
INERT_TYPES = (types.FrameType, types.TracebackType, types.CodeType, types.CellType)
GENERATOR_PREFIXES = ("gi_", "cr_", "ag_")

# Builtins learner code does not get: they wait for a person or describe the interpreter.
WITHOUT_BUILTINS = frozenset(
    {
        "breakpoint",
        "input",
        "help",
        "exit",
        "quit",
        "copyright",
        "credits",
        "license",
        "__loader__",
        "__spec__",
        "__package__",
    }
)
