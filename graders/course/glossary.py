"""The course's terms per language (``glossary:`` in ``course.yml``), and the texts that
leave one in the default language.

    glossary:
      - term: {en: leaf, zh: 叶子节点}
      - term: {en: weight decay, zh: 权重衰减}
      - term: {en: tensor, zh: tensor}        # kept as it is in that language

A text in another language that still says a term in the default language, outside code
(fenced blocks, inline code), template expressions and double-quoted messages (torch's
errors are quoted as torch says them), is reported by ``graders validate``: "带 momentum
和 weight decay 的 SGD" where the glossary says 动量 and 权重衰减. A term given the same in
both languages is kept, never reported.

A term may also name the renderings a language must not use (``forbidden:``): the course
keeps "in-place" in Chinese, so a Chinese text that says 就地 or 原地 is reported, code and
quotations again excepted::

      - term: {en: in-place, zh: in-place}
        forbidden: {zh: [就地, 原地]}
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import Problem
from .marks import Marks, PathKey, dotted
from .text import Translatable

if TYPE_CHECKING:
    from .loaded import LoadedCourse

# What is not prose: a term inside these is code or a quotation, and stays as written.
_NOT_PROSE = re.compile(
    r"```.*?```"  # fenced code
    r"|`[^`\n]*`"  # inline code
    r"|\{\{.*?\}\}|\{%.*?%\}"  # template expressions
    r'|"[^"\n]*"'  # a quoted message ("... is at version 1; expected version 0")
    r"|“[^”\n]*”",
    re.S,
)


@dataclass(frozen=True)
class Term:
    """A glossary entry: the term in the default language and in one other."""

    source: str  # "weight decay"
    translated: str  # "权重衰减"
    forbidden: tuple[str, ...] = ()  # other renderings this language must not use: "就地"

    @property
    def kept(self) -> bool:
        """Is the term written as it is in the default language (``tensor``)?"""
        return self.source.casefold() == self.translated.casefold()

    def pattern(self) -> re.Pattern[str]:
        """The term as a word of prose, plural included: ``buffer``, ``buffers``."""
        words = r"[\s-]+".join(re.escape(w) for w in self.source.split())
        return re.compile(rf"(?<![\w-]){words}(?:s|es)?(?![\w-])", re.I)


def terms(loaded: LoadedCourse, language: str) -> list[Term]:
    """The glossary's terms for ``language``, longest first (``non-leaf`` before ``leaf``)."""
    course = loaded.course
    default = course.languages[0]
    found = []
    for i, entry in enumerate(course.glossary):
        by_language = _texts_at(course, ("glossary", i, "term"))
        if language in by_language:
            forbidden = tuple(entry.forbidden.get(language, ()))
            found.append(
                Term(by_language.get(default, entry.term), by_language[language], forbidden)
            )
    return sorted(found, key=lambda t: len(t.source), reverse=True)


def prose(text: str) -> str:
    """``text`` without its code, template expressions and quoted messages."""
    return _NOT_PROSE.sub(" ", text)


def untranslated_terms(text: str, glossary: list[Term]) -> list[Term]:
    """The glossary terms ``text`` leaves in the default language (longest first, each
    once: ``non-leaf`` is not also a ``leaf``)."""
    left = prose(text)
    found = []
    for term in glossary:
        if term.kept:
            continue
        pattern = term.pattern()
        if pattern.search(left):
            found.append(term)
            left = pattern.sub(" ", left)
    return found


def other_renderings(text: str, glossary: list[Term]) -> list[tuple[Term, str]]:
    """The forbidden renderings ``text`` uses in its prose, each with its term."""
    left = prose(text)
    return [(term, word) for term in glossary for word in term.forbidden if word in left]


def glossary_problems(loaded: LoadedCourse) -> list[Problem]:
    """Every text in a language other than the default that leaves a glossary term in the
    default language, at the place of that text."""
    problems: list[Problem] = []
    for language in loaded.course.languages[1:]:
        glossary = terms(loaded, language)
        if not glossary:
            continue
        places = [(loaded.course, loaded.marks)] + [
            (ex.template or ex.exercise, ex.marks) for ex in loaded.exercises.values()
        ]
        for model, marks in places:
            problems += _problems_in(model, marks, language, glossary)
    return problems


def _problems_in(
    model: Translatable, marks: Marks, language: str, glossary: list[Term]
) -> Iterator[Problem]:
    for path, by_language in sorted(_all_texts(model).items(), key=lambda kv: str(kv[0])):
        if path[:1] == ("glossary",) or language not in by_language:
            continue
        for term in untranslated_terms(by_language[language], glossary):
            where = path + (language,)
            yield Problem(
                marks.at(where),
                f"{dotted(where)}: '{term.source}' left untranslated "
                f"(the glossary says '{term.translated}')",
            )
        for term, word in other_renderings(by_language[language], glossary):
            where = path + (language,)
            yield Problem(
                marks.at(where),
                f"{dotted(where)}: '{word}' for '{term.source}' "
                f"(the glossary says '{term.translated}')",
            )


def _all_texts(model: Translatable) -> Mapping[PathKey, Mapping[str, str]]:
    return model.texts_by_language()


def _texts_at(model: Translatable, path: PathKey) -> Mapping[str, str]:
    return _all_texts(model).get(path, {})
