"""YAML read with its node marks, so every later error can name ``file:line:column``.

``read_yaml`` returns the plain data and a ``Marks`` object mapping a path inside the
data (``("questions", 2, "points")``) to where that value starts in the file. Duplicate
mapping keys, which plain ``yaml.safe_load`` silently collapses, are reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import Location, Problem

PathKey = tuple[Any, ...]


@dataclass
class Marks:
    """Where each value of one YAML document starts."""

    path: str
    by_path: dict[PathKey, tuple[int, int]] = field(default_factory=dict)

    def at(self, key: PathKey) -> Location:
        """The location of ``key``, or of its nearest ancestor that has one."""
        key = tuple(key)
        while key not in self.by_path and key:
            key = key[:-1]
        line, column = self.by_path.get(key, (0, 0))
        return Location(self.path, line, column)


class _Loader(yaml.SafeLoader):
    """SafeLoader: only plain data, never arbitrary Python objects."""


# The parse into nodes (with their lines and columns) by libyaml where PyYAML was built with
# it: a course's 50 files in ~20 ms instead of ~300 ms; the scalars are still resolved by
# ``_Loader``'s safe constructor below, so the data is the same either way.
_Composer: type[yaml.SafeLoader] | type[yaml.CSafeLoader] = (
    yaml.CSafeLoader if yaml.__with_libyaml__ else _Loader
)


def read_yaml(path: Path, shown_as: str) -> tuple[Any, Marks, list[Problem]]:
    """Parse one YAML file; return (data, marks, problems). Data is None on a syntax error."""
    marks = Marks(shown_as)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, marks, [Problem(Location(shown_as), f"cannot read file: {exc}")]
    try:
        node = yaml.compose(text, Loader=_Composer)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Location(shown_as, mark.line + 1, mark.column + 1) if mark else Location(shown_as)
        return None, marks, [Problem(where, f"invalid YAML: {exc.problem or exc}")]
    if node is None:
        return None, marks, [Problem(Location(shown_as, 1, 1), "the file is empty")]
    problems: list[Problem] = []
    scalars = _Loader("")  # one constructor for every scalar of the file: each costs ~35 µs
    data = _to_data(node, (), marks, problems, scalars)
    return data, marks, problems


def _to_data(
    node: yaml.Node, key: PathKey, marks: Marks, problems: list[Problem], scalars: _Loader
) -> Any:
    marks.by_path[key] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        return _mapping(node, key, marks, problems, scalars)
    if isinstance(node, yaml.SequenceNode):
        return [
            _to_data(child, key + (i,), marks, problems, scalars)
            for i, child in enumerate(node.value)
        ]
    # Scalars: let the safe constructor resolve ints, bools, timestamps as strings we keep.
    return (
        node.value if node.tag == "tag:yaml.org,2002:timestamp" else scalars.construct_object(node)
    )


def _mapping(
    node: yaml.MappingNode, key: PathKey, marks: Marks, problems: list[Problem], scalars: _Loader
) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            where = Location(
                marks.path, key_node.start_mark.line + 1, key_node.start_mark.column + 1
            )
            problems.append(Problem(where, "mapping keys must be plain strings"))
            continue
        name = key_node.value
        if name in out:
            where = Location(
                marks.path, key_node.start_mark.line + 1, key_node.start_mark.column + 1
            )
            problems.append(Problem(where, f"duplicate key '{name}'"))
        out[name] = _to_data(value_node, key + (name,), marks, problems, scalars)
        # Point at the key, not the value: that is where an editor should jump.
        marks.by_path[key + (name,)] = (
            key_node.start_mark.line + 1,
            key_node.start_mark.column + 1,
        )
    return out


def dotted(key: PathKey) -> str:
    """A path inside the data as messages name it: ``questions[2].points``."""
    out = ""
    for part in key:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(file)"


def duplicate_ids(
    ids: list[str], key: PathKey, marks: Marks, what: str, field: str | None = None
) -> dict[int, Problem]:
    """A problem for every repeat of an id in a list, keyed by the repeat's index.

    ``key`` is the list's path; with ``field`` the ids sit under ``field`` of each item
    (``questions[2].id``) and the message names that place.
    """
    seen: set[str] = set()
    problems: dict[int, Problem] = {}
    for index, ident in enumerate(ids):
        if ident in seen:
            where = key + (index, field) if field else key + (index,)
            prefix = f"{key[-1]}[{index}].{field}: " if field else ""
            problems[index] = Problem(marks.at(where), f"{prefix}duplicate {what} id '{ident}'")
        seen.add(ident)
    return problems
