"""A learner's results in the language they read: feedback pages, CI logs, Gradescope.

A result keeps what it tells the learner as typed parts (``graders.said``): graders' own
messages by id, the author's texts by reference, literals. This is where they are written
in one reader's language: graders' messages from its catalogue, each of the author's texts
from the course in that language, in the variant the learner was asked (the question's
``variant``). Points, statuses and answers never change: answers are literals.

    languages = LearnerLanguages(loaded, "ps2")          # or forced=: one for everyone
    language = languages.language_of(student)            # their notebook's, else the default
    shown = languages.result_in(student, language)       # what a page in it shows

Which language a learner reads: the one their notebook was released in
(``StudentResult.language``), while the course still has it, unless a command forces one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..results import QuestionResult, StudentResult
from ..said import Authored, Authors, Text, render

if TYPE_CHECKING:
    from .loaded import LoadedCourse
    from .marks import PathKey


class LearnerLanguages:
    """The course of one assignment in each language its learners read, each made once."""

    def __init__(self, loaded: LoadedCourse, assignment: str, forced: str | None = None) -> None:
        self.loaded, self.assignment = loaded, assignment
        # A forced language is checked now: a wrong --lang is a usage error before any work.
        self.forced = loaded.language(forced) if forced is not None else None
        self._courses: dict[str, LoadedCourse] = {}

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
        """``student``'s results with every feedback and the submission's error written in
        ``language`` (each a text of one literal, as a page shows it)."""
        return written_in(student, language, self.authors)

    def authors(self, language: str, variant: str | None) -> Authors:
        """The author's texts in ``language``, in the variant ``variant`` (None: the base)."""
        return lambda ref: author_text(self.course_in(language), ref, variant)


def written_in(
    student: StudentResult,
    language: str,
    authors: Callable[[str, str | None], Authors] | None = None,
) -> StudentResult:
    """``student`` with its texts written in ``language``; ``authors(language, variant)``
    finds the author's texts (without it, they are shown as grading read them)."""

    def text(part: Text, variant: str | None) -> Text:
        found = authors(language, variant) if authors is not None else None
        return Text.of(render(part, language, found))

    def question(q: QuestionResult) -> QuestionResult:
        explain = text(q.explain, q.variant) if q.explain is not None else None
        return replace(q, feedback=text(q.feedback, q.variant), explain=explain)

    error = text(student.error, None) if student.error is not None else None
    return replace(student, error=error, questions=tuple(question(q) for q in student.questions))


def author_text(course: LoadedCourse, ref: Authored, variant: str | None) -> str | None:
    """The text ``ref`` names in ``course`` (one language of it), in ``variant``; None when
    the course no longer has it."""
    loaded = course.exercises.get(ref.exercise)
    if loaded is None:
        return None
    model: Any = loaded.exercise
    if variant is not None and variant.isdigit() and 0 < int(variant) <= len(loaded.variants):
        model = loaded.variants[int(variant) - 1].exercise
    found = _at(model, ref.path)
    return found if isinstance(found, str) and found.strip() else None


def _at(model: Any, path: PathKey) -> Any:
    for key in path:
        if isinstance(key, int):
            model = model[key] if isinstance(model, (list, tuple)) and key < len(model) else None
        else:
            model = getattr(model, key, None)
        if model is None:
            return None
    return model
