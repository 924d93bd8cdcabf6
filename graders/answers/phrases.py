"""Elements of a tuple or a list written as phrases Python does not read as one value.

A teaching assistant reads ``[pre B, pre A, hook B, hook A]`` as the list of strings
``['pre B', 'pre A', 'hook B', 'hook A']``, ``[tensor, post-accumulate]`` as
``['tensor', 'post-accumulate']`` and ``(True, raises RuntimeError)`` as ``(True,
RuntimeError)``: the commas say where each element ends, whatever is between them. Python
reads none of these (``pre B`` is two names, ``post-accumulate`` a subtraction), so
``elements_read`` finds each such phrase and says what it is, read as the whole answer
would be read:

- an exception class in words (``raises RuntimeError``, ``runtime error``), or a value in
  words (``forty five``, ``2 entries``): the class or the value, with the note the whole
  answer would get (``spelling``, ``words``);
- anything else made of words (each starting with a letter) joined by spaces or hyphens:
  the text itself, as a bare name is (``values.Name``). Only a string's question reads it
  (as the string's text, ``compare``); for any other it is no answer (``answerable``),
  never a wrong one.

A phrase is read only as an element, where commas separate elements: ``pre B`` alone and
``[first second]`` (no comma: one element or two?) are not read. The parser tries this only
for an answer Python's own reading refused, so what was read before is read the same, and
what is still not read keeps its own reason. Nothing here runs any text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..said import Told
from .spelling import exception_answer
from .values import Name, Scalar, Value
from .words import in_words, number_in_words

# A string (kept as it is), or a phrase of two words or more that is a whole element:
# after an opening bracket, a comma or the start, before a comma, a closing bracket or the end.
_PHRASE_OR_STRING = re.compile(
    r"""(?P<str>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
    r"|(?:(?<=[(\[,])|^)(?P<space>\s*)(?P<phrase>\w+(?:(?:[ \t]+|-)\w+)+)(?=\s*(?:[,)\]]|$))"
)
_STRING = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*\"""")
_WORD_APART = re.compile(r"[ \t]+|-")


@dataclass(frozen=True)
class Phrase:
    """What a phrase is read as, and the note that says so (if the reading needs one)."""

    value: Value
    note: Told | None = None


@dataclass(frozen=True)
class Elements:
    """``source`` with each phrase read replaced by a name that stands for it (``read``)."""

    source: str
    read: dict[str, Phrase]


def elements_read(source: str) -> Elements | None:
    """``source`` with its phrases read as elements; None when it has none (or no comma
    outside its strings, so no elements at all)."""
    if "," not in _STRING.sub("", source):
        return None
    read: dict[str, Phrase] = {}

    def stand_in(match: re.Match[str]) -> str:
        phrase = _phrase(match["phrase"]) if match["phrase"] else None
        if phrase is None:
            return match[0]
        name = _free_name(source, len(read))
        read[name] = phrase
        return match["space"] + name

    replaced = _PHRASE_OR_STRING.sub(stand_in, source)
    return Elements(replaced, read) if read else None


def _phrase(text: str) -> Phrase | None:
    """One phrase, read as the whole answer would be; None when it is none of the forms."""
    respelled = exception_answer(text)
    if respelled is not None:
        return Phrase(Name(respelled.text), respelled.note)
    worded = in_words(text)
    if worded is not None:
        return Phrase(Scalar(worded.value), worded.note)
    if number_in_words(text):
        return None  # "one hundred": a number to write in digits, as the whole answer says
    if all(part[:1].isalpha() for part in _WORD_APART.split(text)):
        return Phrase(Name(text))
    return None  # "x-1", "2 3": arithmetic or a missing comma, not words


def _free_name(source: str, index: int) -> str:
    """A Python name that stands for a phrase, found nowhere in ``source``."""
    name = f"_phrase{index}_"
    while name in source:
        name += "_"
    return name
