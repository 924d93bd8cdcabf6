"""Values a person writes in words: read them as a teaching assistant would, and say so.

A TA marking predictions by hand reads ``yes`` as ``True``, ``two`` as ``2``, ``1 tensor``
as ``1`` and ``是`` as ``True``; so does the parser, in every course language, with a
one-line note for the learner on how Python writes it:

- booleans: ``yes``/``no`` (any case), ``是``/``否``, ``对``/``错``, ``是的``/``不是``,
  ``对的``/``不对``;
- whole numbers in words up to twenty: ``zero`` … ``twenty``, and Chinese numerals ``零``
  (``〇``) … ``二十`` with ``两`` for two;
- a number followed by the word it counts: ``1 tensor``, ``2 entries``, ``two calls``,
  ``3 个``, ``两个元素`` — the number is graded, the word is not.

An English word inside a tuple or a list is read too (``(4, yes)``, ``[two, three]``),
by the literal reader, with the same words (``ENGLISH``). What is read is exactly these
forms, the whole answer or one element: ``the answer is two`` is still not an answer (the
parser says what it can read), never a wrong one. Nothing here runs any text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..said import Told, say

_ENGLISH_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
# Every English word read as a value, by its case-folded spelling.
ENGLISH: dict[str, bool | int] = {
    "yes": True,
    "no": False,
    **{word: n for n, word in enumerate(_ENGLISH_NUMBERS)},
}
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
_ENGLISH_UNIT = re.compile(r"(?P<number>-?\d+|[A-Za-z]+)\s+(?P<noun>[A-Za-z]+(?:\s+[A-Za-z]+)?)")
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
    word = _word(text)
    if word is not None:
        return InWords(word, say("Read `{written}` as `{python}`.", written=text, python=word))
    unit = _ENGLISH_UNIT.fullmatch(text) or _CHINESE_UNIT.fullmatch(text)
    if unit is None or unit["noun"].casefold() in _NOT_UNITS:
        return None
    number = _number(unit["number"].strip())
    if number is None:
        return None
    return InWords(
        number,
        say("Read as `{python}`: the number is graded, not the word after it.", python=number),
    )


def _word(text: str) -> bool | int | None:
    """A boolean or a number written as one word (English, or Chinese)."""
    if text.casefold() in ENGLISH:
        return ENGLISH[text.casefold()]
    if text in _CHINESE_BOOLS:
        return _CHINESE_BOOLS[text]
    return chinese_number(text)


def _number(text: str) -> int | None:
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text.casefold() in _ENGLISH_NUMBERS:
        return _ENGLISH_NUMBERS.index(text.casefold())
    return chinese_number(text)


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
