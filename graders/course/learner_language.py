"""A learner's results in the language they read: feedback pages, CI logs, Gradescope.

Grading speaks the course's default language: the feedback of a result is the author's
explanations (an exercise's, a matched misconception's, a check's) joined, paragraph by
paragraph, with what graders computed. A learner who reads another language gets each of
the author's paragraphs in that language, taken from the course (in the learner's own
variant, since explanations may use its parameters), and each of graders' own sentences
as the result keeps it in that language (``said`` of a question or of the submission:
``graders.said``). Points, statuses and answers never change: answers are literals.

    languages = LearnerLanguages(loaded, "ps2")          # or forced=: one for everyone
    language = languages.language_of(student)            # their notebook's, else the default
    shown = languages.result_in(student, language)       # what a page in it shows

Which language a learner reads: the one their notebook was released in
(``StudentResult.language``), while the course still has it, unless a command forces one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..results import QuestionResult, StudentResult
from .text import text_paths
from .variants import learner_course, varied_exercises

if TYPE_CHECKING:
    from .load import LoadedCourse
    from .marks import PathKey

Translations = Mapping[str, str]  # an author's text in the default language -> in another


class LearnerLanguages:
    """The course of one assignment in each language its learners read, each made once."""

    def __init__(self, loaded: LoadedCourse, assignment: str, forced: str | None = None) -> None:
        self.loaded, self.assignment = loaded, assignment
        # A forced language is checked now: a wrong --lang is a usage error before any work.
        self.forced = loaded.language(forced) if forced is not None else None
        self._varied = bool(varied_exercises(loaded, assignment))
        self._courses: dict[str, LoadedCourse] = {}
        self._texts: dict[str, dict[str, str]] = {}

    def language_of(self, student: StudentResult) -> str:
        """The forced language, else the learner's notebook's while the course has it, else
        the course's first."""
        if self.forced is not None:
            return self.forced
        languages = self.loaded.course.languages
        return student.language if student.language in languages else languages[0]

    def course_in(self, language: str) -> LoadedCourse:
        """The whole course with its texts in ``language`` (made on first use)."""
        if language not in self._courses:
            self._courses[language] = self.loaded.in_language(language)
        return self._courses[language]

    def labels_in(self, language: str) -> dict[str, str]:
        """Misconception name -> what a learner reads for it in ``language``."""
        return self.course_in(language).course.misconception_labels()

    def result_in(self, student: StudentResult, language: str) -> StudentResult:
        """``student``'s results with every feedback and the submission's error in
        ``language``."""
        return translated(student, self.texts_for(student.student, language), language)

    def texts_for(self, student: str, language: str) -> dict[str, str]:
        """The author's texts as ``student`` was asked them, default language -> ``language``
        (computed once per language when nothing of the assignment varies per learner)."""
        if language in self._texts:
            return self._texts[language]
        texts = learner_translations(
            self.loaded, self.course_in(language), self.assignment, student
        )
        if not self._varied:
            self._texts[language] = texts
        return texts


def learner_translations(
    loaded: LoadedCourse, shown: LoadedCourse, assignment: str, student: str
) -> dict[str, str]:
    """The author's texts of ``assignment`` as ``student`` was asked them, in the default
    language -> in ``shown``'s (empty when ``shown`` speaks the default language)."""
    found = loaded.course.assignment(assignment)
    if found is None or shown is loaded:
        return {}
    ids = {i.id for i in found.exercises}
    default, other = (
        replace(c, exercises={i: e for i, e in c.exercises.items() if i in ids})
        for c in (loaded, shown)
    )
    return author_translations(learner_course(default, student), learner_course(other, student))


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
    """``student`` with every feedback in ``language``: the author's paragraphs (``texts``)
    and graders' own sentences, the submission's error among them."""
    if not texts and not _said_in(student, language):
        return student  # the language grading spoke: nothing to translate
    return replace(
        student,
        error=student.error_in(language),
        questions=tuple(_question(q, texts, language) for q in student.questions),
    )


def _said_in(student: StudentResult, language: str) -> bool:
    """Does anything of ``student`` keep a sentence in ``language``?"""
    if (student.said or {}).get(language):
        return True
    return any((q.said or {}).get(language) for q in student.questions)


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
