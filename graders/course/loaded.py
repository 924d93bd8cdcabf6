"""The course as loaded: values every layer passes (``load`` makes them).

LoadedCourse     a whole course, valid: its models, where each value is in its files
LoadedExercise   an exercise, the kind that reads it, and its variants
ExerciseVariant  one variant of an exercise, rendered with its values
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import Location, UsageError, did_you_mean
from .kinds import CourseSide
from .marks import Marks
from .model import Assignment, Course
from .params import describe


@dataclass(frozen=True)
class ExerciseVariant:
    """One variant of an exercise: its number (1 is the base), values and rendered model."""

    number: int
    values: Mapping[str, Any]
    exercise: Any  # the kind's model, every template rendered with ``values``

    @property
    def label(self) -> str:
        """``2 (scale=3)``: the variant as tables and messages name it."""
        return f"{self.number} ({describe(self.values)})"


@dataclass(frozen=True)
class LoadedExercise:
    """An exercise, the kind that grades it, and where its values are in its file.

    An exercise with ``params`` is its base variant here; ``template`` is the exercise as
    written and ``variants`` every variant the course allows (``course/variants.py``).
    """

    exercise: Any  # the kind's model, a subclass of ExerciseBase
    kind: CourseSide[Any]  # the rest of its kind: ``kinds.registry.kind_of``
    marks: Marks
    template: Any = None  # the model as written, with its templates; None without params
    variants: tuple[ExerciseVariant, ...] = ()

    def in_language(self, language: str) -> LoadedExercise:
        """The same exercise, each of its variants too, with every text in ``language``."""
        return replace(
            self,
            exercise=self.exercise.in_language(language),
            template=self.template.in_language(language) if self.template else None,
            variants=tuple(
                replace(v, exercise=v.exercise.in_language(language)) for v in self.variants
            ),
        )


@dataclass(frozen=True)
class LoadedCourse:
    """A whole course, valid: every exercise an assignment names exists."""

    root: Path
    course: Course
    marks: Marks
    exercises: dict[str, LoadedExercise]

    # Every id an exercise, an answer key or an item had before -> its id now (the loader
    # finds them: ``renames.former_ids``).
    renamed: Mapping[str, str] = field(default_factory=dict)

    def language(self, chosen: str | None) -> str:
        """The language a command speaks: ``chosen`` (one of the course's), else the default."""
        if chosen is None:
            return self.course.languages[0]
        if chosen not in self.course.languages:
            raise UsageError(
                f"--lang {chosen}: the course has no language '{chosen}' "
                f"(its languages: {', '.join(self.course.languages)})"
            )
        return chosen

    def in_language(self, language: str) -> LoadedCourse:
        """The same course with every text in ``language`` (else in the default language)."""
        if language not in self.course.languages:
            raise UsageError(
                f"the course has no language '{language}' "
                f"(its languages: {', '.join(self.course.languages)})"
            )
        if language == self.course.languages[0]:
            return self  # its models hold the default language's texts already
        exercises = {i: e.in_language(language) for i, e in self.exercises.items()}
        return replace(self, course=self.course.in_language(language), exercises=exercises)


def get_assignment(loaded: LoadedCourse, assignment_id: str) -> Assignment:
    """The assignment named on the command line, or a usage error with a hint."""
    found = loaded.course.assignment(assignment_id)
    if found is None:
        ids = [a.id for a in loaded.course.assignments]
        hint = did_you_mean(assignment_id, ids)
        raise UsageError(
            f"no assignment '{assignment_id}' in the course{hint}; assignments: {', '.join(ids)}"
        )
    return found


def location_of(loaded: LoadedExercise, *key: Any) -> Location:
    """Where ``key`` is in an exercise's file (for problems found after loading)."""
    return loaded.marks.at(key)
