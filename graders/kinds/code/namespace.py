"""The helpers rewritten learner code calls: guarded attribute access, imports and builtins.

``learner.compile_learner`` turns ``obj.name`` into ``__graders_attr__(obj, "name")`` and
``import m`` into a call of the namespace's ``__import__``; ``Guards`` is what those names
are bound to, one instance per namespace, holding the course's allowlist. A refusal is
recorded in ``learner.REFUSALS`` and raised as ``NotAllowed`` (see ``learner``).
"""

from __future__ import annotations

import ast
import builtins
import os
import types
from collections.abc import Iterable
from typing import Any

from .allowlist import (
    DEFAULT_IMPORTS,
    EVALUATES,
    GENERATOR_PREFIXES,
    INERT_TYPES,
    RAW_MEMORY,
    SAFE_DUNDERS,
    WITHOUT_BUILTINS,
)
from .imports import Imports
from .learner import (  # the originals, taken before any learner code ran
    ATTR,
    LEARNER_CLASSES,
    LEARNER_CODE,
    LEARNER_FILE,
    REFUSALS,
    WRITE,
    _getframe,
    _real_build_class,
    _real_delattr,
    _real_eval,
    _real_exec,
    _real_getattr,
    _real_isinstance,
    _real_setattr,
    _real_type,
    compile_learner,
    module_name,
)


class Guards:
    """The helpers one namespace's rewritten code calls, bound to the course's allowlist."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = frozenset(allowed)
        self.imports = Imports(self.allowed)
        self.builtins = self.make_builtins()

    def attr(self, obj: Any, name: Any, *default: Any) -> Any:
        self.check_read(obj, name)
        value = _real_getattr(obj, name, *default)
        if _real_isinstance(value, types.ModuleType) and module_name(value) not in self.allowed:
            raise REFUSALS.refuse(
                f"reached the module `{module_name(value)}`, which graded code may not use"
            )
        return value

    def check_read(self, obj: Any, name: Any) -> None:
        if _real_type(name) is not str:
            raise TypeError("attribute name must be a string")
        kind = _real_type(obj)
        if kind in INERT_TYPES:
            raise REFUSALS.refuse(
                f"looked inside a {kind.__name__} (`.{name}`), which graded code may not do"
            )
        if name.startswith(GENERATOR_PREFIXES) and kind in (
            types.GeneratorType,
            types.CoroutineType,
            types.AsyncGeneratorType,
        ):
            raise REFUSALS.refuse(f"looked inside a generator's frame (`.{name}`)")
        if name.startswith("__") and name.endswith("__"):
            if name not in SAFE_DUNDERS:
                raise REFUSALS.refuse(
                    f"used the special attribute `{name}`, which graded code may not use"
                )
        elif name.startswith("_") and self._closed(obj):
            raise REFUSALS.refuse(f"used the private attribute `{_label(obj)}.{name}`")
        if _real_isinstance(obj, types.ModuleType) and (module_name(obj), name) in EVALUATES:
            raise REFUSALS.refuse(f"used `{module_name(obj)}.{name}`, which evaluates text as code")

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
            and id(obj) not in LEARNER_CLASSES
        )

    def write(self, obj: Any, name: Any) -> Any:
        if _real_type(name) is not str:
            raise TypeError("attribute name must be a string")
        if _real_isinstance(obj, types.ModuleType):
            raise REFUSALS.refuse(
                f"changed `{module_name(obj)}.{name}`: graded code may not change modules"
            )
        if _real_isinstance(obj, type) and id(obj) not in LEARNER_CLASSES:
            raise REFUSALS.refuse(
                f"changed the class `{_label(obj)}` (`.{name}`): "
                "graded code may change only its own classes"
            )
        if _real_type(obj) in INERT_TYPES or (name.startswith("__") and name.endswith("__")):
            raise REFUSALS.refuse(
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
            raise REFUSALS.refuse(f"listed the attributes of `{_label(obj)}` with vars()")
        found: dict[str, Any] = builtins.vars(obj)
        return found

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
            known = LEARNER_CODE.get(id(source))
            if known is None or known is not source:
                raise REFUSALS.refuse("ran a code object that was not compiled from its own source")
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
            "__builtins__": {**self.builtins, "__import__": self.imports.call},
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
                raise REFUSALS.refuse(
                    f"defined `{found[0]}`, which hands raw memory to numpy or torch"
                )
            LEARNER_CLASSES[id(cls)] = cls

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
            raise REFUSALS.refuse(
                "opened a file descriptor by number, which graded code may not do"
            )
        path = os.fsdecode(os.fspath(file))
        real = os.path.realpath(path)
        if real.startswith(("/proc/", "/dev/fd/")) or real in ("/proc", "/dev/fd"):
            raise REFUSALS.refuse(
                "opened the process's own files under /proc, which graded code may not do"
            )
        return open(path, mode, buffering, encoding, errors, newline, closefd)

    def make_builtins(self) -> dict[str, Any]:
        table = {k: v for k, v in vars(builtins).items() if k not in WITHOUT_BUILTINS}
        table.update(
            {
                "getattr": self.attr,
                "setattr": self.setattr,
                "delattr": self.delattr,
                "hasattr": self.hasattr,
                "vars": self.vars,
                "globals": self.globals,
                "locals": self.locals,
                "__import__": self.imports.statement,
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


def _label(obj: Any) -> str:
    """A name for ``obj`` read without calling anything learner code may have defined."""
    if _real_isinstance(obj, types.ModuleType):
        return module_name(obj)
    cls = obj if _real_isinstance(obj, type) else _real_type(obj)
    name = type.__dict__["__qualname__"].__get__(cls)
    return name if _real_type(name) is str else "?"


def namespace(allowed: Iterable[str] = DEFAULT_IMPORTS) -> tuple[dict[str, Any], Guards]:
    """A fresh module namespace for learner code, with its guarded builtins."""
    guards = Guards(allowed)
    return {"__name__": "__main__", "__builtins__": guards.builtins}, guards
