"""What a keyboard types for Python's ASCII punctuation, read as the ASCII it stands for.

Any keyboard may type curly quotes (``“False”``), a word processor's dashes and ellipsis,
a web page's no-break space and zero-width characters; each language's input method types
more, which its module in ``graders.i18n`` lists (``Keyboard``; Chinese: full-width forms
``（True，True）``, corner quotes ``「a」``, ``、`` for a comma, ``。`` for a full stop,
``——`` for an underscore). A teaching assistant reads each as what it stands for, so
``normalised`` maps them to ASCII before the answer is parsed, every language's at once
(the registry's, ``i18n.registry.languages``): a mark to its ASCII character, a
language's comma to a comma (and a space before what follows), its full stop to ``.``
(dropped where it ends the answer: a full stop), its underscore to ``_``, no-break spaces
to a space, zero-width characters to nothing.

Text inside a string literal keeps its meaning: a string answer is compared as written, so
what is between its quotes is never changed (``'a，b'`` stays ``'a，b'``). A string opened
by a curly, corner or full-width quote ends at the next quote of the same kind (double or
single) and is written back in ASCII quotes. A comment (``# ...``, ``＃ ...``) is left as it
is, but for its ``#``.

``unread_character`` finds what is still not ASCII outside strings and comments (but for a
whole word its caller reads as a value, such as ``是`` in ``(是, 否)``), and what to type
instead when a keyboard's habit says: the learner's message names it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from ..i18n.language import Language
from ..i18n.registry import languages

# What any keyboard may type, whatever its language: a word processor's or a web page's.
_TYPED_ANYWHERE = {
    "\u00a0": " ",  # no-break space, pasted from a web page
    "\u200b": "",  # zero-width space
    "\ufeff": "",  # zero-width no-break space
}
# Quotes by the ASCII quote they stand for; a string they open ends at any of the same kind.
_DOUBLE = frozenset('"“”„‟')
_SINGLE = frozenset("'‘’‚‛")
_CLOSERS = frozenset(")]}")
# What to type for a character a keyboard gives that no mapping covers.
_INSTEAD = {"—": "-", "–": "-", "‐": "-", "‑": "-", "‒": "-", "…": "..."}


@dataclass(frozen=True)
class _Keys:
    """Every known keyboard's marks at once, as the reader looks them up."""

    marks: Mapping[str, str]
    commas: frozenset[str]
    double: frozenset[str]
    single: frozenset[str]
    comment: frozenset[str]
    closers: frozenset[str]
    full_stops: tuple[str, ...]
    underscores: tuple[str, ...]
    instead: Mapping[str, str]
    quotes: frozenset[str]  # double and single: whatever opens a string

    def underscored(self, text: str, underscore: str = "_") -> str:
        """``text`` with each input method's underscore written as ``underscore``."""
        for typed in self.underscores:
            text = text.replace(typed, underscore)
        return text

    def family(self, quote: str) -> frozenset[str]:
        return self.double if quote in self.double else self.single


def _keys() -> _Keys:
    """The marks of every keyboard the registry knows now (a language registered later
    is read from then on)."""
    return _keys_of(languages())


@lru_cache(maxsize=4)
def _keys_of(known: tuple[Language, ...]) -> _Keys:
    boards = [lang.keyboard for lang in known]
    double = _DOUBLE.union(*(b.double_quotes for b in boards))
    single = _SINGLE.union(*(b.single_quotes for b in boards))
    return _Keys(
        # A full stop is a "." wherever it stands (it ends only the answer as a sentence).
        marks={b.full_stop: "." for b in boards if b.full_stop}
        | {k: v for b in boards for k, v in b.marks.items()}
        | _TYPED_ANYWHERE,
        commas=frozenset[str]().union(*(b.commas for b in boards)),
        double=double,
        single=single,
        comment=frozenset("#").union(*(b.comment for b in boards)),
        closers=_CLOSERS.union(*(b.closers for b in boards)),
        full_stops=tuple(b.full_stop for b in boards if b.full_stop),
        underscores=tuple(b.underscore for b in boards if b.underscore),
        instead=_INSTEAD | {k: v for b in boards for k, v in b.instead.items()},
        quotes=double | single,
    )


@dataclass(frozen=True)
class Unread:
    """A character outside strings that Python does not read, and where it is (1-based)."""

    char: str
    position: int
    instead: str | None  # what to type instead, when a keyboard's habit says
    word: str = ""  # the whole word the character starts (``也许``), when it starts one

    @property
    def code(self) -> str:
        return f"U+{ord(self.char):04X}"


