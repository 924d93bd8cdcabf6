"""``graders validate``: every file checked, and (unless told not to) every truth computed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .errors import SpecError
from .grade import prepare_exercises, truth_problems
from .load import LoadedCourse
from .spec import SECTIONS
from .workspace import load, open_workspace


@dataclass(frozen=True)
class CourseSummary:
    """What a valid course holds, for the one-line report."""

    exercises: int
    items: int
    assignments: int
    by_section: dict[str, int]
    truth_checked: bool

    def __str__(self) -> str:
        sections = ", ".join(f"{s} {n}" for s, n in self.by_section.items())
        checked = "truths computed in torch" if self.truth_checked else "truths not computed (--no-truth)"
        return (f"course OK: {self.items} questions and checks in {self.exercises} exercises, "
                f"{self.assignments} assignments; by section: {sections}; {checked}")


def validate_course(course: Path | None, *, truth: bool = True, isolation: str = "auto") -> CourseSummary:
    """Validate the course; raise ``SpecError`` with every problem found."""
    loaded = load(course)
    if truth:
        with open_workspace(course, isolation=isolation) as ws:
            truths = prepare_exercises(loaded, loaded.exercises, ws.ctx)
        problems = truth_problems(loaded, truths)
        if problems:
            raise SpecError(problems)
    return _summary(loaded, truth)


def _summary(loaded: LoadedCourse, truth: bool) -> CourseSummary:
    by_section: Counter[str] = Counter()
    items = 0
    for ex in loaded.exercises.values():
        n = len(ex.kind.items(ex.exercise))
        items += n
        by_section[ex.exercise.section] += n
    ordered = dict(sorted(by_section.items(), key=lambda kv: SECTIONS.index(kv[0]) if kv[0] in SECTIONS else len(SECTIONS)))
    return CourseSummary(len(loaded.exercises), items, len(loaded.course.assignments), ordered, truth)
