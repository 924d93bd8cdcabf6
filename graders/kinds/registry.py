"""The exercise kinds, keyed by the YAML ``kind`` field.

Each module named in ``kinds.BUILTIN_KINDS`` calls ``@register`` on a class that fulfils
``contract.Kind``; a class that does not is refused there, naming what it lacks. The
optional capabilities a kind offers are found then too (``capabilities``). The loader asks
the registry which model validates an exercise file; the notebook reader asks it whose
cell a ``metadata.graders`` tag marks (``kind_of_cell``), which needs only each kind's
cells module, not the kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..course import kinds as course_kinds
from . import BUILTIN_KINDS
from .base import CellReader
from .contract import Capabilities, capabilities_of, unfulfilled

if TYPE_CHECKING:
    from ..course.loaded import LoadedExercise
    from .contract import AnyKind

KINDS: dict[str, AnyKind] = {}
CAPABLE: dict[str, Capabilities] = {}  # kind name -> the optional capabilities it offers
K = TypeVar("K")


class KindContractError(TypeError):
    """A class registered as a kind does not fulfil the kind contract."""


def register(cls: type[K]) -> type[K]:
    """Class decorator: make this kind available under its ``name``, once it is seen to
    fulfil every part of the contract (and any optional capability it offers, whole)."""
    wrong = unfulfilled(cls)
    if wrong:
        raise KindContractError(
            f"{cls.__module__}.{cls.__qualname__} is not an exercise kind: {'; '.join(wrong)}"
        )
    instance: Any = cls()
    KINDS[instance.name] = instance
    CAPABLE[instance.name] = capabilities_of(instance)
    course_kinds.register(instance)  # the course reads its exercise files with it
    return cls


def capabilities(kind: AnyKind) -> Capabilities:
    """The optional capabilities ``kind`` offers, as found when it registered."""
    return CAPABLE.get(kind.name, Capabilities())


def get_kind(name: str) -> AnyKind | None:
    """The kind registered under ``name``, loading the built-in kinds first."""
    _load_builtin_kinds()
    return KINDS.get(name)


def kind_of(loaded: LoadedExercise) -> AnyKind:
    """The whole kind of a loaded exercise (the course holds only its ``CourseSide``)."""
    kind = get_kind(loaded.kind.name)
    assert kind is not None, "a loaded exercise's kind is registered"  # loaded through it
    return kind


def known_kinds() -> list[str]:
    _load_builtin_kinds()
    return sorted(KINDS)


def all_kinds() -> list[AnyKind]:
    """Every kind: the built-in ones in their order (for notebook hints), then the others
    in registration order."""
    _load_builtin_kinds()
    order = list(BUILTIN_KINDS)
    return sorted(
        KINDS.values(), key=lambda k: order.index(k.name) if k.name in order else len(order)
    )


@cache
def cell_readers() -> tuple[CellReader, ...]:
    """How each built-in kind's answer cells are found and read, in the built-in order."""
    readers = []
    for name, builtin in BUILTIN_KINDS.items():
        module = import_module(builtin.cells)
        readers.append(CellReader(name, module.CELL_TAG, module.read_cell, module.cell_problem))
    return tuple(readers)


def kind_of_cell(tag: Mapping[str, Any]) -> tuple[CellReader, str] | None:
    """The reader of the kind whose answer cell a ``metadata.graders`` tag marks, and the
    cell's key."""
    for reader in cell_readers():
        key = tag.get(reader.tag)
        if isinstance(key, str):
            return reader, key
    return None


def sandbox_modules(exercises: Iterable[Any], root: Path) -> dict[str, tuple[str, str]]:
    """Modules (name -> (file, source)) the sandbox must import before forking, for these
    loaded exercises: what each kind says it needs (a code exercise's checker)."""
    found: dict[str, tuple[str, str]] = {}
    for loaded in exercises:
        preloads = capabilities(loaded.kind).preloads_sandbox
        if preloads is not None:
            found.update(preloads.sandbox_modules(loaded.exercise, root))
    return found


def task_modules() -> tuple[str, ...]:
    """The modules the built-in kinds' jobs name, for the warm fork servers to import
    before forking; known without importing a kind (the sandbox starts before the course
    is read)."""
    return tuple(m for builtin in BUILTIN_KINDS.values() for m in builtin.task_modules)


def runs_jobs(kind: str) -> bool:
    """Whether grading an answer of ``kind`` runs sandbox jobs; for a built-in kind, known
    without importing it (one notebook's grader asks before it imports anything else)."""
    builtin = BUILTIN_KINDS.get(kind)
    return builtin.runs_jobs if builtin is not None else getattr(get_kind(kind), "runs_jobs", False)


def _load_builtin_kinds() -> None:
    # Imported here, not at module level: the kinds import the registry.
    for builtin in BUILTIN_KINDS.values():
        import_module(builtin.kind)


# The course asks for a kind by its YAML name: the built-in ones are registered then.
course_kinds.add_finder(_load_builtin_kinds)
