"""What ``graders validate`` reports about a code exercise beyond its model.

The checker file loads and names every check the exercise grades, the samples expect only
checks the exercise has, and the template and the solution are Python that defines the
entry function. (Running the solution and the samples is ``prepare`` and ``self_test``.)
With ``params``, this runs for every variant: the solution, rendered with its values,
must parse, and the checker must take the values.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from ... import syntax
from ...course.marks import Marks, duplicate_ids
from ...course.params import describe
from ...errors import Location, Problem
from .checker_file import CheckerError, load_checker
from .judge import check_ids
from .model import SOLUTIONS_DIR, CodeExercise
from .sources import read_source, variant_values


def course_problems(exercise: CodeExercise, marks: Marks, root: Path) -> list[Problem]:
    """Every problem of ``exercise`` that reading the course's files can find."""
    problems = _checker_problems(exercise, marks, root)
    problems += _source_problems(
        exercise.template, exercise.entry, marks, ("template",), "template"
    )
    if not exercise.signature.startswith(f"{exercise.entry}("):
        problems.append(
            Problem(
                marks.at(("signature",)),
                f"signature: must start with '{exercise.entry}(' (the entry function)",
            )
        )
    problems += _sample_problems(exercise, marks, root)
    path = root / SOLUTIONS_DIR / exercise.solution
    if not path.is_file():
        return problems + [
            Problem(
                marks.at(("solution",)),
                f"solution: no file {SOLUTIONS_DIR}/{exercise.solution}",
            )
        ]
    try:
        source = read_source(exercise, path)
    except Exception as exc:  # noqa: BLE001 - any Jinja failure is the author's to fix
        shown = f"{SOLUTIONS_DIR}/{exercise.solution}"
        values = describe(variant_values(exercise))
        message = f"solution: cannot render {shown} with {values}: {exc}"
        return problems + [Problem(marks.at(("solution",)), message)]
    return problems + _source_problems(
        source, exercise.entry, marks, ("solution",), f"{SOLUTIONS_DIR}/{exercise.solution}"
    )


def _checker_problems(exercise: CodeExercise, marks: Marks, root: Path) -> list[Problem]:
    path = root / exercise.checker
    if not path.is_file():
        return [Problem(marks.at(("checker",)), f"checker: no file {exercise.checker}")]
    try:
        checker = load_checker(path)
    except CheckerError as exc:
        if exc.line:
            return [Problem(Location(str(path), exc.line, 1), str(exc))]
        return [Problem(marks.at(("checker",)), f"checker: {exc}")]
    if exercise.params and checker.takes_params():
        unable = " and ".join(f"`{name}`" for name in checker.takes_params())
        message = (
            f"checker: {exercise.checker}: {unable} must take the variant's values as a third "
            "argument, `observe(fn, seed, params)` and `judge(got, ref, params)`: the "
            "exercise has params"
        )
        return [Problem(marks.at(("checker",)), message)]
    known = checker.checks
    repeats = duplicate_ids([c.id for c in exercise.checks], ("checks",), marks, "check", "id")
    problems = list(repeats.values())
    for i, c in enumerate(exercise.checks):
        if i not in repeats and c.id not in known:
            message = (
                f"checks[{i}].id: {exercise.checker} has no check '{c.id}'; "
                f"it has: {', '.join(known)}"
            )
            problems.append(Problem(marks.at(("checks", i, "id")), message))
    return problems


def _sample_problems(exercise: CodeExercise, marks: Marks, root: Path) -> list[Problem]:
    problems = []
    ids = set(check_ids(exercise)) | {"all"}
    for i, sample in enumerate(exercise.samples):
        for name in sample.expect:
            if name not in ids:
                problems.append(
                    Problem(
                        marks.at(("samples", i, "expect", name)),
                        f"samples[{i}].expect: no check '{name}' in this exercise",
                    )
                )
    return problems


def _source_problems(
    source: str, entry: str, marks: Marks, key: tuple[Any, ...], what: str
) -> list[Problem]:
    try:
        tree = syntax.parse(source)
    except SyntaxError as exc:
        return [
            Problem(
                marks.at(key),
                f"{key[0]}: {what} is not valid Python: {exc.msg} (line {exc.lineno})",
            )
        ]
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if entry not in defined:
        return [Problem(marks.at(key), f"{key[0]}: {what} does not define a function '{entry}'")]
    return []
