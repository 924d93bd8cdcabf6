"""``graders release ASSIGNMENT --roster roster.csv``: one notebook per learner, in their variant.

    roster.csv                                   student (required), any other columns
    DIR/<assignment>/<student>/<assignment>.ipynb              what that learner fills in
    DIR/instructor/<assignment>/<student>/<assignment>.ipynb   with that learner's key

Each learner's notebook shows their own setup and prompts (their variant of every
exercise with ``params``) and names the learner and their variants in its metadata, for
people to read: grading never trusts it, and takes the variant from the learner id the
grader knows (the submission folder's name, which must be the roster's ``student``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from ..course.load import LoadedCourse
from ..course.variants import learner_course, learner_variant
from ..errors import Location, Problem, SpecError, UsageError
from ..notebook import META_KEY
from ..notebook.release import instructor_notebook, student_notebook
from .grading import PreparedAssignment, answer_key, for_learner
from .submissions import safe_student

STUDENT_COLUMN = "student"
MAX_ROSTER_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class LearnerRelease:
    """Where one learner's notebooks were written."""

    student: str
    notebook: Path
    instructor: Path


def read_roster(path: Path) -> list[str]:
    """The student ids of a roster CSV (a ``student`` column; every problem at its line)."""
    shown = str(path)
    try:
        if path.stat().st_size > MAX_ROSTER_BYTES:
            raise UsageError(f"{shown}: larger than {MAX_ROSTER_BYTES // 2**20} MiB")
        text = path.read_text(encoding="utf-8-sig")  # a spreadsheet's BOM is not a column name
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the roster {shown}: {exc}") from exc
    rows = list(csv.reader(io.StringIO(text)))
    header = [cell.strip().lower() for cell in rows[0]] if rows else []
    if STUDENT_COLUMN not in header:
        where = Location(shown, 1, 1)
        raise SpecError([Problem(where, f"no '{STUDENT_COLUMN}' column in the header row")])
    column = header.index(STUDENT_COLUMN)
    students: list[str] = []
    problems: list[Problem] = []
    for line, row in enumerate(rows[1:], start=2):
        name = row[column].strip() if column < len(row) else ""
        if not any(cell.strip() for cell in row):
            continue  # a blank line
        where = Location(shown, line, column + 1)
        if not safe_student(name):
            problems.append(Problem(where, f"'{name}' cannot be a student id (it names a folder)"))
        elif name in students:
            problems.append(Problem(where, f"student '{name}' is listed twice"))
        else:
            students.append(name)
    if problems:
        raise SpecError(problems)
    return students


def write_learner_releases(
    loaded: LoadedCourse, prep: PreparedAssignment, students: Sequence[str], out: Path
) -> list[LearnerRelease]:
    """Each learner's student and instructor notebooks, in the learner's variants."""
    assignment = prep.assignment
    written = []
    for student in students:
        mine = learner_course(loaded, student)
        key = answer_key(for_learner(prep, student))
        notebook = out / assignment.id / student / f"{assignment.id}.ipynb"
        instructor = out / "instructor" / assignment.id / student / f"{assignment.id}.ipynb"
        _write(_labelled(student_notebook(mine, assignment), loaded, prep, student), notebook)
        _write(
            _labelled(instructor_notebook(mine, assignment, key), loaded, prep, student),
            instructor,
        )
        written.append(LearnerRelease(student, notebook, instructor))
    return written


def _labelled(
    nb: NotebookNode, loaded: LoadedCourse, prep: PreparedAssignment, student: str
) -> NotebookNode:
    """``nb`` with the learner and their variants in its metadata (for people, not grading)."""
    variants = {}
    for ex in prep.exercises:
        chosen = learner_variant(ex.loaded, loaded.course, student)
        if chosen is not None:
            variants[ex.loaded.exercise.id] = chosen.number
    nb.metadata[META_KEY]["student"] = student
    nb.metadata[META_KEY]["variants"] = variants
    return nb


def _write(nb: NotebookNode, path: Path) -> None:
    nbformat.validate(nb)
    path.parent.mkdir(parents=True, exist_ok=True)
    text: str = nbformat.writes(nb)
    path.write_text(text, encoding="utf-8")
