"""A prompt asks one question: ``graders validate`` reports one that asks two.

"How many entries are zero? And what does ``int(...)`` give?" has two readings, and a
misconception matches only one of them; a learner cannot know which the key answers. A
prompt whose prose (outside code, template expressions and quoted messages, as the
glossary reads it) holds more than one question mark, ASCII or any language's own
(``？``), is reported at its place, in each language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Problem
from ..i18n.registry import question_marks
from .glossary import prose
from .marks import dotted

if TYPE_CHECKING:
    from .loaded import LoadedCourse


def questions_in(text: str) -> int:
    """How many question marks ``text`` has outside code and quotations."""
    left = prose(text)
    return sum(left.count(mark) for mark in question_marks())


def two_question_problems(loaded: LoadedCourse) -> list[Problem]:
    """Every prompt, in every language, that asks more than one question."""
    problems = []
    for ex in loaded.exercises.values():
        model = ex.template or ex.exercise
        for path, by_language in sorted(
            model.texts_by_language().items(), key=lambda kv: str(kv[0])
        ):
            if not path or path[-1] != "prompt":
                continue
            for language, text in sorted(by_language.items()):
                asked = questions_in(text)
                if asked > 1:
                    where = path + (language,)
                    problems.append(
                        Problem(
                            ex.marks.at(where),
                            f"{dotted(where)}: asks {asked} questions (question marks outside "
                            "code): a prompt asks one, so that its key and misconceptions "
                            "answer the question the learner read",
                        )
                    )
    return problems
