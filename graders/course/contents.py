"""What a course holds, counted from the loaded course: its problem sets, their exercises by
kind, questions and checks, sections cited, parameters, languages.

``graders audit`` prints it, and ``graders audit --markdown`` writes it as the README's
description of the bundled course, so that no count there is typed by hand (a test holds
the README to it).
"""

from __future__ import annotations

import textwrap
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..i18n import ENGLISH_NAMES
from .model import SECTIONS

if TYPE_CHECKING:
    from .loaded import LoadedCourse

NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True)
class AssignmentContents:
    """One problem set: its exercises by kind, how many questions and checks, what it cites."""

    id: str
    title: str
    exercises: dict[str, tuple[str, ...]]  # kind -> exercise ids, in assignment order
    items: dict[str, int]  # kind -> questions and checks
    sections: tuple[str, ...]  # cited, in the article's order
    varied: tuple[str, ...]  # exercises with parameters


@dataclass(frozen=True)
class CourseContents:
    """The whole course, as counted."""

    assignments: tuple[AssignmentContents, ...]
    languages: tuple[str, ...]
    misconceptions: int  # labelled misconception names
    glossary: int  # terms
    renamed: int  # exercises, questions and checks known under a former id too

    def exercises(self, kind: str | None = None) -> int:
        """How many exercises the problem sets hold (of ``kind``, or of every kind)."""
        return sum(
            len(ids)
            for a in self.assignments
            for k, ids in a.exercises.items()
            if kind in (None, k)
        )

    def items(self, kind: str | None = None) -> int:
        """How many questions and checks they hold (of ``kind``, or of every kind)."""
        return sum(n for a in self.assignments for k, n in a.items.items() if kind in (None, k))

    def kinds(self) -> list[str]:
        """The kinds of the course's exercises, the most used first."""
        found = {k for a in self.assignments for k in a.exercises}
        return sorted(found, key=lambda k: (-self.exercises(k), k))

    def to_json(self) -> dict[str, object]:
        return {
            "assignments": [
                {
                    "id": a.id,
                    "title": a.title,
                    "exercises": {k: list(v) for k, v in a.exercises.items()},
                    "items": a.items,
                    "sections": list(a.sections),
                    "with_parameters": list(a.varied),
                }
                for a in self.assignments
            ],
            "exercises": {k: self.exercises(k) for k in self.kinds()},
            "items": {k: self.items(k) for k in self.kinds()},
            "languages": list(self.languages),
            "misconceptions": self.misconceptions,
            "glossary": self.glossary,
            "renamed": self.renamed,
        }


def course_contents(loaded: LoadedCourse) -> CourseContents:
    """Count what ``loaded`` holds, assignment by assignment."""
    assignments = []
    for assignment in loaded.course.assignments:
        exercises: dict[str, list[str]] = {}
        items: Counter[str] = Counter()
        cited: set[str] = set()
        varied = []
        for entry in assignment.exercises:
            ex = loaded.exercises[entry.id]
            exercises.setdefault(ex.kind.name, []).append(entry.id)
            for item in ex.kind.items(ex.exercise):
                items[ex.kind.name] += 1
                cited.add(item.section or ex.exercise.section)
            if ex.variants:
                varied.append(entry.id)
        assignments.append(
            AssignmentContents(
                assignment.id,
                assignment.title,
                {k: tuple(v) for k, v in exercises.items()},
                dict(items),
                tuple(s for s in SECTIONS if s in cited),
                tuple(varied),
            )
        )
    return CourseContents(
        tuple(assignments),
        tuple(loaded.course.languages),
        len(loaded.course.misconceptions),
        len(loaded.course.glossary),
        len(set(loaded.renamed.values())),
    )


def markdown(contents: CourseContents) -> str:
    """The course as the README describes it: one paragraph and a table per problem set."""
    languages = [ENGLISH_NAMES.get(code, code) for code in contents.languages]
    kinds = ", ".join(
        f"{contents.exercises(k)} of kind `{k}` ({contents.items(k)} questions and checks)"
        for k in contents.kinds()
    )
    varied = [e for a in contents.assignments for e in a.varied]
    lead = (
        f"{_number(len(contents.assignments)).capitalize()} problem sets, "
        f"{contents.exercises()} exercises: {kinds}; every text in {_and(languages)}, "
        f"{contents.misconceptions} misconceptions named for learners and a glossary of "
        f"{contents.glossary} terms. {len(varied)} exercises have parameters, so each learner "
        "predicts, and writes code for, their own variant "
        "(see [Variants](docs/how-to/variants.md)):"
    )
    lines = [
        *textwrap.wrap(lead, width=90, break_on_hyphens=False),
        "",
        "| set | title | sections | exercises | questions and checks |",
        "|---|---|---|---|---|",
    ]
    for a in contents.assignments:
        by_kind = ", ".join(f"{len(ids)} {k}" for k, ids in a.exercises.items())
        row = (a.id, a.title, ", ".join(a.sections), by_kind, str(sum(a.items.values())))
        lines.append(f"| {' | '.join(row)} |")
    return "\n".join(lines) + "\n"


def _number(n: int) -> str:
    return NUMBERS[n] if n < len(NUMBERS) else str(n)


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
