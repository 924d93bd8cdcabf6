"""Which notebook is a student's, among the files they handed in, or why none is.

One notebook named for the assignment (``ps1.ipynb``, or any notebook in nbgrader's
``ps1/`` folder) is the student's. Without one, the student's only other notebook is
(``ps1 (1).ipynb``, ``Untitled.ipynb``), unless it is named for another assignment of the
course. Several candidates are an error that lists them: guessing could grade the wrong
draft.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..intake.identity import RULE, id_problem
from ..intake.lms_download import PATTERN_HELP, LmsFile, ambiguity
from ..intake.text import shown
from ..said import Told, say


@dataclass(frozen=True)
class Choice:
    """The notebook chosen, where it is (for messages), or why there is none."""

    path: Path | None
    source: str
    error: Told | None = None


def in_folder(student_dir: Path, assignment: str, others: Collection[str] = ()) -> Choice:
    """The notebook of a student folder (its name already checked)."""
    name = student_dir.name
    return pick(
        _named(student_dir, assignment),
        _other_notebooks(student_dir, assignment, others),
        assignment,
        lambda p: shown(str(p.relative_to(student_dir.parent))),
        f"{name}/{assignment}.ipynb or {name}/{assignment}/<notebook>.ipynb",
        name,
    )


def in_download(
    student: str, files: list[LmsFile], assignment: str, others: Collection[str] = ()
) -> Choice:
    """The notebook among one student's files of an LMS download."""
    first = files[0].path.name
    if (problem := id_problem(student)) is not None:
        error = say(
            "student name {name} is not allowed: {why} ({rule})",
            name=repr(student),
            why=problem,
            rule=RULE,
        )
        return Choice(None, first, error)
    if (why := ambiguity(files)) is not None:
        return Choice(None, first, why)
    own = f"{assignment}.ipynb"
    skip = {f"{a}.ipynb" for a in others}
    notebooks = [f for f in files if f.is_notebook]
    return pick(
        [f.path for f in notebooks if f.original == own],
        [f.path for f in notebooks if f.original != own and f.original not in skip],
        assignment,
        lambda p: shown(p.name),
        f"a notebook among {', '.join(f.path.name for f in files)}",
        first,
    )


def loose_error(name: str) -> Told:
    """Why a notebook lying in the submissions folder itself is nobody's."""
    return say(
        "{name} is not in a student folder, and its name is not an LMS download's ({pattern})",
        name=name,
        pattern=PATTERN_HELP,
    )


def pick(
    named: list[Path],
    unnamed: list[Path],
    assignment: str,
    shown: Callable[[Path], str],
    expected: str,
    nowhere: str,
) -> Choice:
    """The one notebook named for the assignment, else the only other one, else why not.

    ``nowhere`` is the source shown when there is no single notebook to point at.
    """
    if len(named) == 1 or (not named and len(unnamed) == 1):
        chosen = (named or unnamed)[0]
        return Choice(chosen, shown(chosen))
    if named:
        error = say(
            "{count} notebooks for {assignment}, expected one: {listed}",
            count=len(named),
            assignment=assignment,
            listed=_listed(named, shown),
        )
    elif unnamed:
        error = say(
            "{count} notebooks for {assignment}, none named {assignment}.ipynb: {listed}",
            count=len(unnamed),
            assignment=assignment,
            listed=_listed(unnamed, shown),
        )
    else:
        error = say(
            "no notebook for {assignment}: expected {expected}",
            assignment=assignment,
            expected=expected,
        )
    return Choice(None, nowhere, error)


def _named(student_dir: Path, assignment: str) -> list[Path]:
    flat = student_dir / f"{assignment}.ipynb"
    found = [flat] if flat.exists() or flat.is_symlink() else []
    folder = student_dir / assignment
    if folder.is_dir() and not folder.is_symlink():
        found += sorted(
            p for p in folder.iterdir() if p.suffix == ".ipynb" and not p.name.startswith(".")
        )
    return found


def _other_notebooks(student_dir: Path, assignment: str, others: Collection[str]) -> list[Path]:
    """Notebooks of the folder named neither for this assignment nor for another one."""
    skip = {f"{a}.ipynb" for a in (assignment, *others)}
    return sorted(
        p
        for p in student_dir.iterdir()
        if p.suffix.lower() == ".ipynb" and not p.name.startswith(".") and p.name not in skip
    )


def _listed(paths: Iterable[Path], shown: Callable[[Path], str]) -> str:
    return ", ".join(shown(p) for p in paths)
