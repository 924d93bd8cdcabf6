"""English: the language graders' messages are written in, and a learner's words in it.

Its keyboard types ASCII, so it has no keyboard of its own (a word processor's curly
quotes and dashes are any language's: ``answers.keyboard``). Its words: ``yes``/``no``;
whole numbers up to ninety-nine, ``zero`` … ``twenty``, ``thirty-five`` (or ``thirty
five``) … ``ninety-nine``, ``once``/``twice``/``thrice``; a number followed by the word it
counts, ``1 tensor``, ``two calls``; "no error" and "raises RuntimeError" in a sentence.
"""

from __future__ import annotations

import re

from .language import Language, Words

_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
BOOLEANS: dict[str, bool] = {"yes": True, "no": False}
# Every English number word read as a value, by its case-folded spelling (compounds of a
# ten and a unit, "thirty-five", are read by ``number``).
NUMBERS: dict[str, int] = {
    "once": 1,
    "twice": 2,
    "thrice": 3,
    **{word: n for n, word in enumerate(_NUMBERS)},
    **{word: 10 * n for n, word in enumerate(_TENS, start=2)},
}
_COMPOUND = re.compile(rf"(?P<tens>{'|'.join(_TENS)})[-\s]+(?P<unit>[a-z]+)")
# Number words past ninety-nine, and the "and" of "one hundred and two": not read.
_LARGE = frozenset({"hundred", "thousand", "million", "and"})
# "1 tensor", "2 entries", "two calls", "0 elements": a number, then one or two words.
_COUNTED = re.compile(
    rf"(?P<number>-?\d+|(?i:{'|'.join(_TENS)})[-\s]+[A-Za-z]+|[A-Za-z]+)"
    r"\s+(?P<noun>[A-Za-z]+(?:\s+[A-Za-z]+)?)"
)


def number(text: str) -> int | None:
    """``zero`` … ``ninety-nine`` (``thirty-five`` or ``thirty five``, any case) and
    ``once``/``twice``/``thrice``, as an int; None for anything else."""
    folded = text.strip().casefold()
    found = NUMBERS.get(folded)
    if found is not None:
        return found
    compound = _COMPOUND.fullmatch(folded)
    if compound is None or compound["unit"] not in _NUMBERS[1:10]:
        return None
    return NUMBERS[compound["tens"]] + _NUMBERS.index(compound["unit"])


_CONTINUES = frozenset(NUMBERS) | _LARGE


def number_words(text: str) -> bool:
    """Whether ``text`` is made of English number words only (``one hundred``,
    ``thirty-zero``), one of them below a hundred."""
    tokens = re.split(r"[-\s]+", text.strip().casefold())
    return all(t in _CONTINUES for t in tokens) and bool(set(tokens) - _LARGE)


LANGUAGE = Language(
    code="en",
    autonym="English",
    english_name="English",
    words=Words(
        booleans=BOOLEANS,
        number=number,
        number_words=number_words,
        counted=_COUNTED,
        continues_number=_CONTINUES,
        not_counted=frozenset({"error", "errors", "exception", "raised"}),
        no_error=(
            "no error",
            "no errors",
            "no exception",
            "no exceptions",
            "no error raised",
            "no error is raised",
            "no exception is raised",
            "nothing is raised",
            "raises nothing",
            "it raises nothing",
            "does not raise",
            "it does not raise",
            "runs without error",
            "runs without errors",
        ),
        raises=(
            (
                r"(?:it\s+|this\s+|that\s+)?(?:raises|raise|raised|throws|throw|gives)\s+"
                r"(?:an?\s+|the\s+)?",
                "",
            ),
            (r"(?:an?\s+|the\s+)?", r"\s+(?:is\s+|gets\s+|will\s+be\s+)?(?:raised|thrown)"),
        ),
    ),
)
