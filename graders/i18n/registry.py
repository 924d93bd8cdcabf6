"""The languages graders knows, in one place: each module's ``Language``, by its code.

The built-in ones are listed in ``BUILT_IN``, English (the language the messages are
written in) first; ``register`` adds another (a test's toy language, a plugin's). Whoever
needs a language's knowledge asks here: ``languages()`` for all of them (the answers
layer reads every language's keyboard and words), ``language(code)`` for one, the names
by code (``AUTONYMS``, ``ENGLISH_NAMES``) for menus and listings (a code without a language
shows as itself), and the marks that end a sentence or a question in any of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from . import en, zh
from .language import Language

BUILT_IN: tuple[Language, ...] = (en.LANGUAGE, zh.LANGUAGE)
# Every language known, in order: a tuple, replaced whole by ``register``, so that what
# the readers derive from it is remembered per tuple (every answer asks, several times).
LANGUAGES: tuple[Language, ...] = BUILT_IN


def register(language: Language) -> Language:
    """Make ``language`` known under its code (in the place of one of that code, else
    last): its words and keyboard are read in every answer ``answers.parse`` reads from
    then on. Register at import: a caller that remembers what it read (the predict kind,
    by a cell's text) does not read it again."""
    global LANGUAGES
    if language.code in (known.code for known in LANGUAGES):
        LANGUAGES = tuple(language if k.code == language.code else k for k in LANGUAGES)
    else:
        LANGUAGES = (*LANGUAGES, language)
    return language


def languages() -> tuple[Language, ...]:
    """Every language known, the built-in ones first, in the order they were registered
    (the order their words are tried in)."""
    return LANGUAGES


def language(code: str) -> Language | None:
    """The language of ``code`` exactly (``zh``), or None."""
    return next((known for known in LANGUAGES if known.code == code), None)


def full_stops() -> tuple[str, ...]:
    """What ends a sentence, in every language known: ``.`` and each language's own."""
    return (".", *(lang.full_stop for lang in LANGUAGES if lang.full_stop))


def question_marks() -> tuple[str, ...]:
    """What ends a question, in every language known: ``?`` and each language's own."""
    return ("?", *(lang.question_mark for lang in LANGUAGES if lang.question_mark))


class _Names(Mapping[str, str]):
    """A language's name by its code, as the registry has it when read."""

    def __init__(self, which: str) -> None:
        self._which = which

    def __getitem__(self, code: str) -> str:
        known = language(code)
        if known is None:
            raise KeyError(code)
        return str(getattr(known, self._which))

    def __iter__(self) -> Iterator[str]:
        return iter([known.code for known in LANGUAGES])

    def __len__(self) -> int:
        return len(LANGUAGES)


# Each language named in its own words (what a learner picks on a page) and in English
# (what the README and the audit write); ``.get(code, code)`` shows an unknown one's code.
AUTONYMS: Mapping[str, str] = _Names("autonym")
ENGLISH_NAMES: Mapping[str, str] = _Names("english_name")
