"""``graders schema``: a JSON Schema of exercise files, for editors (one branch per kind)."""

from __future__ import annotations

from typing import Any, Union

from pydantic import TypeAdapter

from ..kinds.registry import KINDS, known_kinds


def exercise_schema() -> dict[str, Any]:
    """JSON Schema accepting an exercise file of any registered kind."""
    models = tuple(KINDS[name].model for name in known_kinds())
    # Union[...] rather than `|`: the members are only known at run time.
    union: Any = models[0] if len(models) == 1 else Union[models]  # noqa: UP007
    schema = TypeAdapter(union).json_schema()
    schema["title"] = "graders exercise file"
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
