"""What a person writes that Python spells another way: read it, and say how Python writes it.

A teaching assistant reading answers by hand accepts these, so the parser does too:

- the last line of a traceback as Jupyter prints it, ``RuntimeError: a leaf Variable that
  requires grad ...`` (or ``UserWarning: ...``): the class is the answer, the message is
  not graded; a whole pasted traceback is read from its last line;
- an exception class written with spaces or in another case: ``Runtime Error``,
  ``runtimeerror``, ``out of memory error``;
- ``true``, ``false`` and ``none`` in any case, for ``True``, ``False`` and ``None``;
- "no error" in the words of each language graders knows (``no_error_phrases``, from each
  language's ``Words.no_error`` in ``graders.i18n``): ``no exception``, ``没有报错``,
  ``不报错`` ... wherever the grammar takes ``no error`` (the whole answer, with or without
  a full stop). ``None`` for no error is the comparison's business: it is also the value
  ``None``;
- an exception class in a sentence of any of those languages (``raises RuntimeError``,
  ``抛出 RuntimeError``: each language's ``Words.raises``) or with a note in parentheses.

Each reading comes with a one-line note for the learner's feedback, saying how Python
writes it. Nothing here runs any text.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from functools import lru_cache

from ..i18n import N_
from ..i18n.language import Language
from ..i18n.registry import languages
from ..said import Told, say

# Builtin exception and warning classes by their case-folded name, to restore Python's case.
BUILTIN_EXCEPTIONS = {
    name.casefold(): name
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, BaseException)
}
_SUFFIXES = ("error", "exception", "warning")
_ARTICLES = frozenset({"a", "an", "the"})
_TRACEBACK_LINE = re.compile(r"(?P<cls>[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)[ \t]*:(?P<message>.*)")
_PHRASE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:[ \t]+[A-Za-z0-9_]+){0,5}")
_TRACEBACK_START = re.compile(r"(?:Traceback \(most recent call last\)|-{10,})")
# A class, dotted (torch.OutOfMemoryError) or spelled apart in words (runtime error); as
# few words as the form allows, so "a runtime error is raised" leaves "is raised" to it.
_CLASS = r"(?P<cls>[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|[ \t]+)[A-Za-z_][A-Za-z0-9_]*)*?)"
# A class with a note, in any language: "RuntimeError (multiple views)".
_WITH_NOTE = ("", r"\s*\([^()]*\)")
CONSTANTS: dict[str, bool | None] = {"true": True, "false": False, "none": None}


def no_error_phrases() -> tuple[str, ...]:
    """How learners say "no error", in every language graders knows."""
    return tuple(p for lang in languages() for p in lang.words.no_error)


@lru_cache(maxsize=4)
def _no_error_keys(known: tuple[Language, ...]) -> frozenset[str]:
    # Compared without case and spaces.
    return frozenset("".join(p.casefold().split()) for lang in known for p in lang.words.no_error)


@lru_cache(maxsize=4)
def _raised(known: tuple[Language, ...]) -> tuple[re.Pattern[str], ...]:
    """A class in a sentence, or with a note: "raises RuntimeError", "a RuntimeError is
    raised", "抛出 RuntimeError", "RuntimeError (multiple views)". The class is graded,
    not the words."""
    forms = [*(form for lang in known for form in lang.words.raises), _WITH_NOTE]
    return tuple(re.compile(before + _CLASS + after, re.IGNORECASE) for before, after in forms)


@dataclass(frozen=True)
class Respelled:
    """Text read as something Python writes differently, and the note that says so."""

    text: str  # what Python writes: ``RuntimeError``
    note: Told


def exception_answer(source: str) -> Respelled | None:
    """An exception class written the way a person would, or None when it is not one."""
    sentence, in_sentence = _raised_class(source)
    if sentence:
        return in_sentence  # "raises an error": a sentence naming no class, not one class
    line = _last_traceback_line(source)
    match = _TRACEBACK_LINE.fullmatch(line)
    if match and match["cls"].casefold() in _SUFFIXES:
        # "error: RuntimeError", "Exception: ValueError": a word for an error, then the class
        message = match["message"].strip()
        named = _class_in(message, N_WORDS_AROUND) if message.isidentifier() else None
        named = named or exception_answer(message)
        if named is not None:
            return Respelled(named.text, say(N_WORDS_AROUND, name=named.text))
    if match:
        found = _class_in(match["cls"], N_MESSAGE_AFTER)
        if found is not None:
            return found
    if line != source or not _PHRASE.fullmatch(source):
        return None
    cls = _spelled_apart(source)
    if cls is None or cls == source:
        return None  # no class, or already Python's spelling: nothing to say
    return Respelled(cls, say("Read as `{name}`, the way Python writes the class name.", name=cls))


def _spelled_apart(text: str) -> str | None:
    """The class ``text`` names in words (``runtime error``, ``a value error``,
    ``OutOfMemoryError``) as Python writes it; None when it names none (``an error``,
    ``yes RuntimeError``: words before a class, not a class spelled apart)."""
    words = text.split()
    if len(words) > 1 and words[0].casefold() in _ARTICLES:
        words = words[1:]  # "a runtime error" is RuntimeError; "an error" names no class
    if len(words) > 1 and words[-1].casefold() not in _SUFFIXES:
        return None
    if not is_exception_name("".join(words)):
        return None
    return _canonical(" ".join(words))


def _raised_class(source: str) -> tuple[bool, Respelled | None]:
    """Whether ``source`` is a sentence saying something is raised ("raises RuntimeError",
    "抛出 RuntimeError", "RuntimeError (a note)", "raises an error"), and the class it
    names (None when it names none)."""
    sentence = False
    patterns = _raised(languages())
    for pattern in patterns:
        match = pattern.fullmatch(source.strip())
        if match is None:
            continue
        sentence = sentence or pattern is not patterns[-1]  # the last: a note, no sentence
        found = _class_in(match["cls"], N_WORDS_AROUND)
        if found is not None:
            return True, found
    return sentence, None


def raised_without_class(source: str) -> bool:
    """Whether ``source`` says something is raised but names no class (``raises an
    error``, ``an exception is raised``, ``报错``-style sentences around no class)."""
    sentence, found = _raised_class(source)
    return sentence and found is None


# What a learner reads when a class is read out of a longer answer.
N_MESSAGE_AFTER = N_("Read as `{name}`: the exception class is graded, not the message after it.")
N_WORDS_AROUND = N_("Read as `{name}`: the exception class is graded, not the words around it.")


def _class_in(dotted: str, note: str) -> Respelled | None:
    """``dotted``'s last part (or the class spelled apart in words) as Python spells the
    class, with ``note``; None when it names no exception class."""
    if _SPACED.search(dotted):
        cls = _spelled_apart(dotted)
        return None if cls is None else Respelled(cls, say(note, name=cls))
    name = dotted.rsplit(".", 1)[-1]
    if not is_exception_name(name):
        return None
    cls = _canonical(name)
    return Respelled(cls, say(note, name=cls))


_SPACED = re.compile(r"\s")


def is_no_error(source: str) -> bool:
    """Whether ``source`` says "no error" in the words of one of the languages known."""
    return "".join(source.casefold().rstrip(".").split()) in _no_error_keys(languages())


def constant_note(ident: str) -> Told:
    """The note for ``true``/``false``/``none`` written in another case."""
    python = repr(CONSTANTS[ident.casefold()])
    return say(
        "Read `{written}` as `{python}`, the way Python writes it.", written=ident, python=python
    )


def _last_traceback_line(source: str) -> str:
    """The line a pasted traceback ends with; ``source`` itself when it is one line."""
    lines = [line.strip() for line in source.strip().splitlines() if line.strip()]
    if len(lines) > 1 and _TRACEBACK_START.match(lines[0]):
        return lines[-1]
    return source.strip() if len(lines) == 1 else source


def is_exception_name(name: str) -> bool:
    """Whether ``name`` names an exception class: a builtin one (in any case), or one
    whose name ends in Error, Exception or Warning. ``error`` (or ``Error``, ``Warning``)
    alone is the word for one, not a class: it says something is raised, not what."""
    folded = name.casefold()
    if is_generic(name):
        return False
    return folded in BUILTIN_EXCEPTIONS or folded.endswith(_SUFFIXES)


def is_generic(name: str) -> bool:
    """Whether ``name`` is the word for an error rather than a class: ``error``, ``Error``,
    ``warning``, ``exception`` (but ``Exception``, written as Python writes its class)."""
    return name.casefold() in _GENERIC and name != "Exception"


_GENERIC = frozenset({"error", "errors", "warning", "warnings", "exception", "exceptions"})


def _canonical(written: str) -> str:
    """Python's spelling: a builtin's own case, else the words joined in CamelCase."""
    words = written.split()
    joined = "".join(words)
    if joined.casefold() in BUILTIN_EXCEPTIONS:
        return BUILTIN_EXCEPTIONS[joined.casefold()]
    if len(words) == 1:
        return joined  # compared without regard to case (torch's own classes are not builtins)
    return "".join(w[0].upper() + w[1:] for w in words)
