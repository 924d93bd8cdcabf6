"""What graders knows of languages, in one home: their catalogues, names, keyboards, words.

``catalogues`` gives graders' own words in the language spoken now (gettext, over
``graders/locale/``; ``speaking``, ``_``, ``N_``, ``punctuated``). ``language`` says what
graders knows of one language (``Language``: its names, how it punctuates a line, its
``Keyboard``, its ``Words``); each language is one module that fills it in (``en``, ``zh``),
and ``registry`` lists them: every other layer asks it, and none names a language itself.
Adding a language is one module, its line in ``registry.BUILT_IN`` and its catalogue
(docs/how-to/languages.md). Nothing here imports the rest of graders.
"""

from .catalogues import (
    DOMAIN,
    LOCALE_DIR,
    N_,
    SOURCE_LANGUAGE,
    _,
    catalogued_languages,
    current_language,
    ngettext,
    punctuated,
    speaking,
    translations,
)
from .registry import AUTONYMS, ENGLISH_NAMES

__all__ = [
    "AUTONYMS",
    "DOMAIN",
    "ENGLISH_NAMES",
    "LOCALE_DIR",
    "N_",
    "SOURCE_LANGUAGE",
    "_",
    "catalogued_languages",
    "current_language",
    "ngettext",
    "punctuated",
    "speaking",
    "translations",
]
