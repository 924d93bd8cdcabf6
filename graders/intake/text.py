"""Text from outside that graders can store and show, or the reason it cannot.

Python holds two kinds of string that no file, database or terminal can take:

- a lone surrogate (``"\\ud800"``): half of a UTF-16 pair, which valid JSON may write as
  an escape (``"\\ud800"`` in a notebook) and which UTF-8 cannot encode;
- a file name that is not UTF-8 (``Jos\\xe9`` from a zip made on an old Windows), which
  Python reads with its bytes kept as surrogates (``"Jos\\udce9"``).

Both are refused here, at the door, with the place they were found, so nothing past it
ever holds one: a grade that cannot be saved, a results file that cannot be written or
a log line that cannot be printed would otherwise cost every learner of the batch.
``shown`` writes any such string as text that can go anywhere (``Jos\\xe9``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..said import Told, say

# A JSON escape of a surrogate; only text holding one needs the walk below.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class TextRefused(ValueError):
    """Outside text that graders cannot take, with why and where (said to the reader)."""


def unstorable_at(text: str) -> int | None:
    """The index of the first character of ``text`` that UTF-8 cannot encode (None: none)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def shown(text: str) -> str:
    """``text`` as it can be stored and printed: a file name's undecodable bytes as
    ``\\xe9``, any other lone surrogate as ``\\ud800``; anything else as it is."""
    if unstorable_at(text) is None:
        return text
    raw = os.fsencode(text) if _only_escaped_bytes(text) else None
    if raw is not None:
        return raw.decode("utf-8", errors="backslashreplace")
    return text.encode("utf-8", errors="backslashreplace").decode("utf-8")


def cannot_read(path: Path | str, exc: OSError) -> Told:
    """Why ``path`` cannot be read, said (the system's own reason is kept as it is)."""
    return say("{path}: cannot read: {reason}", path=path, reason=exc.strerror or exc)


def _only_escaped_bytes(text: str) -> bool:
    # Bytes Python could not decode come back as U+DC80..U+DCFF; any other surrogate does not.
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in text)


def os_name(name: str, shown_as: str | None = None) -> str:
    """A name read from the file system, as graders' own text; ``TextRefused`` when it is not
    UTF-8 (``shown_as``: how messages name it, by default the name itself)."""
    at = unstorable_at(name)
    if at is None:
        return name
    raise TextRefused(
        say(
            "{name}: the name is not UTF-8 text (byte {byte} at character {index}): rename it",
            name=shown(shown_as or name),
            byte=shown(name[at]),
            index=at + 1,
        )
    )


def check_json(
    data: Any,
    shown_as: str,
    text: str | None = None,
    skip: Callable[[str], bool] | None = None,
) -> None:
    """Refuse a JSON (or YAML) document that holds a string UTF-8 cannot encode, naming the file
    ``shown_as`` and where the string is (``cells[3].source``). ``text``: the document's
    own text, when at hand: without a surrogate's escape in it, there is none to find.
    ``skip``: the places (``cells[3].source[0]``) whose strings are checked elsewhere."""
    if text is not None and not _SURROGATE_ESCAPE.search(text):
        return
    for where, value in _strings(data, ""):
        if skip is not None and skip(where):
            continue
        check_text(value, shown_as, where or "the document")


def check_text(value: str, shown_as: str, where: Told) -> None:
    """Refuse ``value``, found at ``where`` in the file ``shown_as``, when UTF-8 cannot
    encode it."""
    at = unstorable_at(value)
    if at is not None:
        raise TextRefused(
            say(
                "{path}: {where} holds {char}, half of a character (a lone surrogate), "
                "which is not text: remove it and save again",
                path=shown_as,
                where=where,
                char=shown(value[at]),
            )
        )


def _strings(data: Any, where: str) -> Iterator[tuple[str, str]]:
    """(where, string) of every key and string value in a JSON value, in document order
    (without recursion: a document nested as deep as JSON allows is walked too)."""
    stack: list[tuple[str, Any]] = [(where, data)]
    while stack:
        place, value = stack.pop()
        if isinstance(value, str):
            yield place, value
        elif isinstance(value, dict):
            inner = [(_key_place(place, k), k, v) for k, v in value.items()]
            for name, key, _ in inner:
                if isinstance(key, str):
                    yield name, key
            stack.extend((name, v) for name, _, v in reversed(inner))
        elif isinstance(value, list):
            stack.extend((f"{place}[{i}]", v) for i, v in reversed(list(enumerate(value))))


def _key_place(place: str, key: Any) -> str:
    name = shown(key) if isinstance(key, str) else repr(key)
    return f"{place}.{name}" if place else name
