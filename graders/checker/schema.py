"""The shape of a checker's observations, held by the sandbox's keeper before anything is judged.

A checker may declare ``class Observations(Schema)``: a pydantic model of exactly what its
``observe`` returns. The keeper (a process that never runs learner code) validates every
result against it: types, list lengths, ranges, no unknown keys. A child that forged its
observations must then forge them in that shape, or the exercise is ``integrity``.

Field types for the values a checker records:

- ``Described``: a value as ``measure.describe`` writes it (a tensor with its flags, None,
  or an opaque type name), checked by the same parser the judge uses;
- ``RaisedRecord``: an exception the learner's code raised (``measure.Raised.to_json()``);
- ``Flags``: a list of booleans; ``Bits``: a list of small non-negative integers.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..answers.values import from_json

MAX_ITEMS = 64  # observations are a handful of measurements, not data


def _described(value: Any) -> Any:
    if not isinstance(value, dict):
        raise ValueError("a described value must be an object")
    from_json(value)  # raises ValueError for what ``describe`` never writes
    return value


class Schema(BaseModel):
    """Base of a checker's ``Observations``: strict, closed, immutable."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class RaisedRecord(Schema):
    cls: Annotated[str, Field(max_length=80)]
    message: Annotated[str, Field(max_length=400)]
    line: Annotated[int, Field(ge=0)] | None = None


Described = Annotated[dict[str, Any], AfterValidator(_described)]
Flags = Annotated[list[bool], Field(max_length=MAX_ITEMS)]
Bits = Annotated[list[Annotated[int, Field(ge=0)]], Field(max_length=MAX_ITEMS)]


def validated(model: type[Schema], observations: Any) -> dict[str, Any]:
    """``observations`` as ``model`` holds them (plain JSON), or ``ValueError`` saying why not."""
    if not isinstance(observations, dict):
        raise ValueError("observations must be an object")
    try:
        return model.model_validate(observations).model_dump(mode="json", exclude_unset=True)
    except Exception as exc:  # pydantic's ValidationError: one line is enough for the record
        first = str(exc).splitlines()
        raise ValueError(" ".join(first[:3])[:300]) from None
