"""Ids the course's exercises and questions had before, and the ids they have now.

Ids are seen by learners (answers files, notebook cells) and kept in results (the
gradebook, ``results.json``), so renaming one would orphan what was handed in and graded
under the old id. An exercise or a question that is renamed says so:

    id: detach-result                  # exercises/detach-result.yml
    formerly: [detach-shares-memory]
    questions:
      - id: memory
        formerly: [same-memory]

and everything read from outside is read under the current ids: a submission's answer
keys (``Submission.renamed``), a saved result's questions (``StudentResult.renamed``) and
an instructor's overrides. ``former_ids`` is that mapping, ``rename_problems`` what
``graders validate`` reports about it: a former id that is some item's id today, or that
two items claim.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from ..errors import Problem

if TYPE_CHECKING:
    from .loaded import LoadedCourse, LoadedExercise


def former_ids(loaded: LoadedCourse) -> dict[str, str]:
    """Every former id (an exercise's, an answer key, an item's) -> the id it has now."""
    return {old: new for old, new, _ in _claims(loaded)}


def formerly_of(renamed: Mapping[str, str], current: str) -> list[str]:
    """The ids ``current`` had before."""
    return [old for old, new in renamed.items() if new == current]


def rename_problems(loaded: LoadedCourse) -> list[Problem]:
    """A former id that is an id today, or that two exercises or questions claim."""
    current = _current_ids(loaded)
    claimed: dict[str, str] = {}
    problems = []
    for old, new, ex in _claims(loaded):
        where = ex.marks.at(("formerly",))
        if old in current:
            problems.append(Problem(where, f"formerly: '{old}' is the id of an item today"))
        elif claimed.setdefault(old, new) != new:
            problems.append(
                Problem(where, f"formerly: '{old}' is claimed by both {claimed[old]} and {new}")
            )
    return problems


def _claims(loaded: LoadedCourse) -> Iterator[tuple[str, str, LoadedExercise]]:
    """(former id, current id, the exercise that says so), for every rename."""
    for ex in loaded.exercises.values():
        exercise = ex.exercise
        for old in exercise.formerly:
            yield old, exercise.id, ex  # the exercise, and a code exercise's answer key
        for item in ex.kind.items(exercise):
            rest = item.id.split("/", 1)[1]
            for old in exercise.formerly:
                yield f"{old}/{rest}", item.id, ex
            for old in item.formerly:
                yield old, item.id, ex


def _current_ids(loaded: LoadedCourse) -> set[str]:
    ids = set(loaded.exercises)
    for ex in loaded.exercises.values():
        ids.update(item.id for item in ex.kind.items(ex.exercise))
        ids.update(ex.kind.answer_keys(ex.exercise))
    return ids
