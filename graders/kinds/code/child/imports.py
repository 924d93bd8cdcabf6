"""``import`` in learner code: only the course's allowlist of modules.

The namespace's ``__import__`` is ``Imports.statement``. An ``import`` statement of learner
code is checked against the allowlist (an entry ``package.*`` allows the package and the
modules in it); a module that is not on it is refused with ``NotAvailable``, an
``ImportError`` the learner's code may catch, and recorded with its line so the feedback
can say which import and that the course can allow it. Refusing is not accusing: no
import is ``integrity``.

``io`` is handed out as a copy whose ``open`` and ``FileIO`` take paths only: a descriptor
number would reach the process's own channels (the builtin ``open`` is guarded the same
way).
"""

from __future__ import annotations

import io
import types
from typing import Any

from .allowlist import EVALUATES
from .learner import (  # the originals, taken before any learner code ran
    _IMPORT_NAME,
    REFUSALS,
    _getframe,
    _real_getattr,
    _real_import,
    allows,
    is_a,
    module_name,
    reachable,
)


class Imports:
    """The ``__import__`` of one learner namespace, bound to the course's allowlist."""

    def __init__(self, allowed: frozenset[str]) -> None:
        self.allowed = allowed

    def statement(
        self, name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        """The namespace's ``__import__``: an ``import`` in learner code is checked; an import that
        C code of a library makes while a learner frame is current (numpy importing its own
        parts lazily) is that library's, not the learner's."""
        frame = _getframe(1)
        if frame.f_code.co_code[frame.f_lasti] != _IMPORT_NAME:
            return _real_import(name, globals, locals, fromlist, level)
        return self.call(name, globals, locals, fromlist, level)

    def call(
        self, name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        """``__import__`` as learner code may call it: only the allowlist."""
        if level:
            raise ImportError("relative imports are not available in graded code")
        # The module named must be listed, or lead to one that is (`import torch.utils`
        # binds `torch`); its parents need not be: importing them is the way to it.
        self.check(name)
        module = _real_import(name, None, None, fromlist, 0)
        listed = allows(self.allowed, name)
        for item in fromlist or ():
            value = _real_getattr(module, item, None)
            if is_a(value, types.ModuleType):
                self.check(module_name(value))
            elif (
                not listed
                or (item.startswith("_") and not is_a(value, type))
                or (name, item) in EVALUATES
            ):
                raise REFUSALS.refuse("name", f"{name}.{item}")
        return _LEARNER_IO if module is io else module

    def check(self, name: str) -> None:
        if not reachable(self.allowed, name):
            raise REFUSALS.refuse("import", name)


def _paths_only(real: Any) -> Any:
    def opened(file: Any, *args: Any, **kwargs: Any) -> Any:
        if type(file) is int or kwargs.get("opener") is not None:
            raise REFUSALS.refuse("descriptor", f"io.{real.__name__}()")
        return real(file, *args, **kwargs)

    opened.__name__ = opened.__qualname__ = real.__name__
    return opened


def _learner_io() -> types.ModuleType:
    shim = types.ModuleType("io", io.__doc__)
    shim.__dict__.update({k: v for k, v in vars(io).items() if not k.startswith("_")})
    shim.__dict__.update(open=_paths_only(io.open), FileIO=_paths_only(io.FileIO))
    return shim


_LEARNER_IO = _learner_io()
