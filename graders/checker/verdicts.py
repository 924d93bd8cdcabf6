"""Parent side: read a child's observations strictly, and judge them against the reference's.

The child sends plain JSON; the reference solution's observations come from the same
checker run on the solution in a clean child. Judges compare the two here, in the trusted
parent, and return one ``Verdict`` per check. A value of the wrong shape or type means the
observations were not written by the checker (a forged result): ``Malformed``.

Tensors follow the fixed ladder of ``compare``: defined -> is a tensor -> shape -> dtype ->
requires_grad -> values, each as "got X, expected Y"; a check chooses which rungs matter.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..answers.compare import compare
from ..answers.values import TensorValue, from_json
from ..i18n import N_
from ..i18n.registry import full_stops
from ..said import Told, as_catalogued, joined, say

RUNGS = ("shape", "dtype", "requires_grad", "values")


class Malformed(ValueError):
    """The observations do not have the shape the checker writes."""


@dataclass(frozen=True)
class Verdict:
    """One check's outcome: passed, failed with feedback, or the learner's code raised."""

    passed: bool
    feedback: Told = ""
    errored: bool = False


PASS = Verdict(True)


def fail(feedback: Told) -> Verdict:
    return Verdict(False, feedback)


def errored(raised: Any, what: str) -> Verdict:
    """The learner's code raised while this check was measured."""
    return Verdict(False, sentence(explain_raised(raised, what)), errored=True)


def sentence(text: Told) -> Told:
    """``text`` ending with a full stop (a message of the learner's may not have one)."""
    # Read in the language spoken: the sentence ends with the learner's message, if any.
    if str(text).endswith((*full_stops(), "!", "?")):
        return text
    return say("{clause}.", clause=text)


def first_failure(verdicts: Iterable[Verdict]) -> Verdict:
    """The first verdict that did not pass (errors before plain failures), else ``PASS``."""
    failures = [v for v in verdicts if not v.passed]
    return next((v for v in failures if v.errored), failures[0] if failures else PASS)


def explain_raised(raised: Any, what: str) -> Told:
    """``what raised X at line N of your code: message`` from a child's ``raised`` record,
    a message, written in each reader's language (``what`` as the checker wrote it, unless
    it is a phrase of graders' own catalogue)."""
    cls = text(raised, "cls")
    message = text(raised, "message")
    line = raised.get("line")
    if line is not None and type(line) is not int:
        raise Malformed("line")
    fields = dict(what=as_catalogued(what), cls=cls, line=line, said=message)
    if line and message:
        return say("{what} raised {cls} at line {line} of your code: {said}", **fields)
    if line:
        return say("{what} raised {cls} at line {line} of your code", **fields)
    if message:
        return say("{what} raised {cls}: {said}", **fields)
    return say("{what} raised {cls}", **fields)


# Phrases graders' own modules hand to ``explain_raised`` (translated where they are said).
CATALOGUED_CALLERS = (N_("Running your code"),)


def tensor_verdict(
    got: Any, expected: Any, rungs: tuple[str, ...] = RUNGS, where: str = ""
) -> Verdict:
    """Judge a described learner value against the reference's, on the chosen rungs."""
    answer, truth = value(got), value(expected)
    if not isinstance(truth, TensorValue):
        raise Malformed("the reference did not produce a tensor")
    if isinstance(answer, TensorValue):
        answer, truth = _only(answer, rungs), _only(truth, rungs)
    verdict = compare(answer, truth)
    if verdict.correct:
        return PASS
    hint = (
        " Did you forget `return`?"
        if got.get("type") == "scalar" and got.get("value") is None
        else ""
    )
    return fail(joined([p for p in (where, verdict.feedback, hint) if p], ""))


def _only(t: TensorValue, rungs: tuple[str, ...]) -> TensorValue:
    # compare() skips a flag that is None on either side; blank the ones this check ignores.
    kept = replace(t, is_leaf=None, grad_fn=None)
    if "requires_grad" not in rungs:
        kept = replace(kept, requires_grad=None)
    if "dtype" not in rungs:
        kept = replace(kept, dtype=None)
    if "values" not in rungs:
        kept = replace(kept, values=_zeros(kept.values))
    return kept


def _zeros(values: Any) -> Any:
    return [_zeros(v) for v in values] if isinstance(values, list) else 0.0


def value(data: Any) -> Any:
    """A ``Value`` from the child's JSON, or ``Malformed``."""
    if not isinstance(data, dict):
        raise Malformed("a value")
    try:
        return from_json(data)
    except ValueError as exc:
        raise Malformed(str(exc)) from exc


def field(data: Any, key: str, kind: type | tuple[type, ...]) -> Any:
    """``data[key]``, which must be of ``kind`` (``bool`` is never taken for ``int``)."""
    if not isinstance(data, dict) or key not in data:
        raise Malformed(f"missing {key}")
    found = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if type(found) not in kinds:
        raise Malformed(f"{key} has the wrong type")
    return found


def text(data: Any, key: str) -> str:
    found: str = field(data, key, str)
    return found


def flag(data: Any, key: str) -> bool:
    found: bool = field(data, key, bool)
    return found


def bools(data: Any, key: str, count: int | None = None) -> list[bool]:
    """A list of booleans (exactly ``count`` of them, when given)."""
    found: list[bool] = field(data, key, list)
    if not all(type(b) is bool for b in found) or (count is not None and len(found) != count):
        raise Malformed(f"{key} should hold booleans")
    return found


def items(data: Any, key: str, count: int) -> list[Any]:
    """A list of exactly ``count`` dicts (a checker always measures the same cases)."""
    found: list[Any] = field(data, key, list)
    if len(found) != count or not all(isinstance(i, dict) for i in found):
        raise Malformed(f"{key} should hold {count} records")
    return found
