"""What a keyboard types for Python's ASCII punctuation, read as the ASCII it stands for.

A Chinese input method types full-width forms (``（True，True）``, ``RuntimeError：``,
``torch.Size([3，4])``), curly and corner quotes (``“False”``, ``「a」``), the ideographic
space, ``、`` for a comma, ``。`` for a full stop, ``【】`` for brackets and ``《》`` for angle
brackets, ``——`` for an underscore. A teaching assistant reads each as what it stands for,
so ``normalised`` maps them to ASCII before the answer is parsed: every full-width form
U+FF01-U+FF5E to its ASCII character, ``，`` and ``、`` to a comma (and a space before what
follows), ``。`` to ``.`` (dropped where it ends the answer: a full stop), ``——`` to ``_``,
the ideographic and no-break spaces to a space, zero-width characters to nothing.

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

from collections.abc import Callable, Iterator
from dataclasses import dataclass

# U+FF01-U+FF5E are the full-width forms of "!" to "~", in ASCII's order.
_FULL_WIDTH = {chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)}
_COMMAS = frozenset("，、")
_MARKS = {
    **_FULL_WIDTH,
    "\u3000": " ",  # ideographic space
    "\u00a0": " ",  # no-break space, pasted from a web page
    "\u200b": "",  # zero-width space
    "\ufeff": "",  # zero-width no-break space
    "。": ".",
    "【": "[",
    "】": "]",
    "《": "<",
    "》": ">",
    "〈": "<",
    "〉": ">",
}
# Quotes by the ASCII quote they stand for; a string they open ends at any of the same kind.
_DOUBLE = frozenset('"“”„‟「」＂')
_SINGLE = frozenset("'‘’‚‛『』＇")
_QUOTES = _DOUBLE | _SINGLE
_COMMENT = frozenset("#＃")
_CLOSERS = frozenset(")]}）】」』")
FULL_STOP = "。"
UNDERSCORE = "——"  # what a Chinese input method types for "_" (two em dashes)
# What to type for a character a keyboard gives that no mapping above covers.
_INSTEAD = {"—": "-", "–": "-", "‐": "-", "‑": "-", "‒": "-", "…": "..."}


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
    text = text.strip()
    while text.endswith(FULL_STOP):  # a full stop ends the answer, as a sentence
        text = text[: -len(FULL_STOP)].rstrip()
    return "".join(_ascii(text, start, piece, kind) for start, piece, kind in _pieces(text))


def unread_character(
    text: str, readable: Callable[[str], bool] = lambda word: False
) -> Unread | None:
    """The first character outside strings and comments that ``normalised`` leaves
    non-ASCII (``text`` as the learner wrote it, so the position is theirs).

    A whole word that ``readable`` says is read as a value (``是`` in ``(是, 否)``: the
    caller knows the words) is Python's too: Python reads it as a name, and the literal
    reader reads the name as the word's value."""
    for start, piece, kind in _pieces(text):
        if kind != "code":
            continue
        code = piece.replace(UNDERSCORE, "__")
        offset = 0
        while offset < len(code):
            char = code[offset]
            if char.isascii() or char in _MARKS or char in _COMMAS:
                offset += 1
                continue
            word = _word_at(code, offset)
            if word and readable(word):
                offset += len(word)
                continue
            return Unread(char, start + offset + 1, _INSTEAD.get(char), word)
    return None


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
    text = text.strip()
    if len(text) < 2 or text[0] not in _QUOTES or text[0] in "'\"":
        return None
    family = _family(text[0])
    inside = [j for j in range(1, len(text)) if text[j] in family]
    return text[1:-1] if inside == [len(text) - 1] else None


def _family(quote: str) -> frozenset[str]:
    return _DOUBLE if quote in _DOUBLE else _SINGLE


def _pieces(text: str) -> Iterator[tuple[int, str, str]]:
    """``text`` cut into (start, piece, kind): ``code``, ``string`` (in ASCII quotes, as
    Python reads it), ``typed string`` (in another keyboard's quotes) or ``comment``."""
    i, n, code_start = 0, len(text), 0
    while i < n:
        char = text[i]
        if char in _COMMENT or char in _QUOTES:
            if code_start < i:
                yield code_start, text[code_start:i], "code"
            end, kind = _end_of(text, i)
            yield i, text[i:end], kind
            i = code_start = end
        else:
            i += 1
    if code_start < n:
        yield code_start, text[code_start:], "code"


def _end_of(text: str, i: int) -> tuple[int, str]:
    """Where the comment or string starting at ``i`` ends (past its closing quote), and its kind."""
    char = text[i]
    if char in _COMMENT:
        newline = text.find("\n", i)
        return (len(text) if newline < 0 else newline), "comment"
    if char in "'\"":  # Python's own string: its escapes, and only its own quote closes it
        j = i + 1
        while j < len(text) and text[j] not in (char, "\n"):
            j += 2 if text[j] == "\\" else 1
        return min(j + 1, len(text)), "string"
    family = _family(char)
    close = next((j for j in range(i + 1, len(text)) if text[j] in family), len(text) - 1)
    return close + 1, "typed string"


def _ascii(text: str, start: int, piece: str, kind: str) -> str:
    if kind == "comment":
        return "#" + piece[1:]
    if kind == "string":
        return piece
    if kind == "typed string":
        return _python_string(piece)
    out = []
    for offset, char in enumerate(piece):
        if char in _COMMAS:
            after = text[start + offset + 1 : start + offset + 2]
            out.append("," if not after or after.isspace() or after in _CLOSERS else ", ")
        else:
            out.append(_MARKS.get(char, char))
    return "".join(out).replace(UNDERSCORE, "_")


def _python_string(piece: str) -> str:
    """A string typed in another keyboard's quotes, in ASCII quotes; its text as typed."""
    quote = '"' if piece[0] in _DOUBLE else "'"
    closed = len(piece) > 1 and piece[-1] in _family(piece[0])
    body = piece[1:-1] if closed else piece[1:]
    escaped = body.replace("\\", "\\\\").replace(quote, "\\" + quote).replace("\n", "\\n")
    return quote + escaped + (quote if closed else "")
