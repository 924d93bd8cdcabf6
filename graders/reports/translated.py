"""A learner's results in the language of their feedback page.

Grading speaks the course's default language: the feedback of a result is the author's
explanations (an exercise's, a matched misconception's, a check's) joined, paragraph by
paragraph, with what graders computed. A page in another language shows each of the
author's paragraphs in that language, taken from the course (in the learner's own
variant, since explanations may use its parameters), and each of graders' own sentences
as the result keeps it in that language (``QuestionResult.said``: ``graders.said``).
Points, statuses and answers never change: answers are literals.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..course.text import text_paths
from ..results import QuestionResult, StudentResult

if TYPE_CHECKING:
    from ..course.load import LoadedCourse
    from ..course.marks import PathKey

Translations = Mapping[str, str]  # an author's text in the default language -> in another


def author_translations(default: LoadedCourse, shown: LoadedCourse) -> dict[str, str]:
    """Every text of the exercises of ``default`` -> the same text of ``shown`` (the same
    course in another language, in the same variants), where the two differ."""
    found: dict[str, str] = {}
    for exercise_id, loaded in default.exercises.items():
        other = shown.exercises.get(exercise_id)
        if other is None:
            continue
        for source, target in _pairs(loaded.exercise, other.exercise):
            if source.strip() and source.strip() != target.strip():
                found[source.strip()] = target.strip()
    return found


def translated(student: StudentResult, texts: Translations, language: str) -> StudentResult:
    """``student`` with every feedback in ``language``, the page's: the author's paragraphs
    (``texts``) and graders' own sentences."""
    return replace(
        student, questions=tuple(_question(q, texts, language) for q in student.questions)
    )


def _question(q: QuestionResult, texts: Translations, language: str) -> QuestionResult:
    said = (q.said or {}).get(language)
    if said:
        texts = {**texts, **said}
    if not texts:
        return q
    return replace(
        q,
        feedback=_paragraphs(q.feedback, texts),
        explain=_paragraphs(q.explain, texts) if q.explain is not None else None,
    )


def _paragraphs(feedback: str, texts: Translations) -> str:
    """Each author's text found whole between the feedback's line breaks, translated.

    Longest first, so that a text holding a shorter one is translated as itself. Only
    whole paragraphs are replaced: a short title never changes a sentence graders wrote.
    """
    for source in sorted(texts, key=len, reverse=True):
        if source in feedback:
            whole = re.compile(rf"(?:(?<=\n)|^){re.escape(source)}(?=\n|$)")
            # A function, not a string: the translation is text, never a regex template.
            feedback = whole.sub(partial(_same, texts[source]), feedback)
    return feedback


def _same(text: str, _match: re.Match[str]) -> str:
    return text


def _pairs(default: BaseModel, shown: BaseModel) -> Iterator[tuple[str, str]]:
    for path in text_paths(default):
        source, target = _at(default, path), _at(shown, path)
        if isinstance(source, str) and isinstance(target, str):
            yield source, target


def _at(model: Any, path: PathKey) -> Any:
    for key in path:
        if isinstance(key, int):
            model = model[key] if isinstance(model, (list, tuple)) and key < len(model) else None
        else:
            model = getattr(model, key, None)
        if model is None:
            return None
    return model
