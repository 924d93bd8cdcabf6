"""The vocabulary of judging an answer: the ``Rules`` a question keeps strict, a
``Comparison`` (right or not, and one sentence why), when two numbers or grad_fn names are
the same, and how values are shown in feedback (rendered as answer literals, capped in
length).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

from ..i18n import N_
from ..said import Told, say
from .render import render_answer
from .values import Value

REL_TOL = 1e-3
ABS_TOL = 1e-5
MAX_SHOWN = 80  # characters of a rendered value in feedback
# What a question may keep strict (`strict:` in its YAML): what its lesson is.
Lesson = Literal["dtype", "type"]
LESSONS: tuple[str, ...] = get_args(Lesson)
NUMBER_KINDS = frozenset({"int", "float"})  # by value, one stands for the other


@dataclass(frozen=True)
class Rules:
    """What a comparison keeps strict; what it does not, it grades by value.

    ``dtype``: an int is not a float (``1`` is not ``1.0``, ``tensor([0, 1])`` is not
    ``tensor([0., 1.])``). ``type``: a list or a number is not a tensor and a tensor is not
    a number or a list (a bare number of the tensor's kind still stands for a 0-dim
    tensor, as it always has).
    """

    dtype: bool = False
    type: bool = False

    @classmethod
    def keeping(cls, lessons: Iterable[str]) -> Rules:
        """The rules of a question whose ``strict:`` names ``lessons``."""
        kept = set(lessons)
        return cls(dtype="dtype" in kept, type="type" in kept)


BY_VALUE = Rules()  # a question that does not teach the type
STRICT = Rules(dtype=True, type=True)  # the type is the lesson: the article's output, a checker


@dataclass(frozen=True)
class Comparison:
    """Whether an answer is right, and one short sentence saying why for the learner.

    ``by_value``: right by value but written otherwise than torch gives it (another type,
    ``1`` for ``1.0``; a name in another case or in quotes, ``long`` for ``torch.int64``);
    ``feedback`` then says how torch prints it, for the learner to read even though the
    answer earned its points.
    """

    correct: bool
    feedback: Told
    by_value: bool = False


def same_number(a: bool | int | float, b: bool | int | float, *, any_kind: bool = False) -> bool:
    """Numbers of the same kind and value (floats within the tolerance); with ``any_kind``,
    an int and a float of the same value too (``bool`` is never a number here)."""
    if number_kind(a) != number_kind(b):
        if not any_kind or isinstance(a, bool) or isinstance(b, bool):
            return False
        if isinstance(b, int):  # a float for an int: exactly that int
            return a == b
        a = float(a)  # an int for a float, compared as the float it stands for
    if isinstance(a, float) and (math.isnan(a) or math.isnan(b)):
        return math.isnan(a) and math.isnan(b)
    if isinstance(a, float):
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    return a == b


def same_name(answer: str, truth: str) -> bool:
    """Class names (a grad_fn's, a class torch prints): equal in any case, or the answer
    leaves out the truth's trailing version number (``MulBackward`` for ``MulBackward0``).
    Never the other way: a digit the truth's name does not have names no node of torch
    (``CopySlices0`` is not ``CopySlices``). Case is forgiven because an identifier's case
    tells no two of torch's classes apart (``sigmoidbackward0`` can only mean one); the
    feedback of an answer read so says how torch writes the name."""
    answer, truth = answer.casefold(), truth.casefold()
    return answer == truth or answer == re.sub(r"\d+$", "", truth) != truth


# A class name as Python writes one, words run together in CamelCase: a capital first, and
# another capital and a lower-case letter in it (SigmoidBackward0, RuntimeError, OSError,
# CopySlices). A string of this form names a class; any other string ('first', 'pre B',
# 'cpu', 'Hello') is free text, compared as written.
_CLASS_NAME = re.compile(r"(?=.*[a-z])[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*")


def names_class(text: str) -> bool:
    """Whether the string ``text`` names a class (a grad_fn, an exception), so that an
    answer naming the same class in another case, or without the version digit, is read
    as it (``sigmoidbackward0`` for ``'SigmoidBackward0'``). A free string's case is its
    own: ``'First'`` is not ``'first'``, nor ``'CPU'`` ``'cpu'``."""
    return _CLASS_NAME.fullmatch(text) is not None


def same_text(written: str, text: str) -> bool:
    """Whether ``written`` (a string, or a name written without quotes) says the string
    ``text``: the same text, or, where ``text`` names a class, the same class's name
    (``sigmoidbackward0`` or ``SigmoidBackward`` for ``'SigmoidBackward0'``)."""
    return written == text or (names_class(text) and same_name(written.strip(), text))


def right(answer: Value, truth: Value) -> Comparison:
    full = render_answer(truth)
    if render_answer(answer) == full:
        return Comparison(True, say("Correct."))
    return Comparison(True, say("Correct; written in full: {truth}.", truth=cap(full)))


def wrong(answer: Value, truth: Value, what: Told = "") -> Comparison:
    """Not right: what the learner wrote and what torch gave (``what`` it is, if given)."""
    if what:
        said = say(
            "Got {answer}, expected {what}: {truth}.",
            answer=show(answer),
            what=what,
            truth=show(truth),
        )
    else:
        said = say("Got {answer}, expected {truth}.", answer=show(answer), truth=show(truth))
    return Comparison(False, said)


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


def scalar_noun(v: object) -> Told:
    """What kind of value ``v`` is, as a feedback sentence names it: ``an int``."""
    if v is None:
        return "None"
    return say(_NOUNS[number_kind(v) or "string"])


def tensor_noun(kind: str) -> Told:
    """What kind of tensor a dtype's kind (``render.dtype_kind``) makes: ``a float tensor``."""
    return say(_TENSOR_NOUNS.get(kind, _TENSOR_NOUNS["other"]))


def sequence_noun(kind: str) -> Told:
    """``a tuple`` or ``a list``."""
    return say(_NOUNS.get(kind, _NOUNS["sequence"]))


_NOUNS = {
    "bool": N_("a bool"),
    "int": N_("an int"),
    "float": N_("a float"),
    "string": N_("a string"),
    "tuple": N_("a tuple"),
    "list": N_("a list"),
    "sequence": N_("a sequence"),
}
_TENSOR_NOUNS = {
    "bool": N_("a bool tensor"),
    "int": N_("an int tensor"),
    "float": N_("a float tensor"),
    "other": N_("an other tensor"),
}
