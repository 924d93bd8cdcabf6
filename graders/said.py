"""What graders tells a learner, kept as data and rendered in the reader's language.

A learner's feedback is made when the submission is graded, but read later, on a page, a
CI summary, a Gradescope or JUnit file or the service's JSON, by someone who may read
another language than the one grading spoke. So nothing is written in a language while
grading: feedback is made of parts, stored as they are in the results document, and
rendered only when a reader's page is written::

    Message    one of graders' own sentences: its catalogue id (the English) and its fields
    Authored   the course author's text, by reference: the exercise and the place of the text
               in it (the learner's variant is the question's); with the text as grading read
               it, shown when the course no longer has it
    Literal    text in no language of graders' catalogue: an answer, torch's output, a
               checker's own words, a sentence kept from a document of the previous schema
    Text       parts one after the other: a feedback's paragraphs, a list joined by "; "
    Cased      a part with its first letter upper- or lower-cased (a clause that starts or
               continues a sentence)
    Said       any one of these

    feedback = paragraphs(authored("ex", ("questions", 0, "explain"), q.explain),
                          say("Got {answer}, expected {truth}.", answer="3", truth="4"))
    render(feedback, "zh", authors)   # -> "想一想。\\n得到 3，期望的是 4。"

A field of a message is a value written as is (the learner's answer stays exactly as they
wrote it, whatever the language) or a part rendered with the message. ``authors`` finds an
author's text in the reader's language (``course.learner_language``); without it the text
as grading read it is shown. ``str()`` of a part renders it in the language spoken now
(``i18n.speaking``), for the instructor's own output (logs, the command line); what a
learner reads is rendered for that learner.

A part is a frozen value: rendering reads only the part, the catalogue and the course, so
one document can be rendered for any number of readers, in any order, in one process.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias
from typing import Literal as Only

from .i18n import current_language, punctuated, translations

PathKey: TypeAlias = tuple[str | int, ...]


class _Joinable:
    """A part followed or preceded by more text (``+``) is a text of both, on one line: a
    checker may write ``where + sentence(...)`` as it would with strings."""

    __slots__ = ()

    def __add__(self, other: str | Said) -> Text:
        return joined([_part(self), _part(other)], "")  # type: ignore[arg-type]

    def __radd__(self, other: str | Said) -> Text:
        return joined([_part(other), _part(self)], "")  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Message(_Joinable):
    """One of graders' sentences: its catalogue id (``plural`` and ``count`` for a message
    with plural forms) and its fields. ``verbatim``: a phrase with no fields, braces kept."""

    msgid: str
    fields: tuple[tuple[str, Field], ...] = ()
    plural: str | None = None
    count: int | None = None
    verbatim: bool = False

    def __str__(self) -> str:
        return render(self, current_language())


@dataclass(frozen=True, slots=True)
class Authored(_Joinable):
    """The course author's text at ``path`` of exercise ``exercise`` (``text``: as grading
    read it, in the course's default language and the learner's variant)."""

    exercise: str
    path: PathKey
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Literal(_Joinable):
    """Text that is not graders' to translate. ``translations``: the same text in other
    languages, as a document of the previous schema kept them (language, text)."""

    text: str
    translations: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return render(self, current_language())


@dataclass(frozen=True, slots=True)
class Cased(_Joinable):
    """``part`` with its first letter upper-cased (``first="upper"``) or lower-cased."""

    part: Said
    first: Only["upper", "lower"]

    def __str__(self) -> str:
        return render(self, current_language())


@dataclass(frozen=True, slots=True)
class Text(_Joinable):
    """Parts one after the other, ``separator`` between them: a feedback is one, a line
    each. An empty text is false."""

    parts: tuple[Said, ...] = ()
    separator: str = "\n"

    def __bool__(self) -> bool:
        return bool(self.parts)

    def __str__(self) -> str:
        return render(self, current_language())

    @classmethod
    def of(cls, text: str) -> Text:
        """``text`` as a literal (empty text: no part): what a renderer already wrote."""
        return cls((Literal(text),)) if text else cls()

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        # A results document is parsed by pydantic: a text comes in as its JSON form.
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(_text_from_json)


# Any one part of what graders says (not a notebook's part: ``kinds.notebook_side.Part``).
Said: TypeAlias = Message | Authored | Literal | Cased | Text
Field: TypeAlias = str | int | float | Said
# What a function tells a reader: a part, or a string (a literal, or written already).
Told: TypeAlias = str | Said
# The author's text for a reference, in the reader's language (None: the course lacks it).
Authors: TypeAlias = Callable[[Authored], str | None]
_PARTS = (Message, Authored, Literal, Cased, Text)


def told(exc: BaseException) -> Told:
    """What ``exc`` tells the reader: the part it was raised with, else its message."""
    first = exc.args[0] if exc.args else None
    return first if isinstance(first, _PARTS) else str(exc)


def say(message: str, **fields: Any) -> Message:
    """``message`` (an English message of graders' catalogue) with its ``fields``."""
    return Message(message, _fields(fields))


def say_n(singular: str, plural: str, count: int, **fields: Any) -> Message:
    """``say`` of a message with plural forms: ``count`` chooses one (and is a field too)."""
    return Message(singular, _fields({"count": count, **fields}), plural, count)


def as_catalogued(text: str | Said) -> Said:
    """``text``, a phrase of graders' own handed over as a plain string, as the catalogue
    says it in each language (as written where it does not know it; braces kept)."""
    if isinstance(text, _PARTS):
        return text
    return Message(text, verbatim=True) if text else Literal("")


def authored(exercise: str, path: PathKey, text: str) -> Authored:
    """A reference to the author's ``text`` at ``path`` of ``exercise``."""
    return Authored(exercise, path, text.strip())


def paragraphs(*parts: str | Said | None) -> Text:
    """Feedback paragraphs, one a line: blank ones left out, a text's paragraphs taken in."""
    kept: list[Said] = []
    for part in parts:
        if isinstance(part, Text) and part.separator == "\n":
            kept.extend(part.parts)
        elif isinstance(part, str):
            if part.strip():
                kept.append(Literal(part.strip()))
        elif part is not None and not _blank(part):
            kept.append(part)
    return Text(tuple(kept))


def joined(parts: Iterable[str | Said], separator: str = "; ") -> Text:
    """``parts`` on one line, ``separator`` between them."""
    return Text(tuple(_part(p) for p in parts), separator)


def capitalized(text: str | Said) -> str | Said:
    """``text`` with its first letter upper-cased (a clause that starts a sentence)."""
    return text[:1].upper() + text[1:] if isinstance(text, str) else Cased(text, "upper")


def decapitalized(text: str | Said) -> str | Said:
    """``text`` with its first letter lower-cased (a sentence that goes on after a colon)."""
    return text[:1].lower() + text[1:] if isinstance(text, str) else Cased(text, "lower")


def render(part: Field, language: str, authors: Authors | None = None) -> str:
    """``part`` written in ``language``: graders' sentences from its catalogue, the author's
    texts from ``authors`` (as grading read them without it), literals as they are."""
    if isinstance(part, Message):
        return _message(part, language, authors)
    if isinstance(part, Text):
        between = punctuated(part.separator, language)
        return between.join(render(p, language, authors) for p in part.parts)
    if isinstance(part, Authored):
        found = authors(part) if authors is not None else None
        return part.text if found is None else found.strip()
    if isinstance(part, Literal):
        return dict(part.translations).get(language, part.text)
    if isinstance(part, Cased):
        text = render(part.part, language, authors)
        return (str.upper if part.first == "upper" else str.lower)(text[:1]) + text[1:]
    return str(part)


def to_json(part: Field) -> Any:
    """The JSON form of a part (a plain string is a literal without translations)."""
    if isinstance(part, Message):
        data: dict[str, Any] = {"message": part.msgid}
        if part.fields:
            data["fields"] = {name: to_json(value) for name, value in part.fields}
        if part.plural is not None:
            data |= {"plural": part.plural, "count": part.count}
        return data | ({"verbatim": True} if part.verbatim else {})
    if isinstance(part, Text):
        parts = [to_json(p) for p in part.parts]
        return parts if part.separator == "\n" else {"join": parts, "separator": part.separator}
    if isinstance(part, Authored):
        return {"author": part.exercise, "path": list(part.path), "text": part.text}
    if isinstance(part, Literal):
        return (
            {"literal": part.text, "in": dict(part.translations)}
            if part.translations
            else part.text
        )
    if isinstance(part, Cased):
        return {"case": part.first, "of": to_json(part.part)}
    return part


def from_json(data: Any) -> Field:
    """A part (or a field's plain value) from its JSON form (``ValueError`` if it is none).

    Its strings are interned: a class's results repeat the same texts (explanations, the
    messages' ids) in every student's copy, and one string each keeps a class in memory."""
    if isinstance(data, str):
        return sys.intern(data)
    if isinstance(data, (int, float)):
        return data
    if isinstance(data, list):
        return Text(tuple(_part(from_json(p)) for p in data))
    if not isinstance(data, dict):
        raise ValueError(f"not a part of a message: {data!r}")
    if "message" in data:
        fields = tuple((str(k), from_json(v)) for k, v in (data.get("fields") or {}).items())
        return Message(
            sys.intern(str(data["message"])),
            fields,
            data.get("plural"),
            data.get("count"),
            bool(data.get("verbatim", False)),
        )
    if "author" in data:
        path = tuple(data["path"])
        return Authored(sys.intern(str(data["author"])), path, sys.intern(str(data["text"])))
    if "literal" in data:
        others = tuple(sorted((str(k), str(v)) for k, v in data.get("in", {}).items()))
        return Literal(sys.intern(str(data["literal"])), others)
    if "join" in data:
        return Text(tuple(_part(from_json(p)) for p in data["join"]), str(data["separator"]))
    if "case" in data and data["case"] in ("upper", "lower"):
        return Cased(_part(from_json(data["of"])), data["case"])
    raise ValueError(f"not a part of a message: {sorted(data)}")


def _text_from_json(data: Any) -> Text:
    if isinstance(data, Text):
        return data
    found = from_json(data)
    return found if isinstance(found, Text) else Text((_part(found),))


def _message(message: Message, language: str, authors: Authors | None) -> str:
    catalogue = translations(language)
    if message.plural is not None:
        template = catalogue.ngettext(message.msgid, message.plural, message.count or 0)
    else:
        template = catalogue.gettext(message.msgid)
    if message.verbatim:
        return template
    return template.format(**{name: _value(v, language, authors) for name, v in message.fields})


def _value(value: Field, language: str, authors: Authors | None) -> Any:
    """A field as written in ``language``: a part rendered in it, any other value as is."""
    return render(value, language, authors) if isinstance(value, _PARTS) else value


def _fields(fields: Mapping[str, Any]) -> tuple[tuple[str, Field], ...]:
    # Values that are neither text, numbers nor parts (a path, an exception) are written now.
    return tuple(
        (name, v if isinstance(v, (str, int, float, *_PARTS)) else str(v))
        for name, v in fields.items()
    )


def _part(value: Field) -> Said:
    return value if isinstance(value, _PARTS) else Literal(str(value))


def _blank(part: Said) -> bool:
    if isinstance(part, Literal):
        return not part.text.strip()
    if isinstance(part, Authored):
        return not part.text
    return isinstance(part, Text) and not part.parts
