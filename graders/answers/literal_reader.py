"""Reading an answer literal's syntax tree along an allow-list of node kinds.

``parse`` hands over the tree of one answer; ``LiteralReader`` walks it with a budget of
nodes and depth, turning each allowed node into ``Value`` data and refusing everything
else with a reason the learner can act on. Nothing is evaluated.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from typing import Any

from ..i18n import N_
from ..said import Told, say
from .phrases import Phrase
from .refusals import REFUSED, AnswerSyntaxError
from .render import DTYPE_ALIASES, DTYPES, as_kind, dtype_kind, literal_dtype
from .spelling import CONSTANTS, constant_note, is_no_error
from .values import (
    DtypeValue,
    Name,
    Nested,
    NoError,
    Scalar,
    Sequence,
    SizeValue,
    TensorValue,
    Value,
    listed_shape,
    nested_shape,
)
from .words import word, worded_number

MAX_DEPTH = 32
MAX_ELEMENTS = 4096  # nodes; well below what parse.MAX_CHARS allows (~5000)
_FLOAT_NAMES = {"nan": math.nan, "inf": math.inf}
_TENSOR_KEYWORDS = ("requires_grad", "grad_fn", "dtype", "size")


class LiteralReader:
    """Walks the allow-listed AST of one answer, with a budget of nodes and depth."""

    def __init__(self, source: str, phrases: Mapping[str, Phrase] | None = None) -> None:
        self.source = source
        self.phrases = phrases or {}  # the names standing for elements written as phrases
        self.budget = MAX_ELEMENTS
        self.notes: list[Told] = []  # how Python writes what the learner spelled otherwise

    def value(self, node: ast.expr, depth: int) -> Value:
        if isinstance(node, ast.UnaryOp):
            return Scalar(self._number(node, depth))
        self._spend(depth)
        if isinstance(node, ast.Constant):
            return Scalar(self._constant(node))
        if isinstance(node, (ast.Tuple, ast.List)):
            kind = "tuple" if isinstance(node, ast.Tuple) else "list"
            return Sequence(kind, tuple(self.value(e, depth + 1) for e in node.elts))
        if isinstance(node, ast.Name):
            if node.id in self.phrases:  # [pre B, hook A]: an element written in words
                return self._phrase(self.phrases[node.id])
            if node.id.casefold() in CONSTANTS:
                return Scalar(self._spelled(node.id))
            if is_no_error(node.id.replace("_", " ")):  # (True, no error), (1, 没有报错)
                return NoError()
            worded = word(node.id)
            if worded is not None:
                return Scalar(self._worded(node.id, worded))
            if node.id.casefold() in _FLOAT_NAMES:
                return Scalar(self._float_named(node.id))
            return Name(node.id)
        if isinstance(node, ast.Attribute):
            return DtypeValue(self._dtype(node))
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        compound = self._compound(node)
        if compound is not None:
            return Scalar(self._worded(self._text(node), compound))
        raise self._refuse(node)

    def _spend(self, depth: int) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise AnswerSyntaxError(say("it has more than {limit} elements", limit=MAX_ELEMENTS))
        if depth > MAX_DEPTH:
            raise AnswerSyntaxError(
                say("it is nested more than {limit} levels deep", limit=MAX_DEPTH)
            )

    def _constant(self, node: ast.Constant) -> None | bool | int | float | str:
        v = node.value
        if isinstance(v, float) and math.isinf(v):
            raise AnswerSyntaxError(
                say(
                    "{answer} is too large for a float (write inf for infinity)",
                    answer=self._text(node),
                )
            )
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        raise self._refuse(node)

    def _number(self, node: ast.expr, depth: int) -> bool | int | float:
        """One tensor element: a number, True/False, nan/inf, or a signed number."""
        self._spend(depth)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = self._number(node.operand, depth + 1)
            if isinstance(inner, bool):
                raise AnswerSyntaxError(
                    say(
                        "{answer}: a sign goes before a number, not True/False",
                        answer=self._text(node),
                    )
                )
            return -inner if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.Name) and node.id.casefold() in _FLOAT_NAMES:
            return self._float_named(node.id)
        if isinstance(node, ast.Name) and node.id.casefold() in ("true", "false"):
            return self._spelled(node.id)  # type: ignore[return-value]
        if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
            return self._constant(node)  # type: ignore[return-value]
        raise AnswerSyntaxError(say("{answer} is not a number", answer=self._text(node)))

    def _numbers(self, node: ast.expr, depth: int) -> Nested:
        if isinstance(node, (ast.List, ast.Tuple)):
            self._spend(depth)
            return [self._numbers(e, depth + 1) for e in node.elts]
        return self._number(node, depth)

    def _call(self, node: ast.Call, depth: int) -> Value:
        func = _dotted(node.func)
        if func in ("tensor", "torch.tensor"):
            return self._tensor(node, depth)
        if func in ("torch.Size", "Size"):  # Size([3, 4]), as tensor(...) is without torch.
            return self._size(node, depth)
        raise AnswerSyntaxError(
            say(
                "{answer} is not accepted: the only calls allowed are tensor(...) and "
                "torch.Size([...])",
                answer=self._text(node),
            )
        )

    def _tensor(self, node: ast.Call, depth: int) -> TensorValue:
        if len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
            raise AnswerSyntaxError(
                say("tensor(...) takes exactly one value, such as tensor([1., 2.])")
            )
        values = self._numbers(node.args[0], depth + 1)
        shape = nested_shape(values)
        if shape is None:
            raise AnswerSyntaxError(
                say(
                    "{answer}: the rows of this tensor have different lengths",
                    answer=self._text(node),
                )
            )
        options = self._tensor_keywords(node, depth)
        if "size" in options:
            values, shape = self._empty_of_size(node, values, options.pop("size"))
        # torch converts every element to one dtype: tensor([1, 2.5]) holds 1. and 2.5
        values = _as_dtype(values, options.get("dtype") or literal_dtype(values), self._text(node))
        return TensorValue(values, shape, **options)

    def _tensor_keywords(self, node: ast.Call, depth: int) -> dict[str, Any]:
        options: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg not in _TENSOR_KEYWORDS:
                name = kw.arg or "**"
                raise AnswerSyntaxError(
                    say(
                        "tensor(...) does not take {name}=...; it takes {names}",
                        name=name,
                        names=", ".join(_TENSOR_KEYWORDS),
                    )
                )
            options[kw.arg] = self._keyword(kw.arg, kw.value, depth)
        return options

    def _keyword(self, name: str, node: ast.expr, depth: int) -> object:
        if name == "dtype":
            return self._dtype(node)
        if name == "size":
            return self._dims(node, depth)
        if (
            name == "requires_grad"
            and isinstance(node, ast.Constant)
            and isinstance(node.value, bool)
        ):
            return node.value
        if name == "requires_grad" and isinstance(node, ast.Name):
            if node.id.casefold() in ("true", "false"):
                return self._spelled(node.id)
        if name == "grad_fn" and isinstance(node, ast.Name):
            return node.id
        if name == "requires_grad":
            message = N_("{name}= takes True or False, not {answer}")
        else:
            message = N_("{name}= takes a name such as <MulBackward0>, not {answer}")
        raise AnswerSyntaxError(say(message, name=name, answer=self._text(node)))

    def _empty_of_size(
        self, node: ast.Call, values: Nested, size: tuple[int, ...]
    ) -> tuple[Nested, tuple[int, ...]]:
        listed = listed_shape(size)
        if math.prod(size) != 0 or math.prod(listed[:-1]) > MAX_ELEMENTS:
            raise AnswerSyntaxError(
                say(
                    "{answer}: size=... is only for empty tensors, as torch prints them",
                    answer=self._text(node),
                )
            )
        if nested_shape(values) not in ((0,), listed):
            raise AnswerSyntaxError(
                say(
                    "{answer}: the values do not match size={size}",
                    answer=self._text(node),
                    size=size,
                )
            )
        return _empty(listed), size

    def _size(self, node: ast.Call, depth: int) -> SizeValue:
        if node.keywords or len(node.args) > 1:
            raise AnswerSyntaxError(
                say("torch.Size takes one list of sizes, such as torch.Size([4, 3])")
            )
        return SizeValue(self._dims(node.args[0], depth + 1) if node.args else ())

    def _dims(self, node: ast.expr, depth: int) -> tuple[int, ...]:
        dims = self._numbers(node, depth)
        if not isinstance(dims, list) or not all(type(d) is int and d >= 0 for d in dims):
            raise AnswerSyntaxError(
                say("{answer} is not a list of sizes such as [3, 4]", answer=self._text(node))
            )
        return tuple(dims)  # type: ignore[arg-type]

    def _dtype(self, node: ast.expr) -> str:
        name = _dotted(node)
        short = name.removeprefix("torch.") if name else ""
        if (
            not name
            or not name.startswith("torch.")
            or (short not in DTYPES and short not in DTYPE_ALIASES)
        ):
            raise AnswerSyntaxError(
                say(
                    "{answer} is not accepted: the only torch names allowed are dtypes such as "
                    "torch.float32",
                    answer=self._text(node),
                )
            )
        return DTYPE_ALIASES.get(short, short)

    def _spelled(self, ident: str) -> bool | None:
        """``true``, ``FALSE``, ``none``: the constant meant, with a note on its spelling."""
        note = constant_note(ident)
        if note not in self.notes:
            self.notes.append(note)
        return CONSTANTS[ident.casefold()]

    def _float_named(self, ident: str) -> float:
        """``nan``, ``inf``; in another case (``NaN``, ``Inf``, as other languages and the
        IEEE standard write them) with a note on how Python writes it."""
        python = ident.casefold()
        if ident != python:
            note = say(
                "Read `{written}` as `{python}`, the way Python writes it.",
                written=ident,
                python=python,
            )
            if note not in self.notes:
                self.notes.append(note)
        return _FLOAT_NAMES[python]

    def _compound(self, node: ast.expr) -> int | None:
        """``thirty-five`` (which Python parses as a subtraction): the number it names.
        Written with spaces, ``thirty - five`` is a subtraction, not a number."""
        if not (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Sub)
            and isinstance(node.left, ast.Name)
            and isinstance(node.right, ast.Name)
            and " " not in self._text(node)
        ):
            return None
        return worded_number(f"{node.left.id}-{node.right.id}")

    def _worded(self, written: str, value: bool | int) -> bool | int:
        """``yes``, ``two``, ``是`` inside a tuple or a list: the value meant (read by
        ``words.word``, as the whole answer is), with a note."""
        note = say("Read `{written}` as `{python}`.", written=written, python=value)
        if note not in self.notes:
            self.notes.append(note)
        return value

    def _phrase(self, phrase: Phrase) -> Value:
        if phrase.note is not None and phrase.note not in self.notes:
            self.notes.append(phrase.note)
        return phrase.value

    def _refuse(self, node: ast.expr) -> AnswerSyntaxError:
        what = REFUSED.get(type(node), N_("this kind of expression is not an answer form"))
        return AnswerSyntaxError(say("{answer}: {what}", answer=self._text(node), what=say(what)))

    def _text(self, node: ast.expr) -> str:
        segment = ast.get_source_segment(self.source, node) or type(node).__name__
        return segment if len(segment) <= 40 else segment[:37] + "..."


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _as_dtype(values: Nested, dtype: str, where: str) -> Nested:
    """Convert literal values the way ``torch.tensor(values, dtype=...)`` does."""
    try:
        return as_kind(values, dtype_kind(dtype))
    except (OverflowError, ValueError):
        raise AnswerSyntaxError(
            say("{answer}: a value does not fit dtype {dtype}", answer=where, dtype=dtype)
        ) from None


def _empty(listed: tuple[int, ...]) -> Nested:
    return [] if listed[0] == 0 else [_empty(listed[1:]) for _ in range(listed[0])]
