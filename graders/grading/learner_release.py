"""``graders release ASSIGNMENT --roster roster.csv``: one notebook per learner, in their variant.

    roster.csv                                   the class roster (``intake/roster.py``)
    DIR/<assignment>/<student>/<assignment>.ipynb              what that learner fills in
    DIR/instructor/<assignment>/<student>/<assignment>.ipynb   with that learner's key

Each learner's notebook shows their own setup and prompts (their variant of every
exercise with ``params``) and names the learner and their variants in its metadata, for
people to read: grading never trusts it, and takes the variant from the learner id the
grader knows (the submission folder's name, which must be the roster's ``student``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from ..course.loaded import LoadedCourse
from ..course.variants import learner_course, learner_variant
from ..notebook import META_KEY
from ..notebook.release import instructor_notebook, student_notebook
from .pipeline import PreparedAssignment, answer_key, for_learner


@dataclass(frozen=True)
class LearnerRelease:
    """Where one learner's notebooks were written."""

    student: str
    notebook: Path
    instructor: Path


def write_learner_releases(
    loaded: LoadedCourse,
    prep: PreparedAssignment,
    students: Sequence[str],
    out: Path,
    service: str | None = None,
) -> list[LearnerRelease]:
    """Each learner's student and instructor notebooks, in the learner's variants; the
    student notebooks submit to ``service`` when one is named."""
    # The assignment's texts as ``loaded`` speaks them (prep holds the default language's).
    assignment = loaded.course.assignment(prep.assignment.id) or prep.assignment
    written = []
    for student in students:
        mine = learner_course(loaded, student)
        key = answer_key(for_learner(prep, student))
        notebook = out / assignment.id / student / f"{assignment.id}.ipynb"
        instructor = out / "instructor" / assignment.id / student / f"{assignment.id}.ipynb"
        _write(
            _labelled(student_notebook(mine, assignment, service), loaded, prep, student), notebook
        )
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
