"""What a learner reads, in each of the course's languages.

``course.yml`` names the course's languages (``languages: [en, zh]``; the first is the
default, and ``[en]`` when absent). A field marked ``Text`` in the models, in the course
file or an exercise file, holds a plain string in the default language, or a mapping
from language to string:

    prompt:
      en: What does `a is b` give?
      zh: `a is b` 的结果是什么？

The models keep every such field a plain ``str`` in the default language, so every
consumer reads them unchanged. The other languages are kept aside on the model, and
``model.in_language("zh")`` gives the same frozen model with every text in that language,
or in the default language where a text has none. Answers never depend on the language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, PrivateAttr, StringConstraints, WithJsonSchema

from ..errors import Problem
from .marks import Marks, PathKey, dotted

DEFAULT_LANGUAGES = ("en",)


class _TextField:
    """Marks a model field as a text learners read, given per language."""

    def __repr__(self) -> str:
        return "Text"


TEXT = _TextField()
_SCHEMA = {
    "anyOf": [
        {"type": "string"},
        {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "the text per language, e.g. {en: ..., zh: ...}",
        },
    ]
}
Text = Annotated[str, TEXT, WithJsonSchema(_SCHEMA)]
_CODE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")  # en, zh, zh-Hans
Language = Annotated[str, StringConstraints(pattern=_CODE.pattern)]
Texts = dict[PathKey, dict[str, str]]  # where a text is -> {language: text}, default language first
M = TypeVar("M", bound="Translatable")


class Translatable(BaseModel):
    """A model whose ``Text`` fields may carry other languages than the default."""

    _texts: Texts = PrivateAttr(default_factory=dict)

    def in_language(self: M, language: str) -> M:
        """This model with every text in ``language`` (else in the default language)."""
        return self._choose(lambda by_language: by_language.get(language, _default(by_language)))

    def in_default_language(self: M) -> M:
        """This model with every text in the course's default language (as loaded)."""
        return self._choose(_default)

    def _choose(self: M, choose: Callable[[dict[str, str]], str]) -> M:
        if not self._texts:
            return self
        data = self.model_dump()
        for path, by_language in self._texts.items():
            _put(data, path, choose(by_language))
        translated: M = with_texts(type(self).model_validate(data), self._texts)
        return translated

    def text_languages(self, path: PathKey) -> tuple[str, ...]:
        """The languages the text at ``path`` is given in; () for a plain string."""
        return tuple(self._texts.get(tuple(path), ()))

    def texts_by_language(self) -> Texts:
        """Where each text given per language is -> that text in each language (a copy)."""
        return {path: dict(by_language) for path, by_language in self._texts.items()}


def with_texts(model: Any, texts: Texts) -> Any:
    """``model`` with its other-language texts attached (a model that cannot carry them: as is)."""
    if texts and isinstance(model, Translatable):
        model._texts = texts
    return model


def declared_languages(data: Any) -> tuple[str, ...]:
    """The languages a raw course file declares, to read its texts by.

    The default when it declares none; () when its list is broken, which the course model
    reports: texts are then read in whatever languages they give, so that one mistake in
    ``languages`` is not reported again at every text.
    """
    if not isinstance(data, dict) or "languages" not in data:
        return DEFAULT_LANGUAGES
    found = data["languages"]
    valid = (
        isinstance(found, list)
        and found
        and all(isinstance(x, str) and _CODE.match(x) for x in found)
    )
    return tuple(found) if valid and len(set(found)) == len(found) else ()


def split_texts(
    model: type[BaseModel], data: Any, languages: Sequence[str], marks: Marks
) -> tuple[Any, Texts, list[Problem]]:
    """Raw file data with every per-language text replaced by its default-language string.

    Returns that data (for the model to validate), the texts by place, and the problems
    found: a text that is not a string, no text in the default language.
    """
    texts: Texts = {}
    problems: list[Problem] = []
    out = _split(model, data, (), list(languages), marks, texts, problems)
    return out, texts, problems


def _split(
    model: type[BaseModel],
    data: Any,
    path: PathKey,
    languages: list[str],
    marks: Marks,
    texts: Texts,
    problems: list[Problem],
) -> Any:
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for name, field in model.model_fields.items():
        if name not in data:
            continue
        here = path + (name,)
        if TEXT in field.metadata:
            if isinstance(data[name], dict):
                out[name] = _pick(data[name], here, languages, marks, texts, problems)
            continue
        inner = model_in(field.annotation)
        if inner is not None and isinstance(data[name], list):
            out[name] = [
                _split(inner, item, here + (i,), languages, marks, texts, problems)
                for i, item in enumerate(data[name])
            ]
        elif inner is not None:
            out[name] = _split(inner, data[name], here, languages, marks, texts, problems)
    return out


def _pick(
    given: dict[Any, Any],
    path: PathKey,
    languages: list[str],
    marks: Marks,
    texts: Texts,
    problems: list[Problem],
) -> Any:
    by_language: dict[str, str] = {}
    for language, text in given.items():
        if isinstance(text, str):
            by_language[str(language)] = text
        else:
            problems.append(
                Problem(
                    marks.at(path + (language,)),
                    f"{dotted(path + (language,))}: expected text, got {text!r:.60}",
                )
            )
    default = (
        languages[0] if languages else next(iter(given), "")
    )  # no usable course list: reported there
    if default not in by_language:
        if default not in given:  # given, but not as text: reported above
            problems.append(
                Problem(
                    marks.at(path),
                    f"{dotted(path)}: no text in the course's default language '{default}'",
                )
            )
        return next(iter(by_language.values()), "")
    texts[path] = {
        default: by_language[default],
        **{k: v for k, v in by_language.items() if k != default},
    }
    return by_language[default]


def language_problems(model: BaseModel, languages: Sequence[str], marks: Marks) -> list[Problem]:
    """A problem for every text of ``model`` in a language the course lacks, or lacking one it has.

    Neither stops a course from loading (a text falls back to the default language), so
    they are ``graders validate``'s to report.
    """
    from ..errors import did_you_mean

    shown = ", ".join(languages)
    problems = []
    for path in text_paths(model):
        given = (model.text_languages(path) if isinstance(model, Translatable) else ()) or tuple(
            languages[:1]
        )
        for language in given:
            if language not in languages:
                hint = did_you_mean(language, list(languages))
                message = (
                    f"{dotted(path + (language,))}: unknown language '{language}' "
                    f"(the course's languages: {shown}){hint}"
                )
                problems.append(Problem(marks.at(path + (language,)), message))
        missing = [language for language in languages if language not in given]
        if missing:
            problems.append(
                Problem(
                    marks.at(path),
                    f"{dotted(path)}: no {' or '.join(missing)} text "
                    f"(the course's languages: {shown})",
                )
            )
    return problems


def text_paths(model: BaseModel, path: PathKey = ()) -> Iterator[PathKey]:
    """Where ``model``'s non-empty texts are, in field order."""
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        if TEXT in field.metadata:
            if value:
                yield path + (name,)
        elif isinstance(value, BaseModel):
            yield from text_paths(value, path + (name,))
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel):
                    yield from text_paths(item, path + (name, i))


def model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds, directly or as the items of a list (or an optional)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = model_in(arg)
        if found is not None:
            return found
    return None


def _default(by_language: dict[str, str]) -> str:
    return next(iter(by_language.values()))  # the default language comes first


def _put(data: Any, path: PathKey, value: str) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value
