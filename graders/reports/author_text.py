"""Author Markdown (prompts, explanations, notices) as HTML, the way every reader sees it.

The course's text is CommonMark: the feedback pages, the class report and the service's pages
render it here with markdown-it-py, and Gradescope and CI job summaries hand the same Markdown
to renderers that follow the same specification, so one sentence looks the same everywhere.
Raw HTML is off (a ``<b>`` in an explanation, or in a learner's answer quoted in feedback, is
shown as text), and an image is shown as its description: pages are read offline, and an
instructor opening the class report must not have their browser fetch an address a learner
typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup, escape

from ..said import Said


def prose(text: str | Said | None) -> Markup:
    """``text`` (CommonMark, raw HTML off) as HTML; nothing for no text. A typed text is
    rendered in the language spoken now (a learner's result is in their language already:
    ``LearnerLanguages.result_in``)."""
    if not text:
        return Markup("")
    return _html(str(text))


@lru_cache(maxsize=4096)  # a class's pages repeat the same explanations, page after page
def _html(text: str) -> Markup:
    return Markup(_renderer().render(text).rstrip("\n"))


@cache
def _renderer() -> MarkdownIt:
    # "commonmark" is the strict specification (no typographic replacements, no linkify);
    # tables are the one extension authors use, and GitHub and Gradescope render them too.
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.add_render_rule("image", _image_as_text)
    md.add_render_rule("link_open", _link_open)
    return md


def _image_as_text(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    return str(escape(tokens[idx].content))


def _link_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    # A link leaves graders' page for somewhere the author (or a quoted answer) chose: it gets
    # no access to the page that opened it and sends no referrer.
    tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
    rendered: str = self.renderToken(tokens, idx, options, env)
    return rendered
