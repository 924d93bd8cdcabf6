"""graders' own words and their catalogues: every message of the code is translated.

The messages are extracted from the code and the templates the way `make messages` does
(Babel, with babel.cfg's mapping); each language's catalogue must translate every one of
them (not fuzzy, not empty, with the same placeholders), its compiled .mo must say what
the .po says, and the template must list what the code holds (so `make messages` ran).
"""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest

babel_extract = pytest.importorskip("babel.messages.extract")
from babel.messages.frontend import parse_mapping_cfg  # noqa: E402
from babel.messages.pofile import read_po  # noqa: E402

from graders.i18n import DOMAIN, LOCALE_DIR, catalogued_languages, speaking  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
LANGUAGES = ("zh",)
# Babel's own keywords, and graders.said's: the Makefile's `make messages` passes the same
# (`-k say -k say_n:1,2`).
KEYWORDS = {**babel_extract.DEFAULT_KEYWORDS, "say": None, "say_n": (1, 2)}
PLACEHOLDER = re.compile(r"\{[a-z_]+\}|%\([a-z_]+\)s")


def extracted() -> dict[str | tuple[str, str], str]:
    """Every message of graders/ -> where it is (file:line), as Babel extracts them."""
    with (REPO / "babel.cfg").open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[str | tuple[str, str], str] = {}
    for filename, line, message, _comments, _context in babel_extract.extract_from_dir(
        str(REPO), method_map, options_map, keywords=KEYWORDS
    ):
        if message:
            found.setdefault(message, f"{filename}:{line}")
    return found


def catalogue(language: str) -> dict[str | tuple[str, str], tuple[str, ...]]:
    """The .po of ``language``: message id -> its translations, those fuzzy left out."""
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as f:
        entries = read_po(f)
    found = {}
    for m in entries:
        if m.id and not m.fuzzy:
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            found[m.id] = tuple(strings)
    return found


def test_the_package_has_messages_to_translate() -> None:
    found = extracted()
    assert "beyond the article" in found and "Your answer" in found
    assert ("{n} day", "{n} days") in found  # plurals too


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_of_the_code_is_translated(language: str) -> None:
    translated = catalogue(language)
    missing = [
        f"{where}: {message!r}"
        for message, where in extracted().items()
        if not all(translated.get(message, ("",)))
    ]
    assert not missing, (
        f"not translated into {language} (run `make messages`, then translate):\n"
        + "\n".join(missing)
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_translation_keeps_every_placeholder(language: str) -> None:
    wrong = []
    for message, strings in catalogue(language).items():
        source = message if isinstance(message, str) else message[0]
        wanted = sorted(PLACEHOLDER.findall(source))
        wrong += [f"{source!r}: {s!r}" for s in strings if sorted(PLACEHOLDER.findall(s)) != wanted]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalogue_says_what_the_po_says(language: str) -> None:
    mo = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
    with mo.open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    stale = []
    for message, strings in catalogue(language).items():
        said = (
            compiled.gettext(message)
            if isinstance(message, str)
            else compiled.ngettext(message[0], message[1], 1)
        )
        if said != strings[0]:
            stale.append(repr(message))
    assert not stale, "the .mo is older than its .po (run `make messages`):\n" + "\n".join(stale)


def test_the_template_lists_the_messages_of_the_code() -> None:
    with (LOCALE_DIR / f"{DOMAIN}.pot").open("rb") as f:
        template = {m.id for m in read_po(f) if m.id}
    assert template == set(extracted()), "run `make messages`"


def test_every_catalogued_language_is_checked_here() -> None:
    assert set(catalogued_languages()) == set(LANGUAGES)


def test_a_language_without_a_catalogue_reads_english_and_zh_hans_reads_zh() -> None:
    from graders.i18n import _

    with speaking("fr"):
        assert _("beyond the article") == "beyond the article"
    with speaking("zh-Hans"):
        assert _("beyond the article") == "原文之外"
    assert _("beyond the article") == "beyond the article"  # outside any block: English
