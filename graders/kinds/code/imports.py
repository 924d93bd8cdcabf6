"""``import`` in learner code: only the course's allowlist of modules.

The namespace's ``__import__`` is ``Imports.statement``. An ``import`` statement of learner
code is checked against the allowlist; a module on ``TAMPERING`` (a tool for reaching into
the grading process) is a refusal, any other module not on the list a plain ``ImportError``
the learner sees.
"""

from __future__ import annotations

import types
from typing import Any

from .allowlist import EVALUATES, TAMPERING
from .learner import (  # the originals, taken before any learner code ran
    _IMPORT_NAME,
    REFUSALS,
    _getframe,
    _real_getattr,
    _real_import,
    _real_isinstance,
    module_name,
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
        for full in [name, *_parents(name)]:
            self._may_import(full)
        module = _real_import(name, None, None, fromlist, 0)
        for item in fromlist or ():
            value = _real_getattr(module, item, None)
            if _real_isinstance(value, types.ModuleType):
                self._may_import(module_name(value))
            elif item.startswith("_") or (name, item) in EVALUATES:
                raise REFUSALS.refuse(
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
            raise REFUSALS.refuse(
                f"imported `{name}`, a tool for reaching into the grading process"
            )
        raise ImportError(
            f"`import {name}` is not available in graded code; "
            f"it may import: {', '.join(sorted(self.allowed))}"
        )


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]
