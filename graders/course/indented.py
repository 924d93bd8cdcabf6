"""A text's line that Markdown would show as code: ``graders validate`` reports it.

A course's texts are CommonMark, and code in them is fenced (```` ```python ````). A line
indented four spaces or more where no paragraph is open (after a closing fence, or after
a blank line) is an *indented* code block to CommonMark: a question written under a fenced
snippet with the snippet's indentation reads, on every page, as one more line of code.
No text of a course means that, so every indented code block is reported, at the text's
place, with its line in the text and the line itself.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt

from ..errors import Problem
from .marks import dotted

if TYPE_CHECKING:
    from .loaded import LoadedCourse


@cache
def _parser() -> MarkdownIt:
    # The renderer's settings (reports.author_text): the blocks found are the blocks shown.
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def indented_code(text: str) -> list[tuple[int, str]]:
    """Each indented code block of ``text``: its first line (1-based) and that line."""
    lines = text.splitlines()
    found = []
    for token in _parser().parse(text):
        if token.type == "code_block" and token.map:
            first = token.map[0]
            found.append((first + 1, lines[first].strip()))
    return found


def indented_code_problems(loaded: LoadedCourse) -> list[Problem]:
    """Every text of the course and its exercises, in every language, with a line that
    Markdown renders as an indented code block."""
    places = [(loaded.course, loaded.marks)] + [
        (ex.template or ex.exercise, ex.marks) for ex in loaded.exercises.values()
    ]
    problems = []
    for model, marks in places:
        for path, by_language in sorted(
            model.texts_by_language().items(), key=lambda kv: str(kv[0])
        ):
            for language, text in sorted(by_language.items()):
                for line, content in indented_code(text):
                    where = path + (language,)
                    problems.append(
                        Problem(
                            marks.at(where),
                            f"{dotted(where)}: line {line} ('{content[:60]}') is indented 4 "
                            "spaces or more after a code block or a blank line, so Markdown "
                            "shows it as code; unindent it (code goes in a fenced block)",
                        )
                    )
    return problems
