"""An exercise's variants: its templates checked, rendered once per variant, one per learner.

The loader keeps, for an exercise with ``params``, the exercise as written (its
``template``), its base variant (what every consumer sees by default) and every variant
the course allows, each rendered with its values. Problems name ``file:line:column``:
a template that is not Jinja, a name that is not a parameter, a parameter no text uses,
a combination of values that does not render.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import Problem, did_you_mean
from .loaded import ExerciseVariant, LoadedCourse, LoadedExercise
from .marks import Marks, PathKey, dotted
from .params import chosen, combinations, describe, variant_number
from .templating import names_in, other_languages, render, render_model, templated

if TYPE_CHECKING:
    from .model import Course, ExerciseBase


def template_problems(exercise: ExerciseBase, marks: Marks) -> list[Problem]:
    """What is wrong with the templates of an exercise that has ``params``, before rendering:
    syntax, names that are not parameters, parameters that nothing uses; then whether the
    base variant renders."""
    declared = list(exercise.params)
    used: set[str] = set()
    problems: list[Problem] = []
    for path, text in _every_text(exercise):
        names, problem = _names(text, path, marks)
        if problem is not None:
            problems.append(problem)
            continue
        used |= names
        for name in sorted(names - set(declared)):
            hint = did_you_mean(name, declared)
            problems.append(
                Problem(
                    marks.at(path),
                    f"{dotted(path)}: '{name}' is not a parameter{hint} "
                    f"(params: {', '.join(declared)})",
                )
            )
    # A kind that hands the values to course code (a code exercise's checker) uses them all.
    reach_code = getattr(type(exercise), "PARAMS_REACH_CODE", False)
    for name in declared:
        if name not in used and not reach_code:
            message = f"params.{name}: no text or code of the exercise uses it"
            problems.append(Problem(marks.at(("params", name)), message))
    return problems or render_problems(exercise, marks, combinations(exercise.params)[:1])


def render_problems(
    exercise: ExerciseBase, marks: Marks, values: Sequence[Mapping[str, Any]]
) -> list[Problem]:
    """A problem for each template that does not render with one of ``values`` (the first
    such combination only, per template)."""
    problems = []
    for path, text in _every_text(exercise):
        for combination in values:
            try:
                render(text, combination)
            except Exception as exc:  # noqa: BLE001 - any Jinja failure is the author's to fix
                where = marks.at(path)
                message = f"{dotted(path)}: cannot render with {describe(combination)}: {exc}"
                problems.append(Problem(where, message))
                break
    return problems


def variants_of(exercise: ExerciseBase, course: Course) -> tuple[ExerciseVariant, ...]:
    """The exercise's variants, in order (the base first); () for one without ``params``."""
    if not exercise.params:
        return ()
    values = _chosen(exercise, course)
    return tuple(
        ExerciseVariant(n, v, render_model(exercise, v)) for n, v in enumerate(values, start=1)
    )


def expand(
    loaded: LoadedExercise, course: Course, root: Path
) -> tuple[LoadedExercise, list[Problem]]:
    """``loaded`` with its variants (each checked by its kind), and the problems found."""
    template = loaded.template
    if template is None:
        return loaded, []
    # Only the combinations learners get: `graders validate` renders every other one.
    problems = render_problems(template, loaded.marks, _chosen(template, course))
    if problems:
        return loaded, problems
    found = variants_of(template, course)
    seen: set[str] = set()
    for variant in found[1:]:  # the base was checked when the file was loaded
        for problem in loaded.kind.file_problems(variant.exercise, loaded.marks, root):
            if str(problem) not in seen:
                seen.add(str(problem))
                problems.append(replace(problem, message=f"{problem.message} ({variant.label})"))
    return replace(loaded, variants=found), problems


def learner_variant(loaded: LoadedExercise, course: Course, student: str) -> ExerciseVariant | None:
    """The variant ``student`` gets of ``loaded``; None when it has no variants."""
    if not loaded.variants:
        return None
    number = variant_number(course.seed, loaded.exercise.drawn_as, student, len(loaded.variants))
    return loaded.variants[number - 1]


def learner_exercise(loaded: LoadedExercise, course: Course, student: str) -> LoadedExercise:
    """``loaded`` as ``student`` is asked it: their variant as the exercise."""
    variant = learner_variant(loaded, course, student)
    return loaded if variant is None else replace(loaded, exercise=variant.exercise)


def varied_exercises(loaded: LoadedCourse, assignment: str) -> list[str]:
    """The exercises of ``assignment`` that each learner gets in their own variant."""
    found = loaded.course.assignment(assignment)
    items = found.exercises if found else []
    return [i.id for i in items if i.id in loaded.exercises and loaded.exercises[i.id].variants]


def learner_course(loaded: LoadedCourse, student: str) -> LoadedCourse:
    """The course as ``student`` is asked it: every exercise in their variant."""
    course = loaded.course
    exercises = {i: learner_exercise(e, course, student) for i, e in loaded.exercises.items()}
    return replace(loaded, exercises=exercises)


def _chosen(exercise: ExerciseBase, course: Course) -> list[dict[str, Any]]:
    count = course.variants.count if course.variants is not None else None
    return chosen(exercise.params, count, course.seed, exercise.drawn_as)


def _every_text(exercise: ExerciseBase) -> list[tuple[PathKey, str]]:
    """Every template, in the default language then in each other one, with its place."""
    found = []
    for path, text in templated(exercise):
        found.append((path, text))
        found += [
            (path + (lang,), other) for lang, other in other_languages(exercise, path).items()
        ]
    return found


def _names(text: str, path: PathKey, marks: Marks) -> tuple[set[str], Problem | None]:
    from jinja2 import TemplateSyntaxError

    try:
        return names_in(text), None
    except TemplateSyntaxError as exc:
        message = f"{dotted(path)}: not a valid template: {exc.message} (line {exc.lineno})"
        return set(), Problem(marks.at(path), message)


@dataclass(frozen=True)
class Assigned:
    """The variant a learner gets of one exercise (None: it has no parameters)."""

    exercise: str
    variant: ExerciseVariant | None
    count: int  # how many variants the exercise has

    def to_json(self) -> dict[str, Any]:
        chosen = self.variant
        return {
            "exercise": self.exercise,
            "variant": chosen.number if chosen else None,
            "of": self.count,
            "values": dict(chosen.values) if chosen else {},
        }


def assigned(loaded: LoadedCourse, student: str, target: str) -> list[Assigned]:
    """The variants ``student`` gets of exercise ``target``, or of each exercise of the
    assignment ``target``."""
    from ..errors import UsageError

    assignment = loaded.course.assignment(target)
    ids = [i.id for i in assignment.exercises] if assignment else [target]
    if target not in loaded.exercises and assignment is None:
        known = list(loaded.exercises) + [a.id for a in loaded.course.assignments]
        raise UsageError(f"no exercise or assignment '{target}'{did_you_mean(target, known)}")
    found = []
    for exercise_id in ids:
        ex = loaded.exercises[exercise_id]
        variant = learner_variant(ex, loaded.course, student)
        found.append(Assigned(exercise_id, variant, len(ex.variants) or 1))
    return found
