"""Compare a learner's answer with the truth torch gave, with one-sentence feedback.

Values are graded by value unless the question's lesson is the type (its ``strict:``,
given here as ``Rules``; ``BY_VALUE`` keeps nothing strict, ``STRICT`` everything). The
rules, by the kind of the truth:

- Tensor: a fixed ladder, stopping at the first difference. Is it a tensor -> shape ->
  dtype (compared when the answer wrote ``dtype=``; otherwise only the kind must agree,
  and by value an int tensor stands for a float one: ``tensor([0, 1])`` for
  ``tensor([0., 1.])``) -> ``requires_grad`` (only if written) -> ``grad_fn`` (only if
  written; by name) -> values. A bare number for a 0-dim tensor is accepted when its value
  matches (by value, of either kind: ``2`` for ``tensor(2.)``); by value, a (nested) list
  of numbers stands for a tensor too (``[4., 6.]`` for ``tensor([4., 6.])``).
- Numbers: floats within ``rel 1e-3`` or ``abs 1e-5`` (torch prints 4 decimals); ints
  exactly; ``bool`` is not ``int`` (``True`` is not ``1``). By value an int stands for a
  float of its value (``1`` for ``1.0``) and a float for an int (``2.0`` for ``2``);
  where the dtype is the lesson, ``2`` is not ``2.0``. By value, a 0-dim tensor stands
  for a number and a tensor for a list (``tensor(5.)`` for ``5.0``) when it claims no
  ``requires_grad`` or ``grad_fn``. NaN equals only NaN; ``inf`` equals only ``inf`` of
  the same sign.
- Tuples and lists: item by item; a tuple answer for a list truth (or back) is accepted.
  ``torch.Size([3, 4])``, ``(3, 4)`` and ``[3, 4]`` are interchangeable. By value, the one
  item of a one-item list or tuple may be written alone (``tensor([1.])`` for
  ``[tensor([1.])]``), never the other way (``[tensor([1.])]`` is not ``tensor([1.])``).
- Strings: as written; a bare name (or words an element is written in, ``pre B``) stands
  for a string of its text, as torch prints a grad_fn's name (``SigmoidBackward0`` or
  ``<SigmoidBackward0 object at …>`` for ``'SigmoidBackward0'``), right by value. A string
  that names a class (``judging.names_class``: ``'SigmoidBackward0'``, ``'RuntimeError'``)
  is compared as the class's name, quoted or not: in any case and without its version
  digit (``sigmoidbackward0``); a free string's case is its own (``'First'`` is not
  ``'first'``).
- Exceptions: by class name, in any case (``RuntimeError``, ``runtimeerror``), named in
  quotes too (``'RuntimeError'``); ``no error`` (or ``None``: nothing was raised) only
  matches no error.
- grad_fn: by name, in any case; the answer may leave out the truth's trailing version
  number (``MulBackward`` for ``MulBackward0``), but not add one the truth's name does not
  have (``CopySlices0`` is not ``CopySlices``), nor give a different one.
- dtypes: by canonical name, in any case (``torch.long``, ``long`` and ``Int64`` are
  ``torch.int64``).
- Opaque truths (which no answer form can express) compare the answer's text with the
  truth's repr, so validation shows the course author what went wrong.

An answer right by value only (``Comparison.by_value``) says how torch prints it; so does
a name right in another case, without its version digit or in quotes. A flag
the truth does not know (``None``, as in answers) is never compared: so ``same_value``
can compare two answers, which is how misconceptions are matched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..said import decapitalized, say, say_n
from .by_value import accepted, as_plain
from .judging import (
    NUMBER_KINDS,
    STRICT,
    Comparison,
    Rules,
    number_kind,
    right,
    same_name,
    same_number,
    same_text,
    scalar_noun,
    sequence_noun,
    show,
    wrong,
)
from .render import DTYPE_ALIASES, render_answer
from .tensor_ladder import compare_tensor
from .values import (
    DtypeValue,
    ExceptionValue,
    GradFnValue,
    Name,
    NoError,
    Opaque,
    Scalar,
    Sequence,
    SizeValue,
    TensorValue,
    Value,
)


def compare(answer: Value, truth: Value, rules: Rules = STRICT) -> Comparison:
    """Judge ``answer`` (usually parsed from a learner) against ``truth`` (from torch),
    keeping strict what ``rules`` says (a question's ``strict:``; all of it unless told)."""
    return _BY_TRUTH[type(truth)](answer, truth, rules)


def same_value(a: Value, b: Value, rules: Rules = STRICT) -> bool:
    """Whether two answers say the same thing (either one accepted for the other)."""
    return compare(a, b, rules).correct or compare(b, a, rules).correct


def _scalar(answer: Value, truth: Scalar, rules: Rules) -> Comparison:
    noun = "" if truth.value is None else scalar_noun(truth.value)
    if isinstance(answer, TensorValue) and not rules.type and number_kind(truth.value):
        plain = as_plain(answer)  # a 0-dim tensor for a number
        if isinstance(plain, Scalar) and _scalar(plain, truth, rules).correct:
            return accepted(answer, truth)
    if isinstance(truth.value, str) and isinstance(answer, (Name, Scalar)):
        written = answer.ident if isinstance(answer, Name) else answer.value
        if written == truth.value and isinstance(answer, Scalar):
            return right(answer, truth)
        if isinstance(written, str) and same_text(written, truth.value):
            # SigmoidBackward0, 'sigmoidbackward0' for 'SigmoidBackward0': said how torch writes it
            return accepted(answer, truth)
        if isinstance(answer, Name):
            return wrong(answer, truth)  # another name: the name is wrong, not the type
    if not isinstance(answer, Scalar):
        return wrong(answer, truth, noun)
    got, expected = scalar_noun(answer.value), scalar_noun(truth.value)
    kinds = {number_kind(answer.value), number_kind(truth.value)}
    if got != expected and not rules.dtype and kinds == NUMBER_KINDS:
        same = same_number(answer.value, truth.value, any_kind=True)  # type: ignore[arg-type]
        return accepted(answer, truth) if same else wrong(answer, truth)
    if got != expected:
        return Comparison(
            False,
            say(
                "Got {answer} ({got}), expected {truth} ({expected}).",
                answer=show(answer),
                got=got,
                truth=show(truth),
                expected=expected,
            ),
        )
    if isinstance(truth.value, str) or truth.value is None:
        same = answer.value == truth.value
    else:
        same = same_number(answer.value, truth.value)  # type: ignore[arg-type]
    return right(answer, truth) if same else wrong(answer, truth)


def _sequence(answer: Value, truth: Sequence, rules: Rules) -> Comparison:
    alone = _alone(answer, truth, rules)
    if alone is not None and alone.correct:
        return alone
    verdict = _items(answer, truth, rules)
    if verdict.correct or alone is None or type(answer) is not type(truth.items[0]):
        return verdict
    return alone  # a wrong tensor for a one-tensor list: what is wrong with the tensor


def _items(answer: Value, truth: Sequence, rules: Rules) -> Comparison:
    written = answer
    if isinstance(answer, SizeValue):
        answer = _size_as_tuple(answer)
    if isinstance(answer, TensorValue) and not rules.type:
        answer = as_plain(answer) or answer  # a tensor for a list
    if not isinstance(answer, Sequence):
        return wrong(written, truth, sequence_noun(truth.kind))
    if len(answer.items) != len(truth.items):
        count = len(truth.items)
        return wrong(written, truth, say_n("{count} item", "{count} items", count))
    by_value = answer is not written and isinstance(written, TensorValue)
    for i, (a, t) in enumerate(zip(answer.items, truth.items, strict=True)):
        verdict = compare(a, t, rules)
        if not verdict.correct:
            return Comparison(
                False,
                say(
                    "Item {number}: {verdict}",
                    number=i + 1,
                    verdict=decapitalized(verdict.feedback),
                ),
            )
        by_value = by_value or verdict.by_value
    return accepted(written, truth) if by_value else right(written, truth)


def _alone(answer: Value, truth: Sequence, rules: Rules) -> Comparison | None:
    """By value, the one item of a one-item list or tuple written without its brackets
    (``tensor([1., 2.])`` for ``[tensor([1., 2.])]``, ``7.`` for ``[7.0]``): right, saying
    how torch gives it, or the item's own verdict; None when the answer is a list or a
    tuple itself, or the question keeps the type. A TA reads the item named without its
    brackets as the item; where the container is the lesson the question is
    ``strict: [type]`` and it is not read so. Not the other way: ``[tensor([1., 2.])]`` for
    ``tensor([1., 2.])`` adds a container torch does not give, a claim about what is
    returned rather than a way of writing it: it stays wrong."""
    if rules.type or len(truth.items) != 1 or isinstance(answer, Sequence):
        return None
    verdict = compare(answer, truth.items[0], rules)
    return accepted(Sequence(truth.kind, (answer,)), truth) if verdict.correct else verdict


def _size(answer: Value, truth: SizeValue, rules: Rules) -> Comparison:
    if isinstance(answer, Scalar) and not rules.type and len(truth.dims) == 1:
        # by value, a one-dim size's one number without its brackets (5 for torch.Size([5]))
        if number_kind(answer.value) == "int" and answer.value == truth.dims[0]:
            return accepted(truth, truth)
    if isinstance(answer, Sequence):
        ok = all(isinstance(i, Scalar) and number_kind(i.value) == "int" for i in answer.items)
        dims = tuple(i.value for i in answer.items) if ok else None  # type: ignore[union-attr]
    else:
        dims = answer.dims if isinstance(answer, SizeValue) else None
    return right(answer, truth) if dims == truth.dims else wrong(answer, truth)


def _by_name(
    names: Callable[[Value], str | None], match: Callable[[str, str], bool]
) -> Callable[[Value, Any, Rules], Comparison]:
    """A comparison of named things: the answer's name (if any) against the truth's."""

    def judge(answer: Value, truth: Any, rules: Rules) -> Comparison:
        got, expected = names(answer), names(truth)
        if got is None or expected is None or not match(got, expected):
            return wrong(answer, truth)
        quoted = isinstance(answer, Scalar) and isinstance(answer.value, str)
        if got == expected and not quoted:
            # <MulBackward0> is read as the name MulBackward0: same name, nothing to add
            return Comparison(True, say("Correct."))
        # in another case, without its version digit or in quotes: said how torch writes it
        return Comparison(True, right(answer, truth).feedback, by_value=True)

    return judge


def _name_of(v: Value) -> str | None:
    """The name a value says: a bare name, a grad_fn's, a dtype's, an exception's class, or
    a string's text (a class named in quotes, ``'RuntimeError'``, is the class)."""
    if isinstance(v, Name):
        return v.ident
    if isinstance(v, Scalar) and isinstance(v.value, str):
        return v.value.strip()
    if isinstance(v, (GradFnValue, DtypeValue)):
        return v.name
    return v.cls if isinstance(v, ExceptionValue) else None


def _dtype_named(name: str) -> str:
    """The dtype a name says, by its canonical name: ``long``, ``Int64`` and ``INT64`` are
    ``int64`` (torch has no two dtypes told apart by case)."""
    folded = name.casefold().removeprefix("torch.")
    return DTYPE_ALIASES.get(folded, folded)


def _outcome_of(v: Value) -> str | None:
    """``no error`` for no error, and for ``None``: nothing was raised."""
    nothing = isinstance(v, NoError) or (isinstance(v, Scalar) and v.value is None)
    return "no error" if nothing else None


def _text_of(v: Value) -> str:
    if isinstance(v, Scalar) and isinstance(v.value, str):
        return v.value.strip()
    return (v.text if isinstance(v, Opaque) else render_answer(v)).strip()


def _size_as_tuple(s: SizeValue) -> Sequence:
    return Sequence("tuple", tuple(Scalar(d) for d in s.dims))


_BY_TRUTH: dict[type, Callable[[Value, Any, Rules], Comparison]] = {
    TensorValue: compare_tensor,
    Scalar: _scalar,
    Sequence: _sequence,
    SizeValue: _size,
    DtypeValue: _by_name(_name_of, lambda a, b: _dtype_named(a) == b),
    GradFnValue: _by_name(_name_of, same_name),
    Name: _by_name(_name_of, same_name),
    # Exception classes without regard to case: `runtimeerror` names RuntimeError.
    ExceptionValue: _by_name(_name_of, lambda a, b: a.casefold() == b.casefold()),
    NoError: _by_name(_outcome_of, str.__eq__),
    Opaque: _by_name(_text_of, str.__eq__),
}
