"""The exercise kinds, keyed by the YAML ``kind`` field.

Each module named in ``kinds.BUILTIN_KINDS`` calls ``@register`` on a class that fulfils
``base.Kind``. The loader asks the registry which model validates an exercise file; the
notebook reader asks it whose cell a ``metadata.graders`` tag marks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from .base import AnyKind

KINDS: dict[str, AnyKind] = {}
K = TypeVar("K")


def register(cls: type[K]) -> type[K]:
    """Class decorator: make this kind available under its ``name``."""
    instance: Any = cls()
    KINDS[instance.name] = instance
    return cls


def get_kind(name: str) -> AnyKind | None:
    """The kind registered under ``name``, loading the built-in kinds first."""
    _load_builtin_kinds()
    return KINDS.get(name)


def known_kinds() -> list[str]:
    _load_builtin_kinds()
    return sorted(KINDS)


def all_kinds() -> list[AnyKind]:
    """Every kind, in registration order (the built-in order for notebook hints)."""
    _load_builtin_kinds()
    return list(KINDS.values())


def kind_of_cell(tag: Mapping[str, Any]) -> tuple[AnyKind, str] | None:
    """The kind whose answer cell a ``metadata.graders`` tag marks, and the cell's key."""
    for kind in all_kinds():
        key = tag.get(kind.cell_tag)
        if isinstance(key, str):
            return kind, key
    return None


def sandbox_modules(exercises: Iterable[Any], root: Path) -> dict[str, tuple[str, str]]:
    """Modules (name -> (file, source)) the sandbox must import before forking, for these
    loaded exercises: what each kind says it needs (a code exercise's checker)."""
    found: dict[str, tuple[str, str]] = {}
    for loaded in exercises:
        needs = getattr(loaded.kind, "sandbox_modules", None)
        if needs is not None:
            found.update(needs(loaded.exercise, root))
    return found


def _load_builtin_kinds() -> None:
    # Imported here, not at module level: the kinds import the registry.
    from .. import kinds  # noqa: F401
