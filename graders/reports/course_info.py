"""What the course says about each graded item, as plain data for the class report.

Results documents carry grades, not teaching: the article section an exercise cites, its
title, a question's prompt and the explanation of each declared misconception come from
the course files. ``course_info`` copies them out of a loaded course once, so aggregation
and rendering never touch pydantic models or the disk.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..course.times import zone_of
from ..kinds.base import DeclaredMisconception
from ..kinds.registry import kind_of
from ..notebook import LABEL_SEPARATOR
from ..notebook.parts import assignment_labels

if TYPE_CHECKING:
    from ..course.loaded import LoadedCourse


@dataclass(frozen=True)
class ItemInfo:
    """One question or code check: where it sits in the course."""

    id: str  # "<exercise>/<question>"
    exercise: str
    exercise_title: str
    section: str
    prompt: str
    literal: bool = False  # answers are literals, grouped by canonical form (the kind says)
    misconceptions: tuple[DeclaredMisconception, ...] = ()
    where: str = ""  # the exercise file and the item's line: "exercises/x.yml:12"


@dataclass(frozen=True)
class AssignmentInfo:
    """An assignment's id, title and the item ids it grades, in course order, and how its
    notebook names each of them (``Question 1.2``)."""

    id: str
    title: str
    items: tuple[str, ...]
    labels: Mapping[str, str] = field(default_factory=dict)
    zone: tzinfo | None = None  # the zone its times are shown in: its due date's

    def label(self, item_id: str) -> str:
        """The item's name in the notebook, without its exercise title; else its id."""
        return self.labels.get(item_id, item_id).split(LABEL_SEPARATOR)[0]


@dataclass(frozen=True)
class CourseInfo:
    """The course as the report needs it; empty when no course folder is at hand."""

    id: str = ""
    title: str = ""
    items: Mapping[str, ItemInfo] = field(default_factory=dict)
    assignments: tuple[AssignmentInfo, ...] = ()
    term: str = ""  # this term's name ("" when the course names none)

    def item(self, item_id: str) -> ItemInfo:
        """What the course says about ``item_id``; a bare entry for items it no longer has."""
        found = self.items.get(item_id)
        if found is not None:
            return found
        exercise = item_id.split("/", 1)[0]
        return ItemInfo(item_id, exercise, exercise, "", "")

    def explanation(self, name: str) -> str:
        """The first explanation the course gives for misconception ``name``."""
        for info in self.items.values():
            for m in info.misconceptions:
                if m.name == name:
                    return m.explain
        return ""

    def declared(self, item_ids: tuple[str, ...] | list[str]) -> list[str]:
        """Names of the misconceptions declared on ``item_ids``, first-seen order."""
        names = (m.name for i in item_ids for m in self.item(i).misconceptions)
        return list(dict.fromkeys(names))

    def assignment(self, assignment_id: str) -> AssignmentInfo | None:
        return next((a for a in self.assignments if a.id == assignment_id), None)


def course_info(loaded: LoadedCourse) -> CourseInfo:
    """Copy sections, titles, prompts and misconceptions out of a loaded course."""
    items: dict[str, ItemInfo] = {}
    for ex in loaded.exercises.values():
        declared = kind_of(ex).misconceptions(ex.exercise)
        lines = _item_lines(ex, loaded.root)
        for item in ex.kind.items(ex.exercise):
            items[item.id] = ItemInfo(
                id=item.id,
                exercise=ex.exercise.id,
                exercise_title=ex.exercise.title,
                section=item.section or ex.exercise.section,
                prompt=item.prompt.strip(),
                literal=kind_of(ex).literal_answers,
                misconceptions=declared.get(item.id, ()),
                where=lines.get(item.id, ""),
            )
    assignments = tuple(
        AssignmentInfo(
            a.id,
            a.title,
            tuple(i for item in a.exercises for i in items if i.startswith(f"{item.id}/")),
            assignment_labels(loaded, a),
            zone_of(a),
        )
        for a in loaded.course.assignments
    )
    return CourseInfo(
        loaded.course.id, loaded.course.title, items, assignments, loaded.course.term or ""
    )


def _item_lines(ex: Any, root: Path) -> dict[str, str]:
    """Item id -> "exercises/x.yml:LINE", the line of the question or check in its file."""
    found = {}
    for part in ("questions", "checks"):
        for i, entry in enumerate(getattr(ex.exercise, part, None) or ()):
            location = ex.marks.at((part, i))
            try:
                shown = Path(location.path).resolve().relative_to(root.resolve())
            except ValueError:
                shown = Path(location.path)
            found[f"{ex.exercise.id}/{entry.id}"] = f"{shown.as_posix()}:{location.line}"
    return found
