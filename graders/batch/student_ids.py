"""Student ids: which names may identify a student, in any script, and never as a path trick.

A student id names a submission folder and becomes a file name (feedback pages, Gradescope
results), so it is held to letters, digits and ``. _ - @ +``. "Letters" means any script's
(``José``, ``Zoë``, ``李雷``), with the combining marks some scripts need after a letter;
separators, spaces, control and formatting characters (a right-to-left override, a
zero-width space) are refused, and so is ``..``. Names are compared in Unicode's composed
form (NFC): a folder named ``José`` on a Mac (stored decomposed) is the roster's ``José``.
"""

from __future__ import annotations

import unicodedata

MAX_STUDENT_CHARS = 100
ALLOWED_PUNCTUATION = frozenset("._@+-")
RULE = "letters, digits and . _ - @ + only, starting with a letter or digit, no '..'"


def student_id(name: str) -> str:
    """The id a name stands for: its composed (NFC) form."""
    return unicodedata.normalize("NFC", name)


def safe_student(name: str) -> bool:
    """Can this student id be used as a file name?"""
    if not 0 < len(name) <= MAX_STUDENT_CHARS or ".." in name or name != student_id(name):
        return False
    if not _starts_a_name(name[0]):
        return False
    return all(_continues_a_name(c) for c in name[1:])


def _starts_a_name(char: str) -> bool:
    category = unicodedata.category(char)
    return category == "Nd" or category[0] == "L"


def _continues_a_name(char: str) -> bool:
    category = unicodedata.category(char)
    # Marks (M*) only after the first character: Devanagari's vowel signs, or an accent
    # that has no composed form.
    return char in ALLOWED_PUNCTUATION or category == "Nd" or category[0] in ("L", "M")
