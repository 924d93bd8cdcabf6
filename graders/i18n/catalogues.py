"""graders' own words (headings, instructions, verdicts) in the language a reader chose.

The course's texts come per language from the course files (``course.text``); the fixed
strings of the package come from gettext catalogues: ``graders/locale/graders.pot`` is
extracted from the code and templates with Babel (``make messages``), each language's
``<lang>/LC_MESSAGES/graders.po`` translates it, and the compiled ``graders.mo`` beside it
is what runs. The ``.mo`` is committed, so a learner's install (``graders check``) needs
neither Babel nor a build step; a test fails when it is older than its ``.po`` or when a
message of the code has no translation.

The language is a context, not an argument threaded through every layer: a command
enters ``speaking(language)`` once, and every ``_()`` beneath reads it. English is the
language the messages are written in; a language without a catalogue reads them so.
"""

from __future__ import annotations

import gettext as _gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

from . import registry

DOMAIN = "graders"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
SOURCE_LANGUAGE = "en"  # the language of the messages in the code
_current: ContextVar[str] = ContextVar("graders_language", default=SOURCE_LANGUAGE)


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """Everything said inside this block is said in ``language`` (as far as it is translated)."""
    token = _current.set(language)
    try:
        yield
    finally:
        _current.reset(token)


def current_language() -> str:
    """The language ``_()`` speaks now."""
    return _current.get()


def _(message: str) -> str:
    """``message`` in the current language."""
    return translations(_current.get()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """``singular`` or ``plural`` as ``count`` asks, in the current language."""
    return translations(_current.get()).ngettext(singular, plural, count)


def punctuated(mark: str, language: str | None = None) -> str:
    """``mark`` (``"; "``, ``", "`` or ``": "`` between two parts of a line) as ``language``
    writes it (default: the language spoken now; its ``punctuation``); any other mark, and
    a mark in a language that writes it as English does, as it is."""
    writes = registry.language(language or _current.get())
    return writes.punctuation.get(mark, mark) if writes else mark


def N_(message: str) -> str:
    """Marks a message for the catalogue where it is defined; ``_()`` translates it where used."""
    return message


@lru_cache(maxsize=1)
def catalogued_languages() -> tuple[str, ...]:
    """The languages graders' own words are translated into (besides English); read once,
    as every sentence said while grading asks."""
    return tuple(
        sorted(p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo"))
    )


@lru_cache(maxsize=16)
def translations(language: str) -> _gettext.NullTranslations:
    """The compiled catalogue of ``language`` (``zh-Hans`` falls back to ``zh``); none: English."""
    wanted = list(dict.fromkeys([language, language.split("-")[0]]))
    return _gettext.translation(DOMAIN, LOCALE_DIR, languages=wanted, fallback=True)
