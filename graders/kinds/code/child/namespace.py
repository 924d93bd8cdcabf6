"""The helpers rewritten learner code calls: guarded attribute access, imports and builtins.

``learner.compile_learner`` turns ``obj.name`` into ``__graders_attr__(obj, "name")`` and
``import m`` into a call of the namespace's ``__import__``; ``Guards`` is what those names
are bound to, one instance per namespace, holding the course's allowlist. What is not
available is refused with an ordinary exception and recorded; what is evidence of
tampering is raised as ``NotAllowed`` (see ``learner``). The guards never call anything
learner code may have defined: types are read with ``type()``, never ``isinstance`` (which
would ask a learner's ``__class__`` property).
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]  # str.format's own field parser
import ast
import builtins
import os
import re
import string
import types
from collections.abc import Iterable
from typing import Any

from .allowlist import (
    CLASS_HOOKS,
    DEFAULT_IMPORTS,
    EVALUATES,
    FORMATTERS,
    GENERATOR_PREFIXES,
    INERT_TYPES,
    OWN_DUNDERS,
    PUBLIC_PRIVATES,
    RAW_MEMORY,
    SAFE_DUNDERS,
    SETTERS,
    WITHOUT_BUILTINS,
)
from .imports import Imports
from .learner import (  # the originals, taken before any learner code ran
    ATTR,
    BOUND,
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
    _real_setattr,
    _real_type,
    allows,
    compile_learner,
    is_a,
    module_name,
    reachable,
)
from .ownership import learners, made_here, own_from_now

_super_self = vars(super)["__self__"].__get__
_FORMATTER = string.Formatter()
_PROC_SELF = re.compile(r"/proc/(self|thread-self|\d+)(/|$)")


class Guards:
    """The helpers one namespace's rewritten code calls, bound to the course's allowlist."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = frozenset(allowed)
        self.imports = Imports(self.allowed)
        self.builtins = self.make_builtins()

    def attr(self, obj: Any, name: Any, *default: Any) -> Any:
        self.check_read(obj, name)
        if name in SETTERS:
            return self._setter(obj, name)
        if name in FORMATTERS and (obj is str or _real_type(obj) is str):
            return self._formatter(obj, name)
        value = _real_getattr(obj, name, *default)
        if is_a(value, types.ModuleType):
            if not reachable(self.allowed, module_name(value)):
                raise REFUSALS.refuse("import", module_name(value))
        elif is_a(obj, types.ModuleType) and not allows(self.allowed, module_name(obj)):
            # A package only on the way to a listed module: its modules, nothing else.
            raise REFUSALS.refuse("name", f"{module_name(obj)}.{name}")
        return value

    def check_read(self, obj: Any, name: Any) -> None:
        if _real_type(name) is not str:
            raise TypeError("attribute name must be a string")
        if not name.isidentifier():  # code generators (torch.fx) write names into code
            raise REFUSALS.refuse("name", repr(name)[:80])
        kind = _real_type(obj)
        if kind in INERT_TYPES:
            raise REFUSALS.tamper(
                f"looked inside a {kind.__name__} (`.{name}`), which graded code may not do"
            )
        if name.startswith(GENERATOR_PREFIXES) and kind in (
            types.GeneratorType,
            types.CoroutineType,
            types.AsyncGeneratorType,
        ):
            raise REFUSALS.tamper(f"looked inside a generator's frame (`.{name}`)")
        if name.startswith("__") and name.endswith("__"):
            if name in CLASS_HOOKS and self._own_class(obj):
                return
            if name not in SAFE_DUNDERS and name not in SETTERS:
                raise REFUSALS.refuse("name", f"{_label(obj)}.{name}")
        elif name.startswith("_") and self._closed(obj) and not self._public(obj, name):
            raise REFUSALS.refuse("name", f"{_label(obj)}.{name}")
        if is_a(obj, types.ModuleType) and (module_name(obj), name) in EVALUATES:
            raise REFUSALS.refuse("name", f"{module_name(obj)}.{name}")

    def _closed(self, obj: Any) -> bool:
        """Modules, classes and functions keep their private names: instances may be inspected."""
        return is_a(
            obj,
            (
                types.ModuleType,
                type,
                types.FunctionType,
                types.BuiltinFunctionType,
                types.MethodType,
            ),
        ) and not learners(obj)

    def _own_class(self, obj: Any) -> bool:
        """Is the class ``obj`` speaks for (itself, its type, a ``super()``'s object's) the
        learner's? A class hook (``__init_subclass__``) read there runs on that class
        only, whichever class of its MRO defines it: on the grader's, ``typing.Generic``'s
        would rewrite the grader's class."""
        target = _super_self(obj) if _real_type(obj) is super else obj
        return made_here(target if is_a(target, type) else _real_type(target))

    def _public(self, obj: Any, name: str) -> bool:
        """A private name that is as good as public: torch's read-only functions that
        ``torch.optim`` itself uses (``torch._foreach_add``), and a class of an allowed
        module (``nn.modules.batchnorm._BatchNorm``, for ``isinstance``)."""
        if not is_a(obj, types.ModuleType) or not allows(self.allowed, module_name(obj)):
            return False
        if any(name.startswith(p) for p in PUBLIC_PRIVATES.get(module_name(obj), ())):
            return True
        value = vars(obj).get(name)
        return is_a(value, type)

    def _setter(self, obj: Any, name: str) -> Any:
        """``object.__setattr__``, ``super().__setattr__``, ``x.__delattr__``: the real one,
        called only on what graded code may write (``write``)."""
        real = _real_getattr(obj, name)
        guards = self
        if is_a(obj, type):  # unbound: object.__setattr__(target, attr, value)

            def unbound(target: Any, attr: Any, *value: Any) -> Any:
                guards.write(target, attr)
                return real(target, attr, *value)

            return unbound
        target = _super_self(obj) if _real_type(obj) is super else obj

        def bound(attr: Any, *value: Any) -> Any:
            guards.write(target, attr)
            return real(attr, *value)

        return bound

    def _formatter(self, obj: Any, name: str) -> Any:
        """``str.format``/``format_map`` whose template's fields are read through the
        guards: each attribute a field names (``{0.a.b}``) is an attribute read of learner
        code, held to the same rules on the object it is read from (a frame, a
        generator's frame: evidence), not only by its spelling (``check_template``)."""
        real = _real_getattr(obj, name)
        formatter = _GuardedFormatter(self)

        def formatted(*args: Any, **kwargs: Any) -> Any:
            if obj is str:  # str.format(template, ...)
                if not args or _real_type(args[0]) is not str:
                    return real(*args, **kwargs)
                template, args = args[0], args[1:]
            else:
                template = obj
            if _real_type(template) is not str:
                return real(*args, **kwargs)
            self.check_template(template)
            if name == "format_map":
                return formatter.vformat(template, (), *args)
            return formatter.vformat(template, args, kwargs)

        return formatted

    def check_template(self, template: str) -> None:
        """Every attribute a format template reads (``{0.a.b}``, nested specs included) is
        a public name or a harmless special one."""
        for _text, field, spec, _conversion in _FORMATTER.parse(template):
            if field is None:
                continue
            for part in re.findall(r"\.([^.\[]*)", field):
                if not part.isidentifier() or (part.startswith("_") and part not in SAFE_DUNDERS):
                    raise REFUSALS.refuse("name", f"{{{field}}}")
            if spec:
                self.check_template(spec)

    def write(self, obj: Any, name: Any) -> Any:
        if _real_type(name) is not str:
            raise TypeError("attribute name must be a string")
        if not name.isidentifier():
            raise REFUSALS.refuse("name", repr(name)[:80])
        if is_a(obj, types.ModuleType):
            raise REFUSALS.tamper(
                f"changed `{module_name(obj)}.{name}`: graded code may not change modules"
            )
        if is_a(obj, type) and not made_here(obj):
            raise REFUSALS.tamper(
                f"changed the class `{_label(obj)}` (`.{name}`): "
                "graded code may change only its own classes"
            )
        if _real_type(obj) in INERT_TYPES:
            raise REFUSALS.tamper(f"set `{name}` on a {_real_type(obj).__name__}")
        if name.startswith("__") and name.endswith("__"):
            if not self._own(obj):
                raise REFUSALS.tamper(
                    f"set the special attribute `{name}` of something graded code did not create"
                )
            if name not in OWN_DUNDERS:
                raise REFUSALS.refuse("name", f"{_label(obj)}.{name}")
        return obj

    def _own(self, obj: Any) -> bool:
        """Is ``obj`` the learner's (``ownership.learners``): one of its classes or functions,
        an instance of one, or an object made on its behalf (a namedtuple's field)?"""
        return learners(obj)

    def bound(self, *values: Any) -> bool:
        """What a class pattern bound (read by the interpreter, not through ``attr``), held to
        what ``attr`` would have handed back."""
        for value in values:
            if _real_type(value) in INERT_TYPES:
                raise REFUSALS.tamper(
                    f"reached a {_real_type(value).__name__} through a match pattern"
                )
            if is_a(value, types.ModuleType) and not reachable(self.allowed, module_name(value)):
                raise REFUSALS.refuse("import", module_name(value))
        return True

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
        if _real_type(obj) in INERT_TYPES:
            raise REFUSALS.tamper(f"listed the attributes of a {_real_type(obj).__name__}")
        if self._closed(obj):
            raise REFUSALS.refuse("name", f"vars({_label(obj)})")
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
        if _real_type(source) is bytes:
            source = source.decode()
        if not is_a(source, (str, ast.AST)):
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
                raise REFUSALS.tamper("ran a code object that was not compiled from its own source")
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

    # Positional-only: a class statement's keywords (``name=``, ``func=``) are the class's,
    # passed on to its metaclass and ``__init_subclass__``, never these parameters.
    def build_class(self, func: Any, name: str, /, *bases: Any, **kwargs: Any) -> Any:
        cls = _real_build_class(func, name, *bases, **kwargs)
        self.admit_class(cls)
        return cls

    def admit_class(self, cls: Any, /) -> None:
        """Which class is the learner's is decided by when it was made (``made_here``): one
        a metaclass hands back that existed before stays the grader's."""
        if is_a(cls, type):
            found = [n for n in RAW_MEMORY if n in type.__dict__["__dict__"].__get__(cls)]
            if found:
                raise REFUSALS.tamper(
                    f"defined `{found[0]}`, which hands raw memory to numpy or torch"
                )

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
            raise REFUSALS.refuse("descriptor", "open()")
        path = os.fsdecode(os.fspath(file))
        real = os.path.realpath(path)
        if _PROC_SELF.match(real) or real.startswith("/dev/fd"):
            raise REFUSALS.tamper(
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
                BOUND: self.bound,
            }
        )
        return table


class _GuardedFormatter(string.Formatter):
    """``str.format`` with each field's attribute reads made by ``Guards.attr``."""

    def __init__(self, guards: Guards) -> None:
        self.guards = guards

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, str]:
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            obj = self.guards.attr(obj, key) if is_attr else obj[key]
        return obj, first


def _label(obj: Any) -> str:
    """A name for ``obj`` read without calling anything learner code may have defined."""
    if is_a(obj, types.ModuleType):
        return module_name(obj)
    cls = obj if is_a(obj, type) else _real_type(obj)
    name = type.__dict__["__qualname__"].__get__(cls)
    return name if _real_type(name) is str else "?"


def namespace(allowed: Iterable[str] = DEFAULT_IMPORTS) -> tuple[dict[str, Any], Guards]:
    """A fresh module namespace for learner code, with its guarded builtins."""
    own_from_now()  # what exists now is the grader's; what learner code makes, its own
    guards = Guards(allowed)
    return {"__name__": "__main__", "__builtins__": guards.builtins}, guards
