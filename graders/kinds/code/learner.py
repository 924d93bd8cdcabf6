"""Learner code runs under an allowlist: what it may import, and which attributes it may reach.

Every piece of learner source is compiled here, and only here (``compile_learner``): the
source is parsed, checked, and rewritten so that

- every attribute read ``obj.name`` becomes ``__graders_attr__(obj, "name")``, which refuses
  private names (``_x`` on a module, a class or a function; any ``__dunder__`` but a few
  harmless ones), every attribute of a frame, traceback, code object or cell, and any
  module that is not on the allowlist (``torch.os``, ``torch.library``, ``logging.sys``);
- every attribute write or delete ``obj.name = v`` first passes ``obj`` through
  ``__graders_write__``, which refuses modules, classes that learner code did not create,
  and dunder names (``torch.equal = ...``, ``Tensor.backward = ...``, ``f.__code__ = ...``);
- ``import`` goes through ``__graders_import__``: only the course's allowlist of modules
  (``from m import *`` is expanded here, at compile time, into the allowed names).

The learner's namespace gets builtins of its own: the guarded ``getattr``/``setattr``/
``delattr``/``hasattr``/``vars``, ``exec``/``eval``/``compile`` that compile through here
(so code the learner builds at run time is learner code too), an ``open`` that takes
paths only, and no ``breakpoint``/``input``/``__loader__``. Because the rewriting is part of
the compiled code itself, it holds wherever that code runs: in a hook, a finalizer, a
``__del__``, a ``__str__`` the grader calls. That is what "learner code" means here: code
compiled from learner source (its file name is ``LEARNER_FILE``, which nothing else uses).

What learner code is refused is recorded in ``refusals()`` (the guard's verdict reads it)
and raised as ``NotAllowed``, a ``BaseException``: catching it changes nothing, the record
stays. An import of a module that is merely not on the list is an ``ImportError`` the
learner sees; an import of a tool for reaching into the process (``sys``, ``ctypes``,
``gc``, the grader's own package ...) is a refusal.
"""

from __future__ import annotations

import ast
import builtins
import dis
import importlib
import os
import sys
import types
from collections.abc import Iterable
from typing import Any

LEARNER_FILE = "<your code>"
ATTR, WRITE = "__graders_attr__", "__graders_write__"
RESERVED = "__graders"
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


class NotAllowed(BaseException):
    """Learner code reached for something graded code may not touch (recorded; see module)."""


class Refusals:
    """What learner code was refused, in order (only this module and the guard hold it)."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def refuse(self, reason: str) -> NotAllowed:
        if reason not in self.found:
            self.found.append(reason)
        return NotAllowed(reason)


_REFUSALS = Refusals()
_LEARNER_CLASSES: dict[int, type] = {}  # id -> class, for every class learner code created
_LEARNER_CODE: dict[int, types.CodeType] = {}  # code objects compiled here
_real_getattr, _real_setattr, _real_delattr, _real_type = (
    builtins.getattr,
    builtins.setattr,
    builtins.delattr,
    builtins.type,
)
_real_compile, _real_exec, _real_eval = builtins.compile, builtins.exec, builtins.eval
_real_build_class, _real_isinstance, _real_import = (
    builtins.__build_class__,
    builtins.isinstance,
    builtins.__import__,
)
_module_name: Any = vars(types.ModuleType)["__dict__"].__get__
_getframe = sys._getframe
_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def refusals() -> list[str]:
    """Everything learner code was refused since ``forget_refusals``."""
    return list(_REFUSALS.found)


def forget_refusals() -> None:
    """Start a fresh record (each job does; in the sandbox each job is a fresh child anyway)."""
    _REFUSALS.found.clear()


# -- compiling -----------------------------------------------------------------------------


class InvalidSource(ValueError):
    """The source cannot be graded as written (a reserved name, an import form we refuse)."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.lineno = line


def compile_learner(
    source: str | ast.AST, mode: str = "exec", allowed: Iterable[str] = DEFAULT_IMPORTS
) -> types.CodeType:
    """Learner source -> code object, rewritten as the module docstring says.

    Raises ``SyntaxError`` for source that is not Python and ``InvalidSource`` for
    source that uses the grader's reserved names.
    """
    tree = ast.parse(source, LEARNER_FILE, mode) if isinstance(source, str) else source
    tree = _Rewriter(frozenset(allowed)).visit(tree)
    ast.fix_missing_locations(tree)
    code = _real_compile(tree, LEARNER_FILE, mode, dont_inherit=True)
    _remember(code)
    return code


def _remember(code: types.CodeType) -> None:
    _LEARNER_CODE[id(code)] = code
    for const in code.co_consts:
        if _real_type(const) is types.CodeType:
            _remember(const)


