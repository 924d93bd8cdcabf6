"""What graders knows of one language: the record each language's module fills in.

A language is one module of this folder (``en.py``, ``zh.py``) that builds a ``Language``,
listed in ``registry``; its catalogue of graders' own words is a file beside the code,
``graders/locale/<code>/LC_MESSAGES/graders.po``. graders reads from the record:

- its names, in its own words (``autonym``: the service's language menu) and in English
  (``english_name``: the README, the audit);
- how it writes the marks between the parts of a line (``punctuation``: ``；`` for ``; ``),
  which ``catalogues.punctuated`` gives, and how it ends a sentence and a question where
  not as English does (``full_stop``, ``question_mark``: ``。``, ``？``);
- its ``keyboard``: what its input methods type for Python's ASCII punctuation, which
  ``answers.keyboard`` reads as that ASCII;
- its ``words``: how a learner writing in it says yes and no, small numbers, a number of
  things, "no error" and "raises X", which ``answers.words`` and ``answers.spelling`` read.

A language gives only what it has: English types ASCII, so its keyboard is empty. Nothing
here reads an answer: the answers layer holds the reading, a language its words. Every
language's words are read in every answer, whatever language the learner's notebook
speaks, as a teaching assistant who knows them all would.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


def _no_number(text: str) -> int | None:
    return None


def _no_number_words(text: str) -> bool:
    return False


@dataclass(frozen=True, eq=False)
class Keyboard:
    """What a language's input methods type for Python's ASCII punctuation (each read as
    the ASCII it stands for, outside strings; see ``answers.keyboard``)."""

    marks: Mapping[str, str] = field(default_factory=dict)  # "（": "(", "。": "."
    commas: frozenset[str] = frozenset()  # read as ", " ("，", "、"): a space before what follows
    double_quotes: frozenset[str] = frozenset()  # open or close a string as '"' does ("「」")
    single_quotes: frozenset[str] = frozenset()  # open or close a string as "'" does ("『』")
    comment: frozenset[str] = frozenset()  # start a comment as "#" does ("＃")
    closers: frozenset[str] = frozenset()  # close a bracket: a comma before one takes no space
    full_stop: str = ""  # a "." that ends a sentence: dropped where it ends the answer ("。")
    underscore: str = ""  # what the input method types for "_" ("——")
    instead: Mapping[str, str] = field(default_factory=dict)  # what to type for a character


@dataclass(frozen=True, eq=False)
class Words:
    """How a learner writing in a language says values in words (see ``answers.words``
    and ``answers.spelling``); a language says only the ones it has."""

    booleans: Mapping[str, bool] = field(default_factory=dict)  # by case-folded spelling
    # A whole number written in words ("thirty-five", "三十五"), None for anything else:
    # each language has its own grammar of numbers, so each reads its own.
    number: Callable[[str], int | None] = _no_number
    # Whether the text is made of number words only, read by ``number`` or not ("one
    # hundred", "一百"): a number the learner wrote out, not a name nor arithmetic.
    number_words: Callable[[str], bool] = _no_number_words
    # A number, then the word it counts ("2 entries", "3 个"): groups ``number`` and ``noun``.
    counted: re.Pattern[str] | None = None
    # Words that, after a number, continue it rather than name what it counts ("one
    # hundred", "thirty five"); a language whose counts take a measure word needs none.
    continues_number: frozenset[str] = frozenset()
    # Nouns after a number that make the answer no count ("one error": a sentence).
    not_counted: frozenset[str] = frozenset()
    # How a learner says "no error"; compared without case and spaces.
    no_error: tuple[str, ...] = ()
    # "raises RuntimeError", "抛出 RuntimeError": the regular expressions of the words
    # before and after an exception class in a sentence, one (before, after) per form.
    raises: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, eq=False)
class Language:
    """One language graders knows: its names, how it writes and types, its words."""

    code: str  # as a course's ``languages:`` and the catalogue's folder name it: "zh"
    autonym: str  # its name in its own words: "中文"
    english_name: str  # its name in English: "Chinese"
    # The marks between the parts of a line, where it writes them otherwise: {"; ": "；"}.
    punctuation: Mapping[str, str] = field(default_factory=dict)
    full_stop: str = ""  # what ends a sentence, where not "." ("。")
    question_mark: str = ""  # what ends a question, where not "?" ("？")
    keyboard: Keyboard = field(default_factory=Keyboard)
    words: Words = field(default_factory=Words)
