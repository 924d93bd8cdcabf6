"""Values a person writes in words: read them as a teaching assistant would, and say so.

A TA marking predictions by hand reads ``yes`` as ``True``, ``two`` as ``2``, ``1 tensor``
as ``1`` and ``是`` as ``True``; so does the parser, in every course language, with a
one-line note for the learner on how Python writes it:

- booleans: ``yes``/``no`` (any case), ``是``/``否``, ``对``/``错``, ``是的``/``不是``,
  ``对的``/``不对``;
- whole numbers in words up to ninety-nine: ``zero`` … ``twenty``, ``thirty-five`` (or
  ``thirty five``) … ``ninety-nine``, ``once``/``twice``/``thrice``; Chinese numerals ``零``
  (``〇``) … ``九十九`` with ``两`` for two;
- a number followed by the word it counts: ``1 tensor``, ``2 entries``, ``two calls``,
  ``3 个``, ``两个元素`` — the number is graded, the word is not.

A word is read the same wherever it stands: the whole answer, or an element of a tuple
or a list (``(4, yes)``, ``[two, three]``, ``(是, 否)``, ``(一, 一)``, ``(thirty-five, 2)``),
by one function, ``word``, in every course language (``keyboard`` lets such a word through
as an element; the literal reader reads it with ``word``). What is read is exactly these
forms, the whole answer or one element: ``the answer is two`` is still not an answer (the
parser says what it can read), never a wrong one. Nothing here runs any text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..said import Told, say

_ENGLISH_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
# Every English word read as a value, by its case-folded spelling (compounds of a ten and
# a unit, "thirty-five", are read by ``english_number``).
ENGLISH: dict[str, bool | int] = {
    "yes": True,
    "no": False,
    "once": 1,
    "twice": 2,
    "thrice": 3,
    **{word: n for n, word in enumerate(_ENGLISH_NUMBERS)},
    **{word: 10 * n for n, word in enumerate(_TENS, start=2)},
}
_COMPOUND = re.compile(rf"(?P<tens>{'|'.join(_TENS)})[-\s]+(?P<unit>[a-z]+)")
_CHINESE_BOOLS: dict[str, bool] = {
    "是": True,
    "是的": True,
    "对": True,
    "对的": True,
    "否": False,
    "不是": False,
    "错": False,
    "不对": False,
}
_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}
_DIGITS |= {"六": 6, "七": 7, "八": 8, "九": 9}
# "3 个", "两个元素", "1 个 tensor": a Chinese measure word, then perhaps a noun.
_CHINESE_UNIT = re.compile(r"(?P<number>.+?)\s*(?:个|次|项|条)\s*(?P<noun>[^\d\s]{0,6}|[A-Za-z]+)")
# "1 tensor", "2 entries", "two calls", "0 elements": a number, then one or two words.
_ENGLISH_UNIT = re.compile(
    rf"(?P<number>-?\d+|(?i:{'|'.join(_TENS)})[-\s]+[A-Za-z]+|[A-Za-z]+)"
    r"\s+(?P<noun>[A-Za-z]+(?:\s+[A-Za-z]+)?)"
)
_NOT_UNITS = frozenset({"true", "false", "none", "error", "errors", "exception", "raised"})


@dataclass(frozen=True)
class InWords:
    """A value read from words, and the note that says how Python writes it."""

    value: bool | int
    note: Told


def in_words(source: str) -> InWords | None:
    """The whole answer ``source`` read as a value written in words; None when it is not
    one of the forms in the module docstring."""
    text = source.strip()
    value = word(text)
    if value is not None:
        return InWords(value, say("Read `{written}` as `{python}`.", written=text, python=value))
    unit = _ENGLISH_UNIT.fullmatch(text) or _CHINESE_UNIT.fullmatch(text)
    if unit is None or unit["noun"].casefold() in _NOT_UNITS or _numeric(unit["noun"]):
        return None  # "one hundred": not one of something called "hundred"
    number = _number(unit["number"].strip())
    if number is None:
        return None
    return InWords(
        number,
        say("Read as `{python}`: the number is graded, not the word after it.", python=number),
    )


def word(text: str) -> bool | int | None:
    """A boolean or a number written as a word, in any course language (``yes``, ``two``,
    ``thirty-five``, ``twice``, ``是``, ``二十``); None for anything else. The one reading
    of a word, wherever in an answer it stands."""
    english = english_number(text)
    if english is not None:
        return english
    if text.casefold() in ENGLISH:
        return ENGLISH[text.casefold()]
    if text in _CHINESE_BOOLS:
        return _CHINESE_BOOLS[text]
    return chinese_number(text)


def is_word(text: str) -> bool:
    """Whether ``text`` is a word ``word`` reads."""
    return word(text) is not None


def english_number(text: str) -> int | None:
    """``zero`` … ``ninety-nine`` (``thirty-five`` or ``thirty five``, any case) and
    ``once``/``twice``/``thrice``, as an int; None for anything else."""
    folded = text.strip().casefold()
    found = ENGLISH.get(folded)
    if isinstance(found, int) and not isinstance(found, bool):
        return found
    compound = _COMPOUND.fullmatch(folded)
    if compound is None or compound["unit"] not in _ENGLISH_NUMBERS[1:10]:
        return None
    return ENGLISH[compound["tens"]] + _ENGLISH_NUMBERS.index(compound["unit"])


_LARGE = frozenset({"hundred", "thousand", "million", "and"})
_CHINESE_LARGE = frozenset("百千万亿")


def number_in_words(text: str) -> bool:
    """Whether ``text`` is made of number words only (``one hundred``, ``thirty-zero``,
    ``一百``), whether or not ``word`` reads it: one it does not read is a number the
    learner wrote out, not arithmetic nor a name."""
    tokens = re.split(r"[-\s]+", text.strip().casefold())
    if all(_numeric(t) for t in tokens) and set(tokens) - _LARGE:
        return True
    return bool(text) and all(c in _DIGITS or c == "十" or c in _CHINESE_LARGE for c in text)


def _numeric(text: str) -> bool:
    """Whether ``text`` starts with a number word (``hundred`` in ``one hundred``)."""
    first = text.split()[0].casefold() if text.split() else ""
    named = ENGLISH.get(first)
    return first in _LARGE or (named is not None and not isinstance(named, bool))


def _number(text: str) -> int | None:
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    english = english_number(text)
    return english if english is not None else chinese_number(text)


def chinese_number(text: str) -> int | None:
    """``零`` … ``九十九`` as an int (``十`` ten, ``十二`` twelve, ``二十`` twenty, ``两``
    two); None for anything else."""
    if len(text) == 1 and text in _DIGITS:
        return _DIGITS[text]
    tens, sep, ones = text.partition("十")
    if not sep or len(text) > 3:
        return None
    high = 1 if not tens else _DIGITS.get(tens)
    low = 0 if not ones else _DIGITS.get(ones)
    if not high or low is None or (ones and low == 0):
        return None  # 零十, 十零, 十十: not how a number is written
    return 10 * high + low