class _Rewriter(ast.NodeTransformer):
    def __init__(self, allowed: frozenset[str]) -> None:
        self.allowed = allowed
        self.classes: list[str] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self._name(node.name, node)
        self.classes.append(node.name)
        try:
            return self.generic_visit(node)
        finally:
            self.classes.pop()

    def visit_Name(self, node: ast.Name) -> ast.AST:
        self._name(node.id, node)
        if node.id.startswith("__") and node.id.endswith("__") and node.id not in NAMES_OK:
            raise InvalidSource(f"`{node.id}` is not available in graded code", node.lineno)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self._name(node.name, node)
        if self.classes and node.name in ATTRIBUTE_HOOKS:
            # Such a hook answers any name, the protocols of raw memory included.
            raise InvalidSource(f"a class in graded code may not define `{node.name}`", node.lineno)
        return self.generic_visit(node)

    def visit_MatchValue(self, node: ast.MatchValue) -> ast.AST:
        return self._pattern(node, node.value)

    def visit_MatchClass(self, node: ast.MatchClass) -> ast.AST:
        return self._pattern(node, node.cls)

    def _pattern(self, node: ast.AST, lookup: ast.expr) -> ast.AST:
        # A pattern's dotted name is looked up by the interpreter, not by the guards.
        if isinstance(lookup, ast.Attribute):
            raise InvalidSource(
                "match patterns in graded code may use plain names and literals only",
                getattr(node, "lineno", None),
            )
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_arg(self, node: ast.arg) -> ast.AST:
        self._name(node.arg, node)
        return self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str) and any(name in node.value for name in RAW_MEMORY):
            raise InvalidSource(
                "graded code may not hand raw memory to numpy or torch",
                getattr(node, "lineno", None),
            )
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        name = self._mangled(node.attr)
        if isinstance(node.ctx, ast.Load):
            call = ast.Call(ast.Name(ATTR, ast.Load()), [node.value, ast.Constant(name)], [])
            return ast.copy_location(call, node)
        node.value = ast.copy_location(
            ast.Call(ast.Name(WRITE, ast.Load()), [node.value, ast.Constant(name)], []), node.value
        )
        node.attr = name
        return node

    def visit_Import(self, node: ast.Import) -> ast.AST:
        for alias in node.names:
            self._name(alias.asname or alias.name, node)
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        if node.level:
            raise InvalidSource("relative imports are not available in graded code", node.lineno)
        if any(alias.name == "*" for alias in node.names):
            node.names = [
                ast.alias(name)
                for name in _star_names(node.module or "", self.allowed, node.lineno)
            ]
        for alias in node.names:
            self._name(alias.asname or alias.name, node)
        return node

    def _name(self, name: str, node: ast.AST) -> None:
        if name.startswith(RESERVED):
            raise InvalidSource(
                f"`{name}` is a name the grader reserves", getattr(node, "lineno", None)
            )

    def _mangled(self, name: str) -> str:
        # Python mangles ``self.__x`` inside ``class C`` to ``_C__x``; a string would not be.
        if self.classes and name.startswith("__") and not name.endswith("__"):
            return f"_{self.classes[-1].lstrip('_')}{name}"
        return name


def _star_names(module: str, allowed: frozenset[str], line: int) -> list[str]:
    """The names ``from module import *`` would bind, less what learner code may not reach."""
    if module not in allowed:
        raise InvalidSource(
            f"`from {module} import *`: {module} is not available in graded code", line
        )
    found = importlib.import_module(module)
    names = _real_getattr(found, "__all__", None) or [
        n for n in vars(found) if not n.startswith("_")
    ]
    return [n for n in names if _reachable(found, n, allowed)]


def _reachable(module: Any, name: str, allowed: frozenset[str]) -> bool:
    value = _real_getattr(module, name, None)
    if _real_isinstance(value, types.ModuleType):
        return _name_of(value) in allowed
    return not name.startswith("_") and (_name_of(module), name) not in EVALUATES


# -- the rewritten code's helpers ----------------------------------------------------------


def _name_of(module: Any) -> str:
    name = _module_name(module).get("__name__")
    return name if _real_type(name) is str else "?"


