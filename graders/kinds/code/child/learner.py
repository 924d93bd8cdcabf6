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

Two outcomes are kept apart, because refusing is not accusing:

- **Not available** (``refuse``): an import the course does not allow, a private or special
  name, a process, a socket, a pickled class. Nothing was touched: the learner's code gets
  an ordinary exception (``ImportError``, ``AttributeError``, ``PermissionError``) that it
  may even catch, and, if its code then fails, the feedback names the line and the name
  (``refused()``), and for a module says that the course can allow it. Never ``integrity``.
- **Tampering** (``tamper``): evidence that learner code reached for the grader itself: a
  write to a module or a class it did not create, a frame, a code object it did not
  compile, raw memory. Recorded in ``tampering()`` (the guard's verdict reads it) and
  raised as ``NotAllowed``, a ``BaseException``: catching it changes nothing, the record
  stays, and the exercise is ``integrity``.
"""

from __future__ import annotations

import ast
import builtins
import dis
import importlib
import sys
import types
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .allowlist import (
    ATTRIBUTE_HOOKS,
    DEFAULT_IMPORTS,
    EVALUATES,
    INTERPRETER_ATTRIBUTES,
    NAMES_OK,
    RAW_MEMORY,
)
from .annotations import dotted_last, parsed, plain_type

if TYPE_CHECKING:
    from ....said import Told

LEARNER_FILE = "<your code>"
ATTR, WRITE, BOUND = "__graders_attr__", "__graders_write__", "__graders_bound__"
RESERVED = "__graders"


MAX_REFUSED = 10
# What can be not available, and the exception learner code gets for each.
REFUSED_KINDS = (
    "import",
    "name",
    "process",
    "network",
    "pickle",
    "descriptor",
    "thread",
    "annotation",
)


class NotAllowed(BaseException):
    """Learner code tampered with the grader (recorded; see the module docstring)."""


class NotAvailable(ImportError):
    """An import the course does not allow (an ``ImportError``: learner code may catch it)."""


class NameNotAvailable(AttributeError):
    """A private or special name graded code may not use (an ``AttributeError``)."""


class NotPermitted(PermissionError):
    """Something graded code may not do (a process, a socket, a pickled class)."""


_EXCEPTIONS: dict[str, type[Exception]] = {
    "import": NotAvailable,
    "name": NameNotAvailable,
    "process": NotPermitted,
    "network": NotPermitted,
    "pickle": NotPermitted,
    "descriptor": NotPermitted,
    "thread": NotPermitted,
    "annotation": NotPermitted,
}
_SAID = {
    "import": "the module `{name}` is not available in graded code "
    "(a course can allow it in code_imports)",
    "name": "`{name}` is not available in graded code",
    "process": "graded code may not start another process ({name})",
    "network": "graded code may not use the network ({name})",
    "pickle": "graded code may not load pickled objects ({name})",
    "descriptor": "graded code may not open a file by its descriptor number ({name})",
    "thread": "graded code must not leave a thread running ({name})",
    "annotation": "a type given as text in graded code must be written in its source, "
    "not made while it runs ({name})",
}


class Refusals:
    """What learner code was refused (``refused``: not available) and what it tampered with
    (``found``), in order; only this module, the namespace's guards and the guard hold it."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.refused: list[dict[str, Any]] = []

    def tamper(self, reason: str) -> NotAllowed:
        """Evidence of tampering: recorded, and raised as ``NotAllowed``."""
        if reason not in self.found:
            self.found.append(reason)
        return NotAllowed(reason)

    def refuse(self, kind: str, name: str) -> Exception:
        """Something not available: recorded with the learner's line, returned as the
        ordinary exception of its kind (the caller raises it)."""
        record = {"kind": kind, "name": name[:200], "line": learner_line()}
        if record not in self.refused and len(self.refused) < MAX_REFUSED:
            self.refused.append(record)
        return _EXCEPTIONS[kind](_SAID[kind].format(name=record["name"]))


REFUSALS = Refusals()
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


def tampering() -> list[str]:
    """The evidence of tampering recorded since ``forget_refusals``."""
    return list(REFUSALS.found)


def refused() -> list[dict[str, Any]]:
    """What learner code was refused since ``forget_refusals``: ``{kind, name, line}`` each."""
    return [dict(r) for r in REFUSALS.refused]


def forget_refusals() -> None:
    """Start a fresh record (each job does; in the sandbox each job is a fresh child anyway)."""
    REFUSALS.found.clear()
    REFUSALS.refused.clear()


def learner_line() -> int | None:
    """The line of learner code running now: the innermost frame compiled from learner
    source (its ``f_lineno``, a C-level read of a real frame), else None."""
    frame: Any = _getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == LEARNER_FILE:
            line: int | None = frame.f_lineno
            return line
        frame = frame.f_back
    return None


def allows(allowed: frozenset[str], name: str) -> bool:
    """Is the module ``name`` on the list ``allowed`` (itself, or inside a ``package.*``)?"""
    if name in allowed:
        return True
    parts = name.split(".")
    return any(".".join(parts[:i]) + ".*" in allowed for i in range(1, len(parts) + 1))


def leads_to(allowed: frozenset[str], name: str) -> bool:
    """Is ``name`` a package on the way to a listed module (``concurrent`` for
    ``concurrent.futures``, ``torch.utils`` for ``torch.utils.data``)? A listed module
    imports whether or not its parents are listed; such a parent may be named and walked
    through to the modules listed in it, and nothing else of it is read."""
    prefix = name + "."
    return any(entry.startswith(prefix) for entry in allowed)


def reachable(allowed: frozenset[str], name: str) -> bool:
    """May learner code hold the module ``name``: listed, or on the way to one that is?"""
    return allows(allowed, name) or leads_to(allowed, name)


def is_a(obj: Any, kinds: Any, issubclass: Any = issubclass) -> bool:
    """``isinstance`` without asking ``obj``: a learner's ``__class__`` property is never called
    (``type`` is read from the object itself, and ``kinds`` are the grader's own types)."""
    return bool(issubclass(_real_type(obj), kinds))


# -- compiling -----------------------------------------------------------------------------


class InvalidSource(ValueError):
    """The source cannot be graded as written (a reserved name, an import form we refuse)."""

    def __init__(self, message: Told, line: int | None) -> None:
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
        self.strings = False  # ``from __future__ import annotations``: every one a string

    def visit_Module(self, node: ast.Module) -> ast.AST:
        self.strings = any(
            isinstance(s, ast.ImportFrom)
            and s.module == "__future__"
            and any(a.name == "annotations" for a in s.names)
            for s in node.body
        )
        return self.generic_visit(node)

    def _annotation(self, node: ast.expr | None, line: int | None) -> None:
        """An annotation library code may evaluate as a string must be a plain type (every
        one under ``from __future__ import annotations``, else every string in one), and
        each string is rewritten as learner source is: ``typing`` then evaluates
        ``__graders_attr__(torch, 'Tensor')``, its reads guarded as learner code's are."""
        if node is None:
            return
        literal = {
            id(c)
            for n in ast.walk(node)
            if isinstance(n, ast.Subscript) and dotted_last(n.value) == "Literal"
            for c in ast.walk(n.slice)
        }
        strings = [
            c
            for c in ast.walk(node)
            if isinstance(c, ast.Constant) and isinstance(c.value, str) and id(c) not in literal
        ]
        if (self.strings and not plain_type(node, True)) or not all(map(plain_type, strings)):
            raise InvalidSource(
                "an annotation in graded code must be a type (names, dots and brackets), "
                "not an expression",
                line,
            )
        for c in strings:
            inner = parsed(str(c.value))
            if inner is not None:
                c.value = ast.unparse(self.visit(inner))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        self._annotation(node.annotation, node.lineno)
        return self.generic_visit(node)

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
        self._annotation(node.returns, node.lineno)
        if self.classes and node.name in ATTRIBUTE_HOOKS:
            # Such a hook answers any name, the protocols of raw memory included.
            raise InvalidSource(f"a class in graded code may not define `{node.name}`", node.lineno)
        return self.generic_visit(node)

    def visit_MatchValue(self, node: ast.MatchValue) -> ast.AST:
        return self._pattern(node, node.value)

    def visit_MatchClass(self, node: ast.MatchClass) -> ast.AST:
        # The interpreter reads a keyword pattern's attribute from the subject itself.
        for name in node.kwd_attrs:
            if name.startswith("_") or name in INTERPRETER_ATTRIBUTES:
                raise InvalidSource(
                    f"a match pattern in graded code may not read `{name}`", node.lineno
                )
        return self._pattern(node, node.cls)

    def _pattern(self, node: ast.AST, lookup: ast.expr) -> ast.AST:
        # A pattern's dotted name (``case torch.Tensor():``) is looked up by the interpreter,
        # not by the guards: each of its parts must be a public name.
        part = lookup
        while isinstance(part, ast.Attribute):
            if part.attr.startswith("_"):
                raise InvalidSource(
                    f"a match pattern in graded code may not use `{part.attr}`",
                    getattr(node, "lineno", None),
                )
            part = part.value
        if isinstance(part, ast.Name):
            self.visit_Name(part)  # reserved and special names, as anywhere else
        if isinstance(node, ast.MatchClass):  # the sub-patterns, not the looked-up name
            node.patterns = [self.visit(p) for p in node.patterns]
            node.kwd_patterns = [self.visit(p) for p in node.kwd_patterns]
        return node

    def visit_match_case(self, node: ast.match_case) -> ast.AST:
        """What a class pattern binds was read by the interpreter, not through the guards:
        the case checks it (``__graders_bound__``) before its guard and its body run."""
        self.generic_visit(node)
        if not any(isinstance(p, ast.MatchClass) for p in ast.walk(node.pattern)):
            return node
        names = sorted(
            {
                n.name
                for n in ast.walk(node.pattern)
                if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name
            }
            | {n.rest for n in ast.walk(node.pattern) if isinstance(n, ast.MatchMapping) and n.rest}
        )
        if not names:
            return node
        check = ast.Call(ast.Name(BOUND, ast.Load()), [ast.Name(n, ast.Load()) for n in names], [])
        node.guard = check if node.guard is None else ast.BoolOp(ast.And(), [check, node.guard])
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        # ``__match_args__`` names the attributes a class pattern reads: public names only.
        if self.classes and any(
            isinstance(t, ast.Name) and t.id == "__match_args__" for t in node.targets
        ):
            value = node.value
            if not (
                isinstance(value, ast.Tuple)
                and all(
                    isinstance(e, ast.Constant)
                    and isinstance(e.value, str)
                    and not e.value.startswith("_")
                    for e in value.elts
                )
            ):
                raise InvalidSource(
                    "`__match_args__` in graded code must be a tuple of public names",
                    node.lineno,
                )
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_arg(self, node: ast.arg) -> ast.AST:
        self._name(node.arg, node)
        self._annotation(node.annotation, getattr(node, "lineno", None))
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
    if not allows(allowed, module):
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
        return reachable(allowed, module_name(value))
    return not name.startswith("_") and (module_name(module), name) not in EVALUATES


def module_name(module: Any) -> str:
    """A module's ``__name__``, read from its dict (a module may define ``__getattr__``)."""
    name = _module_name(module).get("__name__")
    return name if _real_type(name) is str else "?"
