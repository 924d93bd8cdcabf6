"""Substituting an exercise's parameters into its texts and code: Jinja2, sandboxed.

A parameter is referenced as ``{{ name }}`` (``{{ scale * 2 }}``, ``{{ shape[0] }}``:
Jinja's expressions, evaluated by its sandboxed environment, never by ``eval``). A list
reads as Python writes it (``[3, 4]``), a string as itself (``torch.{{ dtype }}``).

Which fields are templates is said by each model, in ``TEMPLATED`` (the names of its
fields that are); a field holding models (the questions) is walked into. Only exercises
that declare ``params`` are rendered: any other exercise is used exactly as written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from .marks import PathKey
from .text import Translatable, with_texts

if TYPE_CHECKING:
    from jinja2 import Template
    from jinja2.sandbox import SandboxedEnvironment

M = TypeVar("M", bound=BaseModel)


def templated(model: BaseModel, path: PathKey = ()) -> Iterator[tuple[PathKey, str]]:
    """(path, text) of every template in ``model``, in field order."""
    names: frozenset[str] = getattr(type(model), "TEMPLATED", frozenset())
    for name in type(model).model_fields:
        if name not in names:
            continue
        value = getattr(model, name)
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        for index, item in items:
            here = path + ((name,) if index is None else (name, index))
            if isinstance(item, str):
                yield here, item
            elif isinstance(item, BaseModel):
                yield from templated(item, here)


def other_languages(model: BaseModel, path: PathKey) -> dict[str, str]:
    """The texts at ``path`` in the languages other than the default one."""
    if not isinstance(model, Translatable):
        return {}
    given = model._texts.get(tuple(path), {})
    return dict(list(given.items())[1:])  # the default language comes first


def render(source: str, values: Mapping[str, Any]) -> str:
    """``source`` with the parameters substituted (Jinja errors propagate)."""
    if _plain(source):
        return source  # most texts of an exercise with parameters use none of them
    return _compiled(source).render(**values)


def render_model(model: M, values: Mapping[str, Any]) -> M:
    """``model`` with every template rendered, in every language it carries.

    Its ``params`` keep only ``values`` (one value each): a rendered model is one variant,
    and what identifies it (its content hash) holds the values it was rendered with.
    """
    data = model.model_dump()
    if "params" in data:
        data["params"] = {name: [value] for name, value in values.items()}
    texts = dict(model._texts) if isinstance(model, Translatable) else {}
    for path, source in templated(model):
        _put(data, path, render(source, values))
        if path in texts:
            texts[path] = {lang: render(text, values) for lang, text in texts[path].items()}
    rendered: M = with_texts(type(model).model_validate(data), texts)
    return rendered


def names_in(source: str) -> set[str]:
    """The names a template reads (``TemplateSyntaxError`` when it is not one)."""
    from jinja2 import meta

    if _plain(source):
        return set()
    environment = _environment()
    found = meta.find_undeclared_variables(environment.parse(source))
    return {name for name in found if name not in environment.globals}


def has_template_syntax(text: str) -> bool:
    """Does ``text`` use Jinja's syntax (so it means something only with parameters)?"""
    return any(mark in text for mark in ("{{", "{%", "{#"))


def _plain(text: str) -> bool:
    # What Jinja renders to itself: no syntax, and no carriage return (its newline rule
    # would make one a line feed).
    return not has_template_syntax(text) and "\r" not in text


@lru_cache(maxsize=4096)
def _compiled(source: str) -> Template:
    return _environment().from_string(source)


@lru_cache(maxsize=1)
def _environment() -> SandboxedEnvironment:
    # Imported here: a course without parameters never loads Jinja.
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    # StrictUndefined: a name that is not a parameter is an error, never an empty string.
    # keep_trailing_newline: a setup renders to the same lines the author wrote.
    return SandboxedEnvironment(
        undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False
    )


def _put(data: Any, path: PathKey, value: str) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value
