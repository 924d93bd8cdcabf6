"""Learner ids: which names may identify a learner, when two are one, when two look alike.

One rule for every place an id comes from: a submission folder, an LMS download's file
name, a roster, a times file, an extensions file, ``graders ci --student``.

- **Allowed**: letters of any script (``José``, ``Zoë``, ``李雷``) with the combining
  marks some scripts need after a letter, digits and ``. _ - @ +``, starting with a
  letter or a digit, no ``..``, at most 100 characters. An id names files (feedback
  pages, Gradescope results), so nothing else is: not a space or a separator, not a
  control character, and not an invisible one (a zero-width space, a right-to-left
  override, U+034F COMBINING GRAPHEME JOINER, a variation selector: every character
  Unicode calls default-ignorable, which renders as nothing).
- **One form**: ids are compared composed (NFC): a folder named ``José`` on a Mac
  (stored decomposed) is the roster's ``José``.
- **Unique regardless of case**: ``Alice`` and ``alice`` are one file on a
  case-insensitive disk (macOS's, Windows'), so they cannot be two learners.
- **Look-alikes** (``аlice`` with a Cyrillic ``а``, ``ａlice`` full-width, ``a1ice``)
  may be two people, so they are not refused; whoever reads the ids is warned, with both
  (``lookalikes``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from ..said import Told, say
from .lookalikes import confusable_chars, skeleton

MAX_STUDENT_CHARS = 100
ALLOWED_PUNCTUATION = frozenset("._@+-")
RULE = "letters, digits and . _ - @ + only, starting with a letter or digit, no '..'"
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): characters drawn as
# nothing. Some are marks or letters to unicodedata (U+034F, U+FE0F, U+3164).
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def student_id(name: str) -> str:
    """The id a name stands for: its composed (NFC) form."""
    return unicodedata.normalize("NFC", name)


def safe_student(name: str) -> bool:
    """Can this student id be used as a file name?"""
    return id_problem(name) is None


def id_problem(name: str) -> Told | None:
    """Why ``name`` (already composed) cannot be a learner's id; None when it can."""
    if not name:
        return say("it is empty")
    if len(name) > MAX_STUDENT_CHARS:
        return say("it is longer than {limit} characters", limit=MAX_STUDENT_CHARS)
    for char in name:
        if (why := _char_problem(char)) is not None:
            return why
    if name != student_id(name):
        return say("it is not in composed form (NFC)")
    if not _starts_a_name(name[0]):
        return say("it starts with {char}", char=describe(name[0]))
    if ".." in name:
        return say("it holds '..'")
    return None


def describe(char: str) -> str:
    """``U+0430 CYRILLIC SMALL LETTER A``: a character as a reader can look it up."""
    return f"U+{ord(char):04X} {unicodedata.name(char, '')}".rstrip()


def _char_problem(char: str) -> Told | None:
    category = unicodedata.category(char)
    if category == "Cs":
        return say("{char} is not text", char=describe(char))
    if category in ("Cc", "Zl", "Zp"):
        return say("{char} is a control character", char=describe(char))
    if category == "Zs" and not invisible(char):
        return say("{char} is a space", char=describe(char))
    if category in ("Cf", "Co", "Cn") or invisible(char):
        return say("{char} is invisible", char=describe(char))
    if not (char in ALLOWED_PUNCTUATION or category == "Nd" or category[0] in ("L", "M")):
        return say("{char} is not a letter, a digit or . _ - @ +", char=describe(char))
    return None


def invisible(char: str) -> bool:
    """Is ``char`` drawn as nothing (Unicode's Default_Ignorable_Code_Point)?"""
    code = ord(char)
    return any(low <= code <= high for low, high in DEFAULT_IGNORABLE)


def _starts_a_name(char: str) -> bool:
    # Marks (M*) only after the first character: Devanagari's vowel signs, or an accent
    # that has no composed form.
    category = unicodedata.category(char)
    return category == "Nd" or category[0] == "L"


def case_key(student: str) -> str:
    """What two ids share when they differ only in case (``Alice``, ``alice``, ``ALICE``)."""
    return student_id(student_id(student).casefold())


def same_but_case(students: Iterable[str]) -> list[tuple[str, ...]]:
    """Groups of two or more different ids that differ only in case, each sorted."""
    groups: dict[str, set[str]] = {}
    for student in students:
        groups.setdefault(case_key(student), set()).add(student)
    return sorted(tuple(sorted(g)) for g in groups.values() if len(g) > 1)


def lookalikes(students: Iterable[str]) -> list[tuple[str, str]]:
    """Pairs of ids that look alike without being one id in another case, each sorted."""
    by_look: dict[str, set[str]] = {}
    for student in set(students):
        for key in {skeleton(student), skeleton(case_key(student))}:
            by_look.setdefault(key, set()).add(student)
    pairs: set[tuple[str, str]] = set()
    for group in by_look.values():
        ordered = sorted(group)
        pairs.update(
            (a, b)
            for i, a in enumerate(ordered)
            for b in ordered[i + 1 :]
            if case_key(a) != case_key(b)
        )
    return sorted(pairs)


def lookalike_note(student: str, other: str) -> str:
    """``'аlice' looks like 'alice' (U+0430 CYRILLIC SMALL LETTER A)``: for a warning."""
    chars = [
        describe(c) for c in dict.fromkeys(confusable_chars(student) + confusable_chars(other))
    ]
    unusual = [c for c in chars if not c.startswith("U+00")]
    detail = f" ({', '.join(unusual or chars)})" if chars else ""
    return f"{student!r} looks like {other!r}{detail}"


def one_file_each(students: Iterable[str], preferred: Iterable[str] = ()) -> set[str]:
    """The ids that may name a file of their own (a feedback page, a Gradescope result):
    allowed ids, one per name a disk that ignores case sees; of ids that differ only in
    case, the one ``preferred`` (the one graded), if exactly one is, else none."""
    chosen = set(preferred)
    groups: dict[str, list[str]] = {}
    for student in students:
        if safe_student(student):
            groups.setdefault(case_key(student), []).append(student)
    owners: set[str] = set()
    for group in groups.values():
        claim = [s for s in group if s in chosen] if len(group) > 1 else group
        owners.update(claim if len(claim) == 1 else ())
    return owners