def normalised(text: str) -> str:
    """``text`` with what a keyboard typed for ASCII punctuation written in ASCII."""
    keys = _keys()
    text = text.strip()
    while text.endswith(keys.full_stops):  # a full stop ends the answer, as a sentence
        stop = next(s for s in keys.full_stops if text.endswith(s))
        text = text[: -len(stop)].rstrip()
    return "".join(
        _ascii(keys, text, start, piece, kind) for start, piece, kind in _pieces(keys, text)
    )


def unread_character(
    text: str, readable: Callable[[str], bool] = lambda word: False
) -> Unread | None:
    """The first character outside strings and comments that ``normalised`` leaves
    non-ASCII (``text`` as the learner wrote it, so the position is theirs).

    A whole word that ``readable`` says is read as a value (``是`` in ``(是, 否)``: the
    caller knows the words) is Python's too: Python reads it as a name, and the literal
    reader reads the name as the word's value."""
    keys = _keys()
    for start, piece, kind in _pieces(keys, text):
        if kind != "code":
            continue
        code = keys.underscored(piece, "__")
        offset = 0
        while offset < len(code):
            char = code[offset]
            if char.isascii() or char in keys.marks or char in keys.commas:
                offset += 1
                continue
            word = _word_at(code, offset)
            if word and readable(word):
                offset += len(word)
                continue
            return Unread(char, start + offset + 1, keys.instead.get(char), word)
    return None


def comment_marks() -> tuple[str, ...]:
    """What starts a comment, on any keyboard known: ``#`` and each input method's own."""
    return tuple(sorted(_keys().comment))


def _word_at(code: str, offset: int) -> str:
    """The whole name (identifier) that the character at ``offset`` is in, if it starts
    there (a character inside a longer name, ``x是``, is no word of its own)."""
    if offset and ("a" + code[offset - 1]).isidentifier():
        return ""
    end = offset
    while end < len(code) and ("a" + code[end]).isidentifier():
        end += 1
    word = code[offset:end]
    return word if word.isidentifier() else ""


def typed_quotes(text: str) -> str | None:
    """The body of ``text`` when the whole of it is one string in curly, corner or
    full-width quotes (``“False”``), else None."""
    keys = _keys()
    text = text.strip()
    if len(text) < 2 or text[0] not in keys.quotes or text[0] in "'\"":
        return None
    family = keys.family(text[0])
    inside = [j for j in range(1, len(text)) if text[j] in family]
    return text[1:-1] if inside == [len(text) - 1] else None


def _pieces(keys: _Keys, text: str) -> Iterator[tuple[int, str, str]]:
    """``text`` cut into (start, piece, kind): ``code``, ``string`` (in ASCII quotes, as
    Python reads it), ``typed string`` (in another keyboard's quotes) or ``comment``."""
    quotes = keys.quotes
    i, n, code_start = 0, len(text), 0
    while i < n:
        char = text[i]
        if char in keys.comment or char in quotes:
            if code_start < i:
                yield code_start, text[code_start:i], "code"
            end, kind = _end_of(keys, text, i)
            yield i, text[i:end], kind
            i = code_start = end
        else:
            i += 1
    if code_start < n:
        yield code_start, text[code_start:], "code"


def _end_of(keys: _Keys, text: str, i: int) -> tuple[int, str]:
    """Where the comment or string starting at ``i`` ends (past its closing quote), and its kind."""
    char = text[i]
    if char in keys.comment:
        newline = text.find("\n", i)
        return (len(text) if newline < 0 else newline), "comment"
    if char in "'\"":  # Python's own string: its escapes, and only its own quote closes it
        j = i + 1
        while j < len(text) and text[j] not in (char, "\n"):
            j += 2 if text[j] == "\\" else 1
        return min(j + 1, len(text)), "string"
    family = keys.family(char)
    close = next((j for j in range(i + 1, len(text)) if text[j] in family), len(text) - 1)
    return close + 1, "typed string"


def _ascii(keys: _Keys, text: str, start: int, piece: str, kind: str) -> str:
    if kind == "comment":
        return "#" + piece[1:]
    if kind == "string":
        return piece
    if kind == "typed string":
        return _python_string(keys, piece)
    out = []
    for offset, char in enumerate(piece):
        if char in keys.commas:
            after = text[start + offset + 1 : start + offset + 2]
            out.append("," if not after or after.isspace() or after in keys.closers else ", ")
        else:
            out.append(keys.marks.get(char, char))
    return keys.underscored("".join(out))


def _python_string(keys: _Keys, piece: str) -> str:
    """A string typed in another keyboard's quotes, in ASCII quotes; its text as typed."""
    quote = '"' if piece[0] in keys.double else "'"
    closed = len(piece) > 1 and piece[-1] in keys.family(piece[0])
    body = piece[1:-1] if closed else piece[1:]
    escaped = body.replace("\\", "\\\\").replace(quote, "\\" + quote).replace("\n", "\\n")
    return quote + escaped + (quote if closed else "")
