"""Read ``course.yml`` and ``exercises/*.yml`` into validated models (``loaded``).

Validation happens once, early and all at once: every problem in every file is
collected and raised together as a ``SpecError``, each as ``path:line:column: message``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import Problem, SpecError, did_you_mean
from .files import EXERCISES_DIR
from .kinds import CourseSide, kind_named, kind_names
from .loaded import LoadedCourse, LoadedExercise
from .marks import Marks, duplicate_ids, read_yaml
from .marks import dotted as _dotted
from .model import SECTIONS, Course, ExerciseBase, not_a_section
from .params import combinations
from .renames import former_ids
from .templating import render_model
from .text import DEFAULT_LANGUAGES, declared_languages, model_in, split_texts, with_texts
from .variants import expand, template_problems


def load_course(course_file: Path) -> LoadedCourse:
    """Load and validate a course; raise ``SpecError`` listing every problem found."""
    root = course_file.parent
    course, marks, problems, languages = _load_course_file(course_file, root)
    exercises: dict[str, LoadedExercise] = {}
    for path in sorted((root / EXERCISES_DIR).glob("*.y*ml")):
        loaded, found = load_exercise(path, root, languages)
        problems += found
        if loaded is not None:
            exercises[loaded.exercise.id] = loaded
    if course is not None:
        problems += _missing_exercises(course, marks, exercises, root)
        for exercise_id, loaded in exercises.items():
            exercises[exercise_id], found = expand(loaded, course, root)
            problems += found
    if problems:
        raise SpecError(problems)
    assert course is not None
    whole = LoadedCourse(root, course, marks, exercises)
    return replace(whole, renamed=former_ids(whole))


def load_exercise(
    path: Path, root: Path, languages: tuple[str, ...] = DEFAULT_LANGUAGES
) -> tuple[LoadedExercise | None, list[Problem]]:
    """Load one exercise file with the model of its kind; texts may be in ``languages``."""
    shown = _shown(path, root)
    data, marks, problems = read_yaml(path, shown)
    if data is None:
        return None, problems
    if not isinstance(data, dict):
        return None, problems + [Problem(marks.at(()), "an exercise file must be a mapping")]
    kind = _kind_of(data, marks, problems)
    if kind is None:
        return None, problems
    exercise = _validate(kind.model, data, marks, problems, languages)
    if exercise is None:
        return None, problems
    problems += _common_checks(exercise, path, marks)
    if not exercise.params:
        problems += kind.file_problems(exercise, marks, root)
        return (LoadedExercise(exercise, kind, marks) if not problems else None), problems
    # Templates are checked as templates; the code they render to, in the base variant.
    problems += template_problems(exercise, marks)
    if problems:
        return None, problems
    base = render_model(exercise, combinations(exercise.params)[0])
    problems += kind.file_problems(base, marks, root)
    return (LoadedExercise(base, kind, marks, exercise) if not problems else None), problems


def _load_course_file(
    path: Path, root: Path
) -> tuple[Course | None, Marks, list[Problem], tuple[str, ...]]:
    """The course, where its values are, its problems, and the languages to read texts in."""
    data, marks, problems = read_yaml(path, _shown(path, root))
    if data is None:
        return None, marks, problems, DEFAULT_LANGUAGES
    languages = declared_languages(data)
    course = _validate(Course, data, marks, problems, languages)
    if course is not None:
        problems += _dups([a.id for a in course.assignments], ("assignments",), marks, "assignment")
    return course, marks, problems, languages


def _kind_of(data: dict[str, Any], marks: Marks, problems: list[Problem]) -> CourseSide[Any] | None:
    name = data.get("kind")
    if name is None:
        problems.append(
            Problem(
                marks.at(()), f"missing required field 'kind' (one of: {', '.join(kind_names())})"
            )
        )
        return None
    kind = kind_named(str(name))
    if kind is None:
        hint = did_you_mean(str(name), kind_names())
        problems.append(Problem(marks.at(("kind",)), f"kind: unknown kind '{name}'{hint}"))
    return kind


def _validate(
    model: type[BaseModel],
    data: Any,
    marks: Marks,
    problems: list[Problem],
    languages: tuple[str, ...],
) -> Any:
    data, texts, found = split_texts(model, data, languages, marks)
    problems += found
    try:
        return with_texts(model.model_validate(data), texts)
    except ValidationError as exc:
        problems += [_problem_from(err, model, marks) for err in exc.errors()]
        return None


def _problem_from(err: Any, model: type[BaseModel], marks: Marks) -> Problem:
    loc = tuple(err["loc"])
    dotted = _dotted(loc)
    if err["type"] == "extra_forbidden":
        parent = _fields_at(model, loc[:-1])
        hint = did_you_mean(str(loc[-1]), parent)
        return Problem(marks.at(loc), f"{dotted}: unknown key{hint}")
    if err["type"] == "missing":
        return Problem(marks.at(loc[:-1]), f"{dotted}: missing required field")
    got = err.get("input")
    shown = f", got {got!r:.60}" if not isinstance(got, (dict, list)) else ""
    message = err["msg"].removeprefix("Value error, ")
    return Problem(marks.at(loc), f"{dotted}: {message}{shown}")


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The field names that are allowed at ``loc``, for did-you-mean hints."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        field = getattr(current, "model_fields", {}).get(part)
        if field is None:
            return []
        current = model_in(field.annotation)
    return list(getattr(current, "model_fields", {}))


def _common_checks(exercise: ExerciseBase, path: Path, marks: Marks) -> list[Problem]:
    problems = []
    if exercise.id != path.stem:
        problems.append(
            Problem(
                marks.at(("id",)), f"id: '{exercise.id}' must equal the file name '{path.stem}'"
            )
        )
    if exercise.section not in SECTIONS:
        hint = did_you_mean(exercise.section, list(SECTIONS))
        problems.append(
            Problem(marks.at(("section",)), f"section: {not_a_section(exercise.section, hint)}")
        )
    return problems


def _missing_exercises(
    course: Course, marks: Marks, exercises: dict[str, LoadedExercise], root: Path
) -> list[Problem]:
    problems = []
    for a_index, assignment in enumerate(course.assignments):
        ids = [item.id for item in assignment.exercises]
        problems += _dups(ids, ("assignments", a_index, "exercises"), marks, "exercise")
        for e_index, exercise_id in enumerate(ids):
            if (
                exercise_id not in exercises
                and not (root / EXERCISES_DIR / f"{exercise_id}.yml").exists()
            ):
                hint = did_you_mean(exercise_id, list(exercises))
                where = marks.at(("assignments", a_index, "exercises", e_index))
                problems.append(
                    Problem(
                        where,
                        f"assignment '{assignment.id}' names a missing exercise "
                        f"'{exercise_id}'{hint}",
                    )
                )
    return problems


def _dups(ids: list[str], key: tuple[Any, ...], marks: Marks, what: str) -> list[Problem]:
    return list(duplicate_ids(ids, key, marks, what).values())


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
