"""The door (graders/intake): outside text that cannot be stored, learner ids, look-alikes,
and the one CSV writer's formula guard, each with several inputs of its kind."""

from __future__ import annotations

import json
import os

import pytest

from graders.exports.csv_writer import csv_text, guarded
from graders.intake.identity import (
    case_key,
    id_problem,
    lookalike_note,
    lookalikes,
    same_but_case,
    student_id,
)
from graders.intake.lookalikes import skeleton
from graders.intake.text import TextRefused, check_json, os_name, shown, unstorable_at

# --- text that cannot be stored ------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "where"),
    [
        pytest.param('{"cells": ["\\ud800"]}', "cells[0]", id="high-surrogate"),
        pytest.param('{"cells": [{"source": "ok \\udfff"}]}', "cells[0].source", id="low"),
        pytest.param('{"a": {"\\udc00": 1}}', "a.\\udc00", id="in-a-key"),
        pytest.param('{"x": ["a", ["b", "\\uDbFf"]]}', "x[1][1]", id="upper-case-escape"),
        pytest.param('{"m": {"labels": {"k": "\\ud83d"}}}', "m.labels.k", id="half-an-emoji"),
    ],
)
def test_json_holding_half_a_character_is_refused_naming_where(document: str, where: str) -> None:
    with pytest.raises(TextRefused) as caught:
        check_json(json.loads(document), "ada/ps1.ipynb", document)
    message = str(caught.value)
    assert message.startswith(f"ada/ps1.ipynb: {where} holds \\u")
    assert "lone surrogate" in message
    message.encode("utf-8")  # the message itself can be stored and printed


@pytest.mark.parametrize(
    "document",
    [
        '{"cells": ["\\ud83d\\ude00"]}',  # a whole pair: 😀
        '{"cells": ["\\\\ud800"]}',  # an escaped backslash: the text \ud800, six characters
        '{"cells": ["é 李雷 \\u00e9"]}',
    ],
    ids=["pair", "escaped-backslash", "plain"],
)
def test_json_of_whole_characters_passes(document: str) -> None:
    check_json(json.loads(document), "ada/ps1.ipynb", document)


def test_a_document_nested_as_deep_as_json_allows_is_walked() -> None:
    data: object = "\ud800"
    for _ in range(5000):
        data = [data]
    with pytest.raises(TextRefused, match="lone surrogate"):
        check_json(data, "deep.ipynb")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"Jos\xe9", "Jos\\xe9"),  # Latin-1, from a zip made on an old Windows
        (b"\xff\xfe", "\\xff\\xfe"),
        (b"caf\xc3", "caf\\xc3"),  # half of a UTF-8 sequence
    ],
)
def test_a_file_name_that_is_not_utf8_is_refused_and_shown_as_its_bytes(
    raw: bytes, expected: str
) -> None:
    name = os.fsdecode(raw)
    assert unstorable_at(name) is not None
    assert shown(name) == expected
    with pytest.raises(TextRefused) as caught:
        os_name(name)
    assert str(caught.value).startswith(f"{expected}: the name is not UTF-8 text")


@pytest.mark.parametrize("name", ["José", "李雷", "ada", "a b.ipynb"])
def test_a_utf8_file_name_passes_as_it_is(name: str) -> None:
    assert os_name(name) == name and shown(name) == name


# --- learner ids ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("alice\u034f", "U+034F COMBINING GRAPHEME JOINER is invisible"),
        ("alice\ufe0f", "U+FE0F VARIATION SELECTOR-16 is invisible"),
        ("ali\ufe00ce", "U+FE00 VARIATION SELECTOR-1 is invisible"),
        ("alice\U000e0100", "VARIATION SELECTOR-17 is invisible"),
        ("al\u200bice", "U+200B ZERO WIDTH SPACE is invisible"),
        ("al\u200dice", "ZERO WIDTH JOINER is invisible"),
        ("alice\u2060", "WORD JOINER is invisible"),
        ("\ufeffalice", "ZERO WIDTH NO-BREAK SPACE is invisible"),
        ("ali\u00adce", "SOFT HYPHEN is invisible"),
        ("a\u3164b", "HANGUL FILLER is invisible"),
        ("a\u180eb", "MONGOLIAN VOWEL SEPARATOR is invisible"),
        ("ada\u202etxt", "RIGHT-TO-LEFT OVERRIDE is invisible"),
        ("ali\nce", "U+000A is a control character"),
        ("ali\x00ce", "U+0000 is a control character"),
        ("ali\u2028ce", "LINE SEPARATOR is a control character"),
        ("ali ce", "U+0020 SPACE is a space"),
        ("ali\u00a0ce", "NO-BREAK SPACE is a space"),
        ("al\ud800", "is not text"),
        ("a/b", "SOLIDUS is not a letter"),
        ("\u0301a", "it starts with U+0301"),
        ("a..b", "it holds '..'"),
        ("", "it is empty"),
        ("x" * 101, "longer than 100"),
    ],
)
def test_ids_that_are_not_allowed_say_why(name: str, why: str) -> None:
    problem = id_problem(name)
    assert problem is not None and why in str(problem)


@pytest.mark.parametrize("name", ["ada", "José", "Zoë", "李雷", "हिन्दी", "a+b@x.org", "S-1001"])
def test_ordinary_ids_are_allowed(name: str) -> None:
    assert id_problem(student_id(name)) is None


def test_ids_are_compared_composed_and_regardless_of_case() -> None:
    assert student_id("Jose\u0301") == "José"
    assert case_key("Alice") == case_key("ALICE") == case_key("alice")
    assert case_key("Straße") == case_key("STRASSE")
    assert same_but_case(["alice", "Alice", "bob", "ALICE", "Bob", "cy"]) == [
        ("ALICE", "Alice", "alice"),
        ("Bob", "bob"),
    ]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("alice", "\u0430lice"),  # Cyrillic а
        ("alice", "\uff41lice"),  # full-width ａ
        ("paypal", "\u0440\u0430\u0443\u0440\u0430l"),  # all but the l Cyrillic
        ("alice", "a1ice"),  # the digit one
        ("Ian", "lan"),  # capital I and small L
        ("m.li", "rn.li"),  # m and r n
        ("ОLGA", "OLGA"),  # Cyrillic capital О
    ],
)
def test_ids_that_look_alike_are_found_with_both_named(one: str, other: str) -> None:
    assert skeleton(one) == skeleton(other) or skeleton(case_key(one)) == skeleton(case_key(other))
    assert lookalikes([one, other, "zed"]) == [tuple(sorted((one, other)))]
    note = lookalike_note(other, one)
    assert repr(other) in note and repr(one) in note


def test_ids_that_differ_only_in_case_or_not_at_all_are_no_lookalikes() -> None:
    assert lookalikes(["alice", "Alice", "bob", "José", "Jose"]) == []


# --- the CSV writer ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-0.5", "-0.5"),  # a number written as text is no formula
        ("+1e3", "+1e3"),
        ("ada", "ada"),
        ("    Points Possible", "    Points Possible"),
        (-2, -2),
    ],
)
def test_every_text_cell_a_spreadsheet_would_run_is_made_text(
    cell: object, written: object
) -> None:
    assert guarded(cell) == written


def test_csv_text_guards_every_row_and_keeps_its_line_ends() -> None:
    text = csv_text([["student", "score"], ["=1+1", 3.0]], line_end="\r\n")
    assert text == "student,score\r\n'=1+1,3.0\r\n"
