"""An exercise's parameters, the variants they make, and which variant a learner gets.

    params:                          # in an exercise file
      scale: {range: [2, 9]}         # 2, 3, ..., 9 (both ends included)
      shape: [[3, 4], [2, 5]]        # a list of values: any YAML scalar or list
      dtype: [float32, float64]

Every combination of values is a possible variant; the first values of every parameter
make the base variant (variant 1), which is what a release without a roster shows and
what the article's outputs are compared with. ``variants: {count: N}`` in ``course.yml``
bounds how many variants an exercise has: the base and N - 1 others, chosen from the
course seed and the exercise id, so that truths stay cacheable. A learner's variant is a
keyed hash of the course seed, the exercise id and the learner's id: nothing a learner
can edit (a notebook's metadata, an answers file) takes part in it.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
    field_validator,
)

ParamName = Annotated[str, StringConstraints(pattern=r"^[a-z_][a-z0-9_]*$", max_length=32)]
MAX_VALUES = 64  # per parameter
MAX_COMBINATIONS = 256  # per exercise: every one is rendered by `graders validate`
MAX_VALUE_CHARS = 200  # a value as it is substituted into the texts
Values = Mapping[str, Any]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Range(_Frozen):
    """``{range: [low, high]}``: the integers from low to high, both included."""

    range: tuple[int, int]

    @field_validator("range")
    @classmethod
    def _ordered(cls, value: tuple[int, int]) -> tuple[int, int]:
        low, high = value
        if low > high:
            raise ValueError(f"the range [{low}, {high}] is empty: the first end is the lower")
        if high - low + 1 > MAX_VALUES:
            raise ValueError(f"a range holds at most {MAX_VALUES} values")
        return value


def _spec(value: Any) -> list[Any] | Range:
    """One parameter's values: a list of plain values, or ``{range: [low, high]}``."""
    if isinstance(value, dict):
        return Range.model_validate(value)
    if not isinstance(value, list) or not value:
        raise ValueError("give a list of values, or {range: [low, high]}")
    if len(value) > MAX_VALUES:
        raise ValueError(f"at most {MAX_VALUES} values")
    for index, item in enumerate(value):
        shown = _substituted(item)
        if shown is None:
            raise ValueError(f"{item!r:.60} is not a number, a string, a bool or a list of them")
        if len(shown) > MAX_VALUE_CHARS:
            raise ValueError(f"a value is at most {MAX_VALUE_CHARS} characters long")
        if "{{" in shown or "{%" in shown or "{#" in shown:
            raise ValueError(f"{shown!r:.60}: a value cannot hold template syntax")
        if _key(item) in map(_key, value[:index]):
            raise ValueError(f"{shown:.60} is listed twice")
    return value


def _substituted(value: Any) -> str | None:
    """How ``value`` reads once substituted, or None for what cannot be a parameter."""
    if isinstance(value, list):
        items = [_substituted(v) for v in value]
        return None if None in items else str(value)
    return str(value) if isinstance(value, (bool, int, float, str)) else None


def _few_enough(params: dict[str, Any]) -> dict[str, Any]:
    total = 1
    for spec in params.values():
        total *= len(values_of(spec))
    if total > MAX_COMBINATIONS:
        raise ValueError(
            f"{total} combinations of values; at most {MAX_COMBINATIONS} (give fewer values)"
        )
    return params


_SPEC_SCHEMA = {
    "anyOf": [
        {"type": "array", "minItems": 1, "maxItems": MAX_VALUES},
        {
            "type": "object",
            "properties": {"range": {"type": "array", "items": {"type": "integer"}}},
            "required": ["range"],
            "additionalProperties": False,
        },
    ],
    "description": "the values a parameter takes: a list, or {range: [low, high]} (inclusive)",
}
Spec = Annotated[Any, BeforeValidator(_spec), WithJsonSchema(_SPEC_SCHEMA)]
Params = Annotated[dict[ParamName, Spec], AfterValidator(_few_enough)]


class VariantsPolicy(_Frozen):
    """``variants:`` in ``course.yml``: at most ``count`` variants per exercise."""

    count: int = Field(ge=1, le=MAX_COMBINATIONS)


def values_of(spec: Sequence[Any] | Range) -> list[Any]:
    """The values a parameter takes, in order (the first is the base variant's)."""
    if isinstance(spec, Range):
        low, high = spec.range
        return list(range(low, high + 1))
    return list(spec)


def combinations(params: Mapping[str, Sequence[Any] | Range]) -> list[dict[str, Any]]:
    """Every combination of values, the base first (each parameter's first value)."""
    names = list(params)
    product = itertools.product(*(values_of(params[n]) for n in names))
    return [dict(zip(names, values, strict=True)) for values in product]


def chosen(
    params: Mapping[str, Sequence[Any] | Range], count: int | None, seed: int, exercise_id: str
) -> list[dict[str, Any]]:
    """The combinations that are the exercise's variants, in variant order.

    All of them when the course sets no count, or a count they fit in; else the base and
    ``count - 1`` others. Each next one is the combination that differs most from those
    already chosen (in the most parameters), so that two learners with different variants
    differ in as many values as the count allows; ties are broken by an order drawn from
    the seed and the exercise id, not by the order of the values.
    """
    every = combinations(params)
    if count is None or count >= len(every):
        return every
    order = sorted(range(1, len(every)), key=lambda i: _digest(seed, exercise_id, str(i)))
    picked = [0]
    while len(picked) < count:
        best = max(order, key=lambda i: min(_differ(every[i], every[j]) for j in picked))
        picked.append(best)
        order.remove(best)
    return [every[i] for i in picked]


def _differ(one: Mapping[str, Any], other: Mapping[str, Any]) -> int:
    return sum(one[name] != other[name] for name in one)


def variant_number(seed: int, exercise_id: str, student: str, count: int) -> int:
    """The variant (1 to ``count``) that ``student`` gets of the exercise: a keyed hash."""
    if count <= 1:
        return 1
    key = f"graders-variants:{seed}".encode()
    message = f"{exercise_id}\0{student}".encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count


def describe(values: Values) -> str:
    """``scale=3, shape=[2, 5]``: a variant's values, as messages and tables show them."""
    return ", ".join(f"{name}={_substituted(value)}" for name, value in values.items())


def _digest(seed: int, exercise_id: str, item: str) -> bytes:
    return hashlib.sha256(f"{seed}\0{exercise_id}\0{item}".encode()).digest()


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