class Guards:
    """The helpers one namespace's rewritten code calls, bound to the course's allowlist."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = frozenset(allowed)
        self.builtins = self.make_builtins()

    def attr(self, obj: Any, name: Any, *default: Any) -> Any:
        self.check_read(obj, name)
        value = _real_getattr(obj, name, *default)
        if _real_isinstance(value, types.ModuleType) and _name_of(value) not in self.allowed:
            raise _REFUSALS.refuse(
                f"reached the module `{_name_of(value)}`, which graded code may not use"
            )
        return value

    def check_read(self, obj: Any, name: Any) -> None:
        if _real_type(name) is not str:
            raise TypeError("attribute name must be a string")
        kind = _real_type(obj)
        if kind in INERT_TYPES:
            raise _REFUSALS.refuse(
                f"looked inside a {kind.__name__} (`.{name}`), which graded code may not do"
            )
        if name.startswith(GENERATOR_PREFIXES) and kind in (
            types.GeneratorType,
            types.CoroutineType,
            types.AsyncGeneratorType,
        ):
            raise _REFUSALS.refuse(f"looked inside a generator's frame (`.{name}`)")
        if name.startswith("__") and name.endswith("__"):
            if name not in SAFE_DUNDERS:
                raise _REFUSALS.refuse(
                    f"used the special attribute `{name}`, which graded code may not use"
                )
        elif name.startswith("_") and self._closed(obj):
            raise _REFUSALS.refuse(f"used the private attribute `{_label(obj)}.{name}`")
        if _real_isinstance(obj, types.ModuleType) and (_name_of(obj), name) in EVALUATES:
            raise _REFUSALS.refuse(f"used `{_name_of(obj)}.{name}`, which evaluates text as code")

    def _closed(self, obj: Any) -> bool:
        """Modules, classes and functions keep their private names: instances may be inspected."""
        return (
            _real_isinstance(
                obj,
                (
                    types.ModuleType,
                    type,
                    types.FunctionType,
                    types.BuiltinFunctionType,
                    types.MethodType,
                ),
            )
            and id(obj) not in _LEARNER_CLASSES
        )

    def write(self, obj: Any, name: Any) -> Any:
        if _real_type(name) is not str:
            raise TypeError("attribute name must be a string")
        if _real_isinstance(obj, types.ModuleType):
            raise _REFUSALS.refuse(
                f"changed `{_name_of(obj)}.{name}`: graded code may not change modules"
            )
        if _real_isinstance(obj, type) and id(obj) not in _LEARNER_CLASSES:
            raise _REFUSALS.refuse(
                f"changed the class `{_label(obj)}` (`.{name}`): "
                "graded code may change only its own classes"
            )
        if _real_type(obj) in INERT_TYPES or (name.startswith("__") and name.endswith("__")):
            raise _REFUSALS.refuse(
                f"set the special attribute `{name}`, which graded code may not set"
            )
        return obj

    def setattr(self, obj: Any, name: Any, value: Any) -> None:
        _real_setattr(self.write(obj, name), name, value)

    def delattr(self, obj: Any, name: Any) -> None:
        _real_delattr(self.write(obj, name), name)

    def hasattr(self, obj: Any, name: Any) -> bool:
        try:
            self.attr(obj, name)
        except AttributeError:
            return False
        return True

    def vars(self, *args: Any) -> dict[str, Any]:
        if not args:
            return self.locals()
        (obj,) = args
        if self._closed(obj) or _real_type(obj) in INERT_TYPES:
            raise _REFUSALS.refuse(f"listed the attributes of `{_label(obj)}` with vars()")
        found: dict[str, Any] = builtins.vars(obj)
        return found

    def import_statement(
        self, name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        """The namespace's ``__import__``: an ``import`` in learner code is checked; an import that
        C code of a library makes while a learner frame is current (numpy importing its own
        parts lazily) is that library's, not the learner's."""
        frame = _getframe(1)
        if frame.f_code.co_code[frame.f_lasti] != _IMPORT_NAME:
            return _real_import(name, globals, locals, fromlist, level)
        return self.import_(name, globals, locals, fromlist, level)

    def import_(
        self, name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        """``__import__`` as learner code may call it: only the allowlist."""
        if level:
            raise ImportError("relative imports are not available in graded code")
        for full in [name, *_parents(name)]:
            self._may_import(full)
        module = _real_import(name, None, None, fromlist, 0)
        for item in fromlist or ():
            value = _real_getattr(module, item, None)
            if _real_isinstance(value, types.ModuleType):
                self._may_import(_name_of(value))
            elif item.startswith("_") or (name, item) in EVALUATES:
                raise _REFUSALS.refuse(
                    f"imported `{item}` from {name}, which graded code may not use"
                )
        return module

    def _may_import(self, name: str) -> None:
        if name in self.allowed:
            return
        if (
            name in TAMPERING
            or name.split(".")[0] in TAMPERING
            or any(part.startswith("_") for part in name.split("."))
        ):
            raise _REFUSALS.refuse(
                f"imported `{name}`, a tool for reaching into the grading process"
            )
        raise ImportError(
            f"`import {name}` is not available in graded code; "
            f"it may import: {', '.join(sorted(self.allowed))}"
        )

    def compile(
        self,
        source: Any,
        filename: Any = LEARNER_FILE,
        mode: str = "exec",
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
    ) -> Any:
        if flags & ast.PyCF_ONLY_AST:
            return ast.parse(source, LEARNER_FILE, mode)
        if isinstance(source, bytes):
            source = source.decode()
        if not isinstance(source, (str, ast.AST)):
            raise TypeError("compile() takes source text or a syntax tree")
        return compile_learner(source, mode, self.allowed)

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        code = self._code(source, "exec")
        frame = _getframe(1)
        namespace = frame.f_globals if globals is None else self._namespace(globals)
        _real_exec(
            code, namespace, frame.f_locals if globals is None and locals is None else locals
        )

    def eval(self, source: Any, globals: Any = None, locals: Any = None) -> Any:
        code = self._code(source, "eval")
        frame = _getframe(1)
        namespace = frame.f_globals if globals is None else self._namespace(globals)
        return _real_eval(
            code, namespace, frame.f_locals if globals is None and locals is None else locals
        )

    def _code(self, source: Any, mode: str) -> types.CodeType:
        if _real_type(source) is types.CodeType:
            known = _LEARNER_CODE.get(id(source))
            if known is None or known is not source:
                raise _REFUSALS.refuse(
                    "ran a code object that was not compiled from its own source"
                )
            return known
        code: types.CodeType = self.compile(source, LEARNER_FILE, mode)
        return code

    def _namespace(self, namespace: Any) -> dict[str, Any]:
        if _real_type(namespace) is not dict:
            raise TypeError("globals must be a dict")
        namespace["__builtins__"] = self.builtins  # else Python would insert the real ones
        checked: dict[str, Any] = namespace
        return checked

    def globals(self) -> dict[str, Any]:
        # A copy: a key written into it by name must not shadow the guards in the real one,
        # and its __import__ checks every call (a direct call is always the learner's).
        return {
            **_getframe(1).f_globals,
            "__builtins__": {**self.builtins, "__import__": self.import_},
        }

    def locals(self) -> dict[str, Any]:
        # A copy, without the builtins: see ``globals``.
        frame: Any = _getframe(1)
        frame = frame.f_back if frame.f_code is Guards.vars.__code__ else frame
        return {k: v for k, v in frame.f_locals.items() if k != "__builtins__"}

    def build_class(self, func: Any, name: str, *bases: Any, **kwargs: Any) -> Any:
        cls = _real_build_class(func, name, *bases, **kwargs)
        self.admit_class(cls)
        return cls

    def admit_class(self, cls: Any) -> None:
        if _real_isinstance(cls, type):
            found = [n for n in RAW_MEMORY if n in type.__dict__["__dict__"].__get__(cls)]
            if found:
                raise _REFUSALS.refuse(
                    f"defined `{found[0]}`, which hands raw memory to numpy or torch"
                )
            _LEARNER_CLASSES[id(cls)] = cls

    def open(
        self,
        file: Any,
        mode: str = "r",
        buffering: int = -1,
        encoding: Any = None,
        errors: Any = None,
        newline: Any = None,
        closefd: bool = True,
        opener: Any = None,
    ) -> Any:
        if _real_type(file) is int or opener is not None:
            raise _REFUSALS.refuse(
                "opened a file descriptor by number, which graded code may not do"
            )
        path = os.fsdecode(os.fspath(file))
        real = os.path.realpath(path)
        if real.startswith(("/proc/", "/dev/fd/")) or real in ("/proc", "/dev/fd"):
            raise _REFUSALS.refuse(
                "opened the process's own files under /proc, which graded code may not do"
            )
        return open(path, mode, buffering, encoding, errors, newline, closefd)

    def make_builtins(self) -> dict[str, Any]:
        table = {k: v for k, v in vars(builtins).items() if k not in _WITHOUT}
        table.update(
            {
                "getattr": self.attr,
                "setattr": self.setattr,
                "delattr": self.delattr,
                "hasattr": self.hasattr,
                "vars": self.vars,
                "globals": self.globals,
                "locals": self.locals,
                "__import__": self.import_statement,
                "compile": self.compile,
                "exec": self.exec,
                "eval": self.eval,
                "open": self.open,
                "__build_class__": self.build_class,
                ATTR: self.attr,
                WRITE: self.write,
            }
        )
        return table


_WITHOUT = frozenset(
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


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _label(obj: Any) -> str:
    """A name for ``obj`` read without calling anything learner code may have defined."""
    if _real_isinstance(obj, types.ModuleType):
        return _name_of(obj)
    cls = obj if _real_isinstance(obj, type) else _real_type(obj)
    name = type.__dict__["__qualname__"].__get__(cls)
    return name if _real_type(name) is str else "?"


def namespace(allowed: Iterable[str] = DEFAULT_IMPORTS) -> tuple[dict[str, Any], Guards]:
    """A fresh module namespace for learner code, with its guarded builtins."""
    guards = Guards(allowed)
    return {"__name__": "__main__", "__builtins__": guards.builtins}, guards
