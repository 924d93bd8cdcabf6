"""``graders schema``: a JSON Schema of exercise files, for editors (one branch per kind).

The branches are told apart by ``kind`` (``oneOf``, each branch's ``kind`` a ``const``), so
an editor reports the errors of the one branch a file claims, not a vague "matches none
of". Each kind's model adds the rules of its own files that a schema can say (a predict
question holds exactly one of ``expr`` and ``run``); the rules common to every exercise
file (its ``section`` is one of the article's) are added here. What needs more than one
file (an id equal to the file name, the course's languages, files that must exist) or
more than JSON Schema can say (ids unique within a list, code that parses) is left to
``graders validate``.
"""

from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter

from ..course.model import SECTIONS
from .registry import KINDS, known_kinds

DIALECT = "https://json-schema.org/draft/2020-12/schema"
KIND_TEXT = "which kind of exercise this file holds"


def exercise_schema() -> dict[str, Any]:
    """JSON Schema accepting an exercise file of any registered kind."""
    models = tuple(KINDS[name].model for name in known_kinds())
    # Union[...] rather than `|`: the members are only known at run time.
    union: Any = Annotated[Union[models], Field(discriminator="kind")]  # noqa: UP007
    schema = TypeAdapter(union).json_schema()
    for model in models:
        _common_rules(schema["$defs"][model.__name__])
    names = {name: KINDS[name].model.__name__ for name in known_kinds()}
    # The kind is checked first and once, and each branch applies only to its own kind:
    # a validator or an editor then reports the errors of that branch alone.
    schema["type"] = "object"
    schema["required"] = ["kind"]
    schema["properties"] = {"kind": {"enum": sorted(names), "description": KIND_TEXT}}
    schema["oneOf"] = [_branch(kind, model) for kind, model in sorted(names.items())]
    # A file of no known kind: its one error is the `kind` check's above.
    schema["oneOf"].append({"not": {"required": ["kind"], "properties": schema["properties"]}})
    schema["title"] = "graders exercise file"
    schema["$schema"] = DIALECT
    return schema


def _branch(kind: str, model: str) -> dict[str, Any]:
    return {
        "if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
        "then": {"$ref": f"#/$defs/{model}"},
        "else": False,
    }


def _common_rules(branch: dict[str, Any]) -> None:
    properties = branch["properties"]
    properties["section"]["enum"] = list(SECTIONS)
    properties["kind"]["description"] = KIND_TEXT
