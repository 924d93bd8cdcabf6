"""JSON another program sent (a request's body, a server's answer), read by one rule.

    data = read_json(body)          # any JSON value; ValueError for anything else

``json.loads`` raises ``RecursionError`` past the depth Python's stack holds (``[`` 8,000
times is 16 KB), which the usual ``except ValueError`` of a caller lets through as a
traceback; here it is one more way of not being JSON. Every reader of JSON that crossed the
network (the service's JSON bodies, ``graders.outbound``'s answers, ``graders submit``'s
client) reads it here, so a reader added later gets the same rule by using it.
"""

from __future__ import annotations

import json
from typing import Any


def read_json(raw: bytes | str) -> Any:
    """The JSON value ``raw`` holds (UTF-8 when bytes); ``ValueError`` saying why when it
    holds none: malformed, not UTF-8, or nested too deeply to read."""
    try:
        return json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def whole_number(text: str | None) -> int | None:
    """``text`` as a whole number of ASCII digits (a header's ``Content-Length`` or
    ``Retry-After``, 18 digits at most); None otherwise. ``str.isdigit`` says yes to '²'
    and to other scripts' digits, which ``int`` then refuses (or reads as another number),
    and ``int`` refuses a string of more than 4,300 digits."""
    stripped = (text or "").strip()
    if not stripped or len(stripped) > 18 or not stripped.isascii() or not stripped.isdigit():
        return None
    return int(stripped)
