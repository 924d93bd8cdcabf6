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
import sys
import types
from collections.abc import Iterable
from typing import Any

from .allowlist import (
    ATTRIBUTE_HOOKS,
    DEFAULT_IMPORTS,
    EVALUATES,
    NAMES_OK,
    RAW_MEMORY,
)

LEARNER_FILE = "<your code>"
ATTR, WRITE = "__graders_attr__", "__graders_write__"
RESERVED = "__graders"


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


REFUSALS = Refusals()
LEARNER_CLASSES: dict[int, type] = {}  # id -> class, for every class learner code created
LEARNER_CODE: dict[int, types.CodeType] = {}  # code objects compiled here
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
    return list(REFUSALS.found)


def forget_refusals() -> None:
    """Start a fresh record (each job does; in the sandbox each job is a fresh child anyway)."""
    REFUSALS.found.clear()


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
    LEARNER_CODE[id(code)] = code
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
        return module_name(value) in allowed
    return not name.startswith("_") and (module_name(module), name) not in EVALUATES


def module_name(module: Any) -> str:
    """A module's ``__name__``, read from its dict (a module may define ``__getattr__``)."""
    name = _module_name(module).get("__name__")
    return name if _real_type(name) is str else "?"
