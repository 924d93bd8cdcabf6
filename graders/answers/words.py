"""Values a person writes in words: read them as a teaching assistant would, and say so.

A TA marking predictions by hand reads ``yes`` as ``True``, ``two`` as ``2``, ``1 tensor``
as ``1`` and ``是`` as ``True``; so does the parser, in every language graders knows (each
language's ``Words`` in ``graders.i18n``: the registry's, ``i18n.registry.languages``),
with a one-line note for the learner on how Python writes it:

- booleans: ``yes``/``no`` (any case), ``是``/``否``, ``对``/``错`` ... (``Words.booleans``);
- whole numbers in words, as each language's grammar of numbers reads them
  (``Words.number``: ``zero`` … ``ninety-nine``, ``thirty-five``, ``twice``; ``零`` …
  ``九十九``);
- a number followed by the word it counts (``Words.counted``): ``1 tensor``, ``2 entries``,
  ``two calls``, ``3 个``, ``两个元素`` — the number is graded, the word is not.

A word is read the same wherever it stands: the whole answer, or an element of a tuple
or a list (``(4, yes)``, ``[two, three]``, ``(是, 否)``, ``(一, 一)``, ``(thirty-five, 2)``),
by one function, ``word``, in every language (``keyboard`` lets such a word through as an
element; the literal reader reads it with ``word``). What is read is exactly these forms,
the whole answer or one element: ``the answer is two`` is still not an answer (the parser
says what it can read), never a wrong one. Every language's words are tried in the
registry's order. Nothing here runs any text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..i18n.language import Language
from ..i18n.registry import languages
from ..said import Told, say

# Python's own words: after a number, they make it no count ("1 true").
_PYTHON_NOT_COUNTED = frozenset({"true", "false", "none"})


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
    known = languages()
    unit = next((m for lang in known if (m := _counted(lang, text)) is not None), None)
    if unit is None or _no_count(known, unit["noun"]):
        return None  # "one hundred": not one of something called "hundred"
    number = _number(unit["number"].strip())
    if number is None:
        return None
    return InWords(
        number,
        say("Read as `{python}`: the number is graded, not the word after it.", python=number),
    )


def _counted(language: Language, text: str) -> re.Match[str] | None:
    pattern = language.words.counted
    return pattern.fullmatch(text) if pattern is not None else None


def _no_count(known: tuple[Language, ...], noun: str) -> bool:
    """Whether the word after a number makes the answer no count of things: a word no
    language counts ("error"), or one that continues the number ("hundred")."""
    not_counted, continues = _after_numbers(known)
    first = noun.split()[0].casefold() if noun.split() else ""
    return noun.casefold() in not_counted or first in continues


@lru_cache(maxsize=4)
def _after_numbers(known: tuple[Language, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The nouns no language counts, and the words that continue a number, of ``known``."""
    not_counted = _PYTHON_NOT_COUNTED.union(*(lang.words.not_counted for lang in known))
    continues = frozenset[str]().union(*(lang.words.continues_number for lang in known))
    return not_counted, continues


def word(text: str) -> bool | int | None:
    """A boolean or a number written as a word, in any language known (``yes``, ``two``,
    ``thirty-five``, ``twice``, ``是``, ``二十``); None for anything else. The one reading
    of a word, wherever in an answer it stands."""
    for lang in languages():
        said = lang.words.booleans.get(text.casefold())
        if said is not None:
            return said
        number = lang.words.number(text)
        if number is not None:
            return number
    return None


def is_word(text: str) -> bool:
    """Whether ``text`` is a word ``word`` reads."""
    return word(text) is not None


def worded_number(text: str) -> int | None:
    """A whole number written in words in any language known (``thirty-five``), as an
    int; None for anything else."""
    for lang in languages():
        number = lang.words.number(text)
        if number is not None:
            return number
    return None


def number_in_words(text: str) -> bool:
    """Whether ``text`` is made of number words only (``one hundred``, ``thirty-zero``,
    ``一百``), whether or not ``word`` reads it: one it does not read is a number the
    learner wrote out, not arithmetic nor a name."""
    return any(lang.words.number_words(text) for lang in languages())


def _number(text: str) -> int | None:
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return worded_number(text)
