"""Sentences graders says while grading, kept in every language it speaks.

A learner's feedback is written when the submission is graded, but read later, on a page
in the learner's language. The author's paragraphs come back in that language from the
course (``course.learner_language``); graders' own sentences ("Could not read this answer: ...",
"the code ran past its budget ...") are formatted once, at grading time, from values only
grading has. So they are said once and kept in every language at once::

    said = say("it has more than {limit} elements", limit=100)   # in the language spoken
    said_in([feedback], ("en", "zh"))   # -> {"zh": {said: "它有超过 100 个元素"}} for results

``say(message, **fields)`` formats ``message`` (an English message of graders'
catalogue) in the language being spoken (``i18n.speaking``: English while grading, the
learner's language in ``graders check``) and, for each catalogued language, the same
sentence in that language, remembered by its spoken text. A field that was itself said
(a ``Said``) is put in each language as it was said in it; any other field (an answer, a
name, a number) is written as is. ``said_in`` gives back the remembered sentences among a
feedback's lines: grading stores them with the result, so a page written later, on
another machine or a cluster's worker, needs nothing but the result.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

from .i18n import SOURCE_LANGUAGE, catalogued_languages, current_language, translations

# How many distinct sentences are remembered: well above what a batch says (answers that
# cannot be read are the most varied). Past it the memory starts again; a sentence it lost
# is shown in the language it was said in.
MEMORY_LIMIT = 1 << 16


class Said(str):
    """A sentence as it was said, with the same sentence in each other language."""

    in_languages: Mapping[str, str]


_memory: dict[str, dict[str, str]] = {}
_lock = threading.Lock()


def say(message: str, **fields: Any) -> Said:
    """``message`` with ``fields``, in the language spoken now (see the module docstring)."""
    return _said(lambda language: translations(language).gettext(message), fields)


def say_n(singular: str, plural: str, count: int, **fields: Any) -> Said:
    """``say`` of the form of a message that ``count`` asks for (``count`` is a field too)."""
    return _said(
        lambda language: translations(language).ngettext(singular, plural, count),
        {"count": count, **fields},
    )


def as_catalogued(text: str) -> Said:
    """``text`` in each language graders' catalogue says it in (a phrase of graders' own
    handed over as a plain string), as written where the catalogue does not know it.
    Nothing is formatted: ``text`` may hold braces."""
    if isinstance(text, Said):
        return text

    def said(language: str) -> str:
        return translations(language).gettext(text) if text else text

    spoken = current_language()
    return _remember(
        said(spoken), {language: said(language) for language in _languages() if language != spoken}
    )


def joined(parts: Iterable[str], separator: str = "; ") -> Said:
    """``parts`` joined, each said part in each language as it was said in it."""
    parts = list(parts)
    spoken = current_language()
    return _remember(
        separator.join(parts),
        {
            language: separator.join(_in(language, part, spoken) for part in parts)
            for language in _languages()
            if language != spoken
        },
    )


def said_in(
    texts: Iterable[str | None], languages: Iterable[str]
) -> dict[str, dict[str, str]] | None:
    """Each of ``languages`` -> every line of ``texts`` that graders said, in that language
    (None when there is none: a result with only the author's words, or only answers)."""
    wanted = tuple(languages)
    found: dict[str, dict[str, str]] = {}
    for text in texts:
        for line in (text or "").split("\n"):
            known = _memory.get(line)
            if not known:
                continue
            for language in wanted:
                if language in known and known[language] != line:
                    found.setdefault(language, {})[line] = known[language]
    return found or None


def replaced(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` written ``new`` in each language it was said in (a path shown
    as the learner knows it, say)."""
    known = _memory.get(text)
    if not known:
        return text.replace(old, new)
    return _remember(text.replace(old, new), {k: t.replace(old, new) for k, t in known.items()})


def everywhere(texts: Iterable[str | None]) -> dict[str, dict[str, str]] | None:
    """``said_in`` every catalogued language: for a sentence said before the course was known."""
    return said_in(texts, _languages())


def capitalized(text: str) -> str:
    """``text`` with its first letter upper-cased, in each language it was said in (a
    clause that starts a sentence of its own)."""
    return _first_letter(text, str.upper)


def decapitalized(text: str) -> str:
    """``text`` with its first letter lower-cased, in each language it was said in (a
    sentence that goes on after a colon)."""
    return _first_letter(text, str.lower)


def _first_letter(text: str, change: Callable[[str], str]) -> str:
    def changed(t: str) -> str:
        return change(t[:1]) + t[1:]

    if not isinstance(text, Said):
        return changed(text)
    return _remember(changed(text), {k: changed(t) for k, t in text.in_languages.items()})


def _said(template: Callable[[str], str], fields: Mapping[str, Any]) -> Said:
    spoken = current_language()
    text = _format(template(spoken), fields, spoken, spoken)
    others = {
        language: _format(template(language), fields, language, spoken)
        for language in _languages()
        if language != spoken
    }
    return _remember(text, others)


def _remember(text: str, others: dict[str, str]) -> Said:
    said = Said(text)
    said.in_languages = others
    with _lock:
        if len(_memory) >= MEMORY_LIMIT:
            _memory.clear()
        _memory.setdefault(text, {}).update(others)
    return said


@cache
def _languages() -> tuple[str, ...]:
    return tuple(dict.fromkeys((SOURCE_LANGUAGE, *catalogued_languages())))


def _format(template: str, fields: Mapping[str, Any], language: str, spoken: str) -> str:
    return template.format(**{name: _in(language, v, spoken) for name, v in fields.items()})


def _in(language: str, value: Any, spoken: str) -> Any:
    """A field as written in ``language``: a said one as it was said in it, others as is."""
    if isinstance(value, Said) and language != spoken:
        return value.in_languages.get(language, str(value))
    return value
