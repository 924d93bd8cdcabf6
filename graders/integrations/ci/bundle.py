"""The part of a course one assignment needs, copied elsewhere and checked to load.

    write_course_bundle(loaded, "ps1", dest)   # dest/course.yml (only ps1), dest/exercises/<ps1's>,
                                               # dest/solutions/<what they name> (unless left out)

A copy that lacks a file an exercise needs fails here, at build time, by loading it the
way the grader will (every kind checks the files it uses), never later on a learner's
submission. Exercise files are copied byte for byte; ``course.yml`` keeps every setting
(seed, limits) and only the one assignment.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

from ...course.files import COURSE_FILE, EXERCISES_DIR
from ...course.load import load_course
from ...course.loaded import LoadedCourse, LoadedExercise, get_assignment
from ...errors import SpecError, UsageError


@dataclass(frozen=True)
class Bundle:
    """What was copied, relative to the bundle's folder."""

    root: Path
    exercises: tuple[str, ...]
    solutions: tuple[str, ...]  # files under solutions/ (empty when left out)


def solution_files(loaded: LoadedCourse, assignment: str) -> list[Path]:
    """The course files the assignment's exercises need besides their own (each kind says
    which: a code exercise its reference solution under ``solutions/``)."""
    names = [
        name
        for item in get_assignment(loaded, assignment).exercises
        for name in _needed(loaded.exercises[item.id])
    ]
    return [loaded.root / name for name in dict.fromkeys(names)]


def _needed(ex: LoadedExercise) -> list[str]:
    return ex.kind.files(ex.exercise)


def write_course_bundle(
    loaded: LoadedCourse, assignment: str, dest: Path, *, solutions: bool = True
) -> Bundle:
    """Copy what grading ``assignment`` needs into ``dest`` (created; must not hold a course)."""
    if (dest / COURSE_FILE).exists():
        raise UsageError(f"{dest / COURSE_FILE} exists already; remove {dest} first")
    chosen = get_assignment(loaded, assignment)
    (dest / EXERCISES_DIR).mkdir(parents=True, exist_ok=True)
    (dest / COURSE_FILE).write_text(_course_yaml(loaded, assignment), encoding="utf-8")
    exercises = [
        _copy(_exercise_file(loaded, item.id), loaded.root, dest) for item in chosen.exercises
    ]
    copied = (
        [_copy(path, loaded.root, dest) for path in solution_files(loaded, assignment)]
        if solutions
        else []
    )
    _check_loads(dest)
    return Bundle(dest, tuple(exercises), tuple(copied))


def _course_yaml(loaded: LoadedCourse, assignment: str) -> str:
    data = yaml.safe_load((loaded.root / COURSE_FILE).read_text(encoding="utf-8"))
    data["assignments"] = [a for a in data["assignments"] if _assignment_id(a) == assignment]
    header = (
        f"# Copied by graders from the course {loaded.course.id!r}: only assignment "
        f"{assignment!r}.\n"
    )
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def _assignment_id(entry: object) -> object:
    return entry.get("id") if isinstance(entry, dict) else None


def _exercise_file(loaded: LoadedCourse, exercise_id: str) -> Path:
    matches = [
        p
        for p in (loaded.root / EXERCISES_DIR).glob(f"{exercise_id}.y*ml")
        if p.stem == exercise_id
    ]
    if len(matches) != 1:
        raise UsageError(
            f"cannot tell which file holds exercise '{exercise_id}' in "
            f"{loaded.root / EXERCISES_DIR}"
        )
    return matches[0]


def _copy(path: Path, root: Path, dest: Path) -> str:
    relative = path.relative_to(root)
    target = dest / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, target)
    return relative.as_posix()


def _check_loads(dest: Path) -> None:
    try:
        load_course(dest / COURSE_FILE)
    except SpecError as exc:
        raise UsageError(
            f"the course copied to {dest} does not load (a file an exercise needs was not "
            f"copied):\n{exc}"
        ) from exc
