"""Ids that look alike: Unicode's confusables (UTS #39), through confusable_homoglyphs.

Two strings are confusable when their *skeletons* are equal: each character decomposed
(NFD), replaced by its prototype in Unicode's ``confusables.txt`` (Cyrillic ``а`` and
full-width ``ａ`` by ``a``, ``1`` and ``I`` by ``l``, ``m`` by ``rn``), and decomposed
again. The table is Unicode's own, as the ``confusable-homoglyphs`` package ships it: a
pair for each line of ``confusables.txt``, in both directions. Each line maps a single
character (the source) to its prototype, and a prototype is never a source; so a
character with one pair whose other side has several, or is several characters, is a
source, and of a pair seen nowhere else the source is the one the file lists first.
"""

from __future__ import annotations

import unicodedata
from functools import cache


def skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text``: equal skeletons look alike."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def confusable_chars(text: str) -> tuple[str, ...]:
    """The characters of ``text`` that Unicode maps to another one, each once, in order."""
    prototypes = _prototypes()
    found = (c for c in unicodedata.normalize("NFD", text) if c in prototypes)
    return tuple(dict.fromkeys(found))


@cache
def _prototypes() -> dict[str, str]:
    """Source character -> its prototype, rebuilt from the package's table of pairs."""
    from confusable_homoglyphs.confusables import confusables_data  # 900 KB: on first use

    order = {key: index for index, key in enumerate(confusables_data)}
    prototypes = {}
    for char, pairs in confusables_data.items():
        if len(char) != 1 or len(pairs) != 1:
            continue  # a prototype of several sources
        other = pairs[0]["c"]
        others = confusables_data.get(other, ())
        if len(other) != 1 or len(others) != 1 or order[char] < order.get(other, len(order)):
            prototypes[char] = other
    return prototypes
