"""What learner code may reach: the modules it may import, the names it may use.

An allowlist, not a denylist: a module that is not on the course's list (``code_imports``,
else ``DEFAULT_IMPORTS``; an entry ``package.*`` allows the package and every module in
it) is not importable, and the learner is told which line imported it and that the course
can allow it. Refusing is not accusing: an import is never ``integrity``. The default list
holds no tool for reaching into the grading process (``sys``, ``gc``, ``ctypes``,
``inspect``, ``os``, ``torch.library`` ...), and a course should not add one
(docs/threat-model.md). The tables are data; ``learner`` (the compiler) and ``guards``
(the rewritten code's helpers) apply them.
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
    "torch.nn.modules.*",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.autograd",
    "torch.autograd.functional",
    "torch.autograd.grad_mode",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "torch.testing",
    "torch.utils.data",
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
    "io",
    "concurrent.futures",
    "concurrent.futures.*",
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
# The hooks a class statement runs (``super().__init_subclass__(**kwargs)``, as the data
# model's documentation writes it): read only on a class of the learner's, an instance of
# one, or a ``super()`` of either (``Guards._own_class``), where they run on that class.
CLASS_HOOKS = frozenset({"__init_subclass__", "__set_name__", "__class_getitem__"})
# ``object.__setattr__`` and friends: handed out guarded (``Guards._setter``), so that the
# documented idioms (a frozen dataclass's ``__post_init__``, ``super().__setattr__`` in a
# module) work on the learner's own objects and nothing else.
SETTERS = frozenset({"__setattr__", "__delattr__"})
# Special attributes learner code may set on what it created itself (``functools.wraps``
# by hand); anything else special is refused, and on what it did not create is tampering.
OWN_DUNDERS = frozenset(
    {"__name__", "__qualname__", "__doc__", "__module__", "__wrapped__", "__annotations__"}
)
# Private names of allowed modules that are as good as public: read-only functions that
# torch.optim itself calls (its "foreach" implementations).
PUBLIC_PRIVATES = {"torch": ("_foreach_",)}
NAMES_OK = SAFE_DUNDERS | CLASS_HOOKS | {"__all__", "__slots__", "__match_args__", "__post_init__"}
# Hooks a class of graded code may not define: they answer any name (the protocols of raw
# memory included) or any isinstance check (so a class pattern would read any attribute
# of any object).
ATTRIBUTE_HOOKS = frozenset(
    {"__getattr__", "__getattribute__", "__instancecheck__", "__subclasscheck__"}
)
# Names that hand a raw memory address to numpy or torch, whatever object carries them.
RAW_MEMORY = ("__array_interface__", "__array_struct__", "__cuda_array_interface__")
# Attributes of allowed modules graded code may not use: they evaluate strings as code,
# outside this compiler, or hand out the interpreter's frames (whose locals a
# ``StackSummary.extract(..., capture_locals=True)`` would turn into text).
EVALUATES = frozenset(
    {
        ("typing", "get_type_hints"),
        ("typing", "ForwardRef"),
        ("logging", "currentframe"),
        ("traceback", "walk_stack"),
        ("traceback", "walk_tb"),
    }
)
# ``str.format`` reads attributes named in its template (``"{0.__globals__}"``): the names
# in a template learner code formats are held to the rules of an attribute read.
FORMATTERS = frozenset({"format", "format_map"})
INERT_TYPES = (types.FrameType, types.TracebackType, types.CodeType, types.CellType)
GENERATOR_PREFIXES = ("gi_", "cr_", "ag_")
GENERATOR_TYPES = (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)
# The data attributes of those types, read from the types themselves: a class pattern's keyword
# is read by the interpreter on whatever the subject is, where no guard looks at its type,
# so a keyword that is one of these is refused whatever the subject (nested, such a walk
# binds nothing but what it finds at the end: ``object(gi_frame=object(f_back=...))``).
INTERPRETER_ATTRIBUTES = frozenset(
    name
    for kind in (*INERT_TYPES, *GENERATOR_TYPES)
    for name, value in vars(kind).items()
    if type(value) in (types.GetSetDescriptorType, types.MemberDescriptorType)
    and not name.startswith("_")
)

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
