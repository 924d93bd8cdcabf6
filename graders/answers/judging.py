"""The vocabulary of judging an answer: a ``Comparison`` (right or not, and one sentence
why), when two numbers or grad_fn names are the same, and how values are shown in
feedback (rendered as answer literals, capped in length).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .render import render_answer
from .values import Value

REL_TOL = 1e-3
ABS_TOL = 1e-5
MAX_SHOWN = 80  # characters of a rendered value in feedback


@dataclass(frozen=True)
class Comparison:
    """Whether an answer is right, and one short sentence saying why for the learner."""

    correct: bool
    feedback: str


def same_number(a: bool | int | float, b: bool | int | float) -> bool:
    """Numbers of the same kind and value (floats within the tolerance)."""
    if number_kind(a) != number_kind(b):
        return False
    if isinstance(a, float) and (math.isnan(a) or math.isnan(b)):
        return math.isnan(a) and math.isnan(b)
    if isinstance(a, float):
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    return a == b


def same_name(a: str, b: str) -> bool:
    """grad_fn names: equal, or equal but for a trailing version number one side left out."""
    base_a, base_b = re.sub(r"\d+$", "", a), re.sub(r"\d+$", "", b)
    return a == b or (base_a == base_b and (a == base_a or b == base_b))


def right(answer: Value, truth: Value) -> Comparison:
    full = render_answer(truth)
    if render_answer(answer) == full:
        return Comparison(True, "Correct.")
    return Comparison(True, f"Correct; written in full: {cap(full)}.")


def wrong(answer: Value, truth: Value, what: str = "") -> Comparison:
    expected = f"{what}: {show(truth)}" if what else show(truth)
    return Comparison(False, f"Got {show(answer)}, expected {expected}.")


def show(v: Value) -> str:
    return cap(render_answer(v))


def cap(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def number_kind(v: object) -> str | None:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    return "float" if isinstance(v, float) else None


def scalar_noun(v: object) -> str:
    if v is None:
        return "None"
    kind = number_kind(v) or "string"
    return f"{article(kind)} {kind}"


def article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"
