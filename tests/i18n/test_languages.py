"""A language is one registered record: graders offers it and reads its words (``graders.i18n``).

A toy language, registered here and nowhere in graders' code, is named by the registry,
punctuates a line its own way, and its keyboard and words are read in answers by the
answers layer, which names no language itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from graders.answers.parse import AnswerSyntaxError, parse_answer, read_answer
from graders.answers.spelling import is_no_error, no_error_phrases
from graders.answers.values import Name, NoError, Scalar, Sequence
from graders.course.prompts import questions_in
from graders.i18n import (
    AUTONYMS,
    ENGLISH_NAMES,
    SOURCE_LANGUAGE,
    catalogued_languages,
    punctuated,
    registry,
)
from graders.i18n.language import Keyboard, Language, Words

TOY_NUMBERS = {"unu": 1, "du": 2, "tri": 3}
TOY = Language(
    code="xx",
    autonym="Ikso",
    english_name="Toy",
    punctuation={": ": " :: "},
    full_stop="։",
    question_mark="՞",
    keyboard=Keyboard(commas=frozenset("⸴"), double_quotes=frozenset("‹›"), full_stop="⸼"),
    words=Words(
        booleans={"jes": True, "ne": False},
        number=TOY_NUMBERS.get,
        number_words=lambda text: text == "cent",
        counted=re.compile(r"(?P<number>\S+)\s+(?P<noun>pecoj)"),
        no_error=("neniu eraro", "senerare"),
        raises=((r"levas\s+", ""),),
    ),
)


@pytest.fixture
def toy_language(monkeypatch: pytest.MonkeyPatch) -> Iterator[Language]:
    monkeypatch.setattr(registry, "LANGUAGES", registry.LANGUAGES)  # put back after
    yield registry.register(TOY)


def test_the_built_in_languages_are_offered_by_their_names() -> None:
    assert [lang.code for lang in registry.languages()][:2] == ["en", "zh"]
    assert dict(AUTONYMS) == {"en": "English", "zh": "中文"}
    assert dict(ENGLISH_NAMES) == {"en": "English", "zh": "Chinese"}
    assert AUTONYMS.get("fr", "fr") == "fr"  # a code graders knows no language of: itself
    assert punctuated("; ", "zh") == "；" and punctuated("; ", "en") == "; "


def test_every_language_with_a_catalogue_is_one_graders_knows_and_the_other_way() -> None:
    # A language is its module and its catalogue: one without the other is half added
    # (a catalogue with no name for the menu, or words read with no messages to speak).
    built_in = {lang.code for lang in registry.BUILT_IN}
    assert {SOURCE_LANGUAGE, *catalogued_languages()} == built_in


def test_a_toy_language_registered_outside_graders_is_offered(toy_language: Language) -> None:
    assert registry.language("xx") is toy_language
    assert registry.languages()[-1] is toy_language  # after the built-in ones
    assert AUTONYMS["xx"] == "Ikso" and ENGLISH_NAMES["xx"] == "Toy"
    assert punctuated(": ", "xx") == " :: "
    assert "։" in registry.full_stops()
    assert questions_in("Ĉu a? Ĉu b՞") == 2  # a prompt that asks two questions, in its marks


def test_a_toy_language_s_words_are_read_in_answers(toy_language: Language) -> None:
    for said in ("neniu eraro", "Senerare", "NENIU ERARO"):
        assert parse_answer(said) == NoError(), said
    assert "neniu eraro" in no_error_phrases()
    both = parse_answer("(jes, neniu eraro)")  # an element of a tuple, as in any language
    assert both == Sequence("tuple", (Scalar(True), NoError()))
    assert parse_answer("(du, tri)") == Sequence("tuple", (Scalar(2), Scalar(3)))
    assert parse_answer("ne") == Scalar(False)
    assert parse_answer("3 pecoj") == Scalar(3)
    assert parse_answer("levas RuntimeError") == Name("RuntimeError")
    with pytest.raises(AnswerSyntaxError):
        parse_answer("cent")  # a number it writes out, read as no number: a reason, not a name


def test_a_toy_language_s_keyboard_is_read_as_ascii(toy_language: Language) -> None:
    read = read_answer("(1⸴2)⸼")
    assert read.value == Sequence("tuple", (Scalar(1), Scalar(2)))
    assert read.notes  # "Read as `(1, 2)` ...": the learner is told what was read
    assert parse_answer("‹a›") == parse_answer('"a"')


def test_a_language_unknown_to_the_registry_is_not_read() -> None:
    assert not is_no_error("neniu eraro")
    with pytest.raises(AnswerSyntaxError):
        parse_answer("(1⸴ 2)")
    assert parse_answer("ne") == Name("ne")  # a name, as any word graders does not read


def test_an_answer_read_before_a_language_is_registered_is_read_again_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert parse_answer("jes") == Name("jes")  # read, and remembered
    monkeypatch.setattr(registry, "LANGUAGES", registry.LANGUAGES)
    registry.register(TOY)
    assert parse_answer("jes") == Scalar(True)
