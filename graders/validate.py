"""``graders validate``: every file checked, and (unless told not to) every truth computed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from .course.glossary import glossary_problems
from .course.indented import indented_code_problems
from .course.loaded import LoadedCourse
from .course.marks import duplicate_ids
from .course.model import SECTIONS
from .course.prompts import two_question_problems
from .course.renames import rename_problems
from .course.text import language_problems
from .course.variants import expand
from .errors import Problem, SpecError, did_you_mean
from .grading.prepare import prepare_variants, self_test_problems, variant_problems
from .kinds.registry import kind_of
from .workspace import load, open_workspace


@dataclass(frozen=True)
class CourseCounts:
    """What a valid course holds, for the one-line report."""

    exercises: int
    items: int
    assignments: int
    by_section: dict[str, int]
    truth_checked: bool
    languages: tuple[str, ...] = ("en",)

    def __str__(self) -> str:
        sections = ", ".join(f"{s} {n}" for s, n in self.by_section.items())
        checked = (
            "truths computed in torch" if self.truth_checked else "truths not computed (--no-truth)"
        )
        return (
            f"course OK: {self.items} questions and checks in {self.exercises} exercises, "
            f"{self.assignments} assignments; by section: {sections}; "
            f"texts in {', '.join(self.languages)}; {checked}"
        )


def validate_course(
    course: Path | None, *, truth: bool = True, isolation: str = "auto"
) -> CourseCounts:
    """Validate the course; raise ``SpecError`` with every problem found."""
    loaded = load(course)
    problems = untranslated(loaded) + unlabelled(loaded) + every_combination(loaded)
    problems += glossary_problems(loaded) + rename_problems(loaded)
    problems += two_question_problems(loaded) + indented_code_problems(loaded)
    if truth:
        with open_workspace(course, isolation=isolation) as session:
            # Every variant of every exercise runs through torch.
            states = prepare_variants(loaded, loaded.exercises, session.ctx)
            problems += variant_problems(loaded, states)
            problems += self_test_problems(loaded, states, session.ctx)
    if problems:
        raise SpecError(problems)
    return _summary(loaded, truth)


def untranslated(loaded: LoadedCourse) -> list[Problem]:
    """Every text of the course and its exercises in a language it lacks, or lacking one it has."""
    languages = loaded.course.languages
    problems = language_problems(loaded.course, languages, loaded.marks)
    for ex in loaded.exercises.values():
        problems += language_problems(ex.exercise, languages, ex.marks)
    return problems


def unlabelled(loaded: LoadedCourse) -> list[Problem]:
    """Once a course labels its misconceptions (``misconceptions:``): a label for a name no
    exercise declares (a typo), a name labelled twice, and a declared name left without one."""
    labels = loaded.course.misconceptions
    if not labels:
        return []
    declared: dict[str, list[str]] = {}
    for exercise_id, ex in loaded.exercises.items():
        for found in kind_of(ex).misconceptions(ex.exercise).values():
            for m in found:
                declared.setdefault(m.name, []).append(exercise_id)
    names = [m.name for m in labels]
    key, marks = ("misconceptions",), loaded.marks
    problems = list(duplicate_ids(names, key, marks, "misconception", "name").values())
    for index, name in enumerate(names):
        if name not in declared:
            hint = did_you_mean(name, sorted(declared))
            where = marks.at((*key, index, "name"))
            message = f"misconceptions[{index}].name: no exercise declares '{name}'{hint}"
            problems.append(Problem(where, message))
    for name in sorted(set(declared) - set(names)):
        used = ", ".join(dict.fromkeys(declared[name]))
        problems.append(Problem(marks.at(key), f"misconceptions: no label for '{name}' ({used})"))
    return problems


def every_combination(loaded: LoadedCourse) -> list[Problem]:
    """Problems of the combinations of values that are no learner's variant (yet): each
    must render, and its code parse, so that raising ``variants.count`` breaks nothing."""
    problems: list[Problem] = []
    everyone = loaded.course.model_copy(update={"variants": None})
    for ex in loaded.exercises.values():
        if ex.template is not None:
            problems += expand(replace(ex, variants=()), everyone, loaded.root)[1]
    return problems


def _summary(loaded: LoadedCourse, truth: bool) -> CourseCounts:
    by_section: Counter[str] = Counter()
    items = 0
    for ex in loaded.exercises.values():
        for item in ex.kind.items(ex.exercise):
            items += 1
            by_section[item.section or ex.exercise.section] += 1
    ordered = dict(
        sorted(
            by_section.items(),
            key=lambda kv: SECTIONS.index(kv[0]) if kv[0] in SECTIONS else len(SECTIONS),
        )
    )
    return CourseCounts(
        len(loaded.exercises),
        items,
        len(loaded.course.assignments),
        ordered,
        truth,
        tuple(loaded.course.languages),
    )
