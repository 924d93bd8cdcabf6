"""Grading inside nbgrader's autograder test cells, with graders' own engine.

``graders release`` writes an nbgrader source notebook whose hidden test cells call::

    graders.nbgrader.check("<exercise>/<question>", assignment="ps1")
    graders.nbgrader.check("<exercise>", assignment="ps1")

nbgrader runs those cells in a kernel in the student's ``autograded/<student>/<assignment>``
folder, where the notebook it runs is saved. ``check`` reads the answer from that saved
notebook, as source text, exactly as ``graders autograde`` reads a submission
(``read_submission``: the answer cell found by its metadata, the cell that counts among
copies, nothing run), then grades it as ``graders grade`` does (``prepare_assignment``
then ``grade_submission``). So a notebook scores the same in nbgrader and in graders,
whatever the kernel made of the cell: ``answer = tensor(2.)`` without quotes raises a
NameError in the kernel and is still read as ``tensor(2.)``; ``answer = a is b`` runs in
the kernel and is still an expression, not an answer. Test cells of earlier releases pass
the kernel's value as well: it is used only when no saved notebook is found.

Which learner: nbgrader's autograder runs each notebook in ``autograded/<student>/
<assignment>/`` (its default layout), with ``NBGRADER_EXECUTION=autograde`` set, so the
folder above the notebook's names the learner, who is graded in their own variant, as
``graders autograde`` grades them. Anywhere else (the instructor running the source
notebook) no learner is known, and the base variant is graded.

Where the truth comes from: the course itself, read from disk, and torch. The course is
the one ``$GRADERS_COURSE`` names (a course.yml or its folder), else, by the id the
release's ``graders-course.json`` names, the nearest in the folders above the notebook:
a course folder holding the nbgrader course, or the course an nbgrader course's
``graders-course-folder.json`` links (``graders release --nbgrader DIR`` writes it). The
pointer holds no path: nbgrader hands the source folder's files out to learners. Truths
come from the course's truth cache, which ``graders release`` has filled; on a miss they
are computed by torch in a sandbox child, never in this kernel, where student code has
already run and could have changed torch.

A cell passes (full points), raises ``NotCorrect`` (no points, with the feedback), or,
for a code exercise with partial credit, returns the points earned, which nbgrader reads
as the cell's partial credit. The feedback is what the learner may read today
(``course.visibility``), in the language of their notebook: nbgrader's feedback pages
show it. Nothing is written to stderr: nbgrader scores a test cell with stderr output as
failed.

nbgrader runs student code in the same kernel before these cells, so a student can
defeat any test cell there. ``graders autograde`` reads the same notebooks as text and
never runs them: use it where the grade must be trusted.
"""

from __future__ import annotations

import atexit
import json
import os
import warnings
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SubmissionError, UsageError
from ..i18n import speaking
from ..notebook import META_KEY, POINTER_FILE

if TYPE_CHECKING:
    from ..course.learner_language import LearnerLanguages
    from ..grading.pipeline import PreparedAssignment
    from ..kinds.base import Submission
    from ..results import QuestionResult, StudentResult
    from ..workspace import Workspace

COURSE_ENV = "GRADERS_COURSE"
EXECUTION_ENV = "NBGRADER_EXECUTION"  # nbgrader sets it while it runs notebooks
STUDENT = "nbgrader"  # the learner's id where none is known (graded in the base variant)
_NOT_GIVEN: Any = object()


class NotCorrect(AssertionError):
    """The test cell earns no points; the message is the learner's feedback."""


def check(item: str, answer: Any = _NOT_GIVEN, *, assignment: str) -> float | None:
    """Grade the saved answer of ``item`` (``"ex/q"``, or ``"ex"`` for a code exercise).

    The answer is read from the notebook saved in the current folder; ``answer``, the
    kernel's value that test cells of earlier releases pass, only when there is none.
    Returns None for full marks, the points earned for partial credit; raises
    ``NotCorrect`` when nothing is earned.
    """
    from ..grading.pipeline import grade_submission

    __tracebackhide__ = (
        True  # IPython and nbgrader's feedback show the test cell, not graders' frames
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a warning on stderr would fail the nbgrader cell
        course = course_file()
        learner = graded_learner(assignment)
        prep = _prepared(course, assignment)
        exercise_id, _, question = item.partition("/")
        only = _only_exercise(prep if learner else _base(prep), exercise_id)
        sub = _submission(course, assignment, item, answer, learner or STUDENT)
        graded = grade_submission(only, sub)
        shown = _shown(course, assignment, graded)
        results = [q for q in shown.questions if q.id == item or not question]
        with speaking(_language(course, shown)):
            return _verdict(item, results)


def graded_learner(assignment: str, folder: Path | None = None) -> str | None:
    """The learner nbgrader's autograder is grading: the name of the folder above the
    notebook's (``autograded/<student>/<assignment>/``); None anywhere else."""
    folder = folder or Path.cwd()
    if os.environ.get(EXECUTION_ENV) != "autograde" or folder.name != assignment:
        return None
    from ..intake.identity import safe_student

    student = folder.parent.name
    return student if student and safe_student(student) else None


def saved_notebook(assignment: str, folder: Path | None = None) -> Path | None:
    """The notebook of ``assignment`` saved in ``folder`` (the current one): the one named
    ``<assignment>.ipynb``, else the only notebook released for that assignment."""
    folder = folder or Path.cwd()
    named = folder / f"{assignment}.ipynb"
    if named.is_file():
        return named
    released = [p for p in sorted(folder.glob("*.ipynb")) if _declares(p, assignment)]
    return released[0] if len(released) == 1 else None


def _submission(course: Path, assignment: str, item: str, answer: Any, student: str) -> Submission:
    """What the learner answered, from the saved notebook (or, failing that, the kernel)."""
    from ..kinds.base import Submission
    from ..kinds.registry import kind_of
    from ..notebook.collect import read_submission

    notebook = saved_notebook(assignment)
    if notebook is not None:
        return read_submission(notebook, assignment, _session(course).loaded, student)
    if answer is _NOT_GIVEN:
        raise UsageError(
            f"graders cannot find the notebook of assignment '{assignment}' in {Path.cwd()}: "
            f"save it there as {assignment}.ipynb"
        )
    # The item's exercise says how its kind turns the kernel's value into an answer's text.
    exercise = _session(course).loaded.exercises.get(item.partition("/")[0])
    if exercise is None:
        raise UsageError(f"'{item}' is not an exercise or question of the course")
    text = kind_of(exercise).kernel_answer(answer)
    return Submission(student, assignment, answers=_given(item, text))


def _declares(path: Path, assignment: str) -> bool:
    from ..notebook.read import read_notebook

    try:
        meta = read_notebook(path).get("metadata", {})
    except SubmissionError:
        return False
    tag = meta.get(META_KEY) if isinstance(meta, dict) else None
    return isinstance(tag, dict) and tag.get("assignment") == assignment


def course_file() -> Path:
    """The course.yml to grade with: ``$GRADERS_COURSE``, else the nearest course above
    the current folder whose id is the one the release's pointer file names."""
    from ..course.files import find_course

    env = os.environ.get(COURSE_ENV)
    if env:
        return find_course(Path(env))
    pointer = Path.cwd() / POINTER_FILE
    course_id = _pointer_course_id(pointer)
    found = _course_above(Path.cwd(), course_id)
    if found is None:
        raise UsageError(
            f"graders cannot find course '{course_id}' in the folders above {Path.cwd()}: "
            "release the assignment into the nbgrader course with `graders release ASSIGNMENT "
            f"--nbgrader DIR`, or set {COURSE_ENV} to the course folder"
        )
    return found


def _pointer_course_id(pointer: Path) -> str:
    if not pointer.is_file():
        raise UsageError(
            f"graders cannot find the course: set {COURSE_ENV} to the course folder "
            f"(e.g. in nbgrader_config.py), or keep {POINTER_FILE} from `graders release` "
            f"in the assignment's source folder (looked in {Path.cwd()})"
        )
    try:
        course_id = json.loads(pointer.read_text(encoding="utf-8"))["course_id"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{pointer}: not a graders course pointer ({exc})") from exc
    if not isinstance(course_id, str):
        raise UsageError(f"{pointer}: not a graders course pointer (course_id is not text)")
    return course_id


def _course_above(folder: Path, course_id: str) -> Path | None:
    """The nearest course.yml whose id is ``course_id``, in ``folder`` or a folder above it,
    or linked from one of them (``graders-course-folder.json``)."""
    from .nbgrader_course import linked_course

    for above in (folder, *folder.parents):
        linked = linked_course(above, course_id)
        for candidate in [above, *([linked] if linked else [])]:
            if _course_id(candidate) == course_id:
                return _course_yml(candidate)
    return None


def _course_id(folder: Path) -> str | None:
    path = _course_yml(folder)
    try:
        stat = path.stat()
    except OSError:
        return None
    return _course_id_of(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=16)
def _course_id_of(path: Path, mtime_ns: int, size: int) -> str | None:
    """The id in one course.yml, read once per kernel while the file is unchanged: every
    test cell asks, and PyYAML's pure-Python parse of a whole course file took ~0.3 s a
    cell (9 s of a 26 s notebook in nbgrader). Read as the course loader reads it."""
    from ..course.marks import read_yaml

    data, _marks, _problems = read_yaml(path, str(path))
    found = data.get("id") if isinstance(data, dict) else None
    return found if isinstance(found, str) else None


def _course_yml(folder: Path) -> Path:
    from ..course.files import COURSE_FILE

    return folder / COURSE_FILE


_SESSIONS: dict[Path, Workspace] = {}


def _session(course: Path) -> Workspace:
    """The course opened once per kernel (each test cell reuses it)."""
    from ..workspace import start_workspace

    if course not in _SESSIONS:  # the kernel keeps it for every later test cell
        _SESSIONS[course] = start_workspace(course)
    return _SESSIONS[course]


def close_sessions() -> None:
    """Stop every course's sandbox this process opened and forget what was read with it
    (at the kernel's exit; or when a caller is done with ``check``: its next call reads
    the course again)."""
    _prepared.cache_clear()
    _languages.cache_clear()
    while _SESSIONS:
        _SESSIONS.popitem()[1].close()


atexit.register(close_sessions)  # a kernel's sessions stop with it


@lru_cache(maxsize=4)
def _prepared(course: Path, assignment: str) -> PreparedAssignment:
    """The assignment's truths, once per kernel."""
    from ..grading.pipeline import prepare_assignment

    session = _session(course)
    session.warm_for(assignment)  # while the predictions' test cells run
    return prepare_assignment(session.loaded, assignment, session.ctx)


def _base(prep: PreparedAssignment) -> PreparedAssignment:
    """``prep`` as no learner in particular is asked it: every exercise in its base variant."""
    return replace(
        prep,
        exercises=tuple(replace(e, loaded=replace(e.loaded, variants=())) for e in prep.exercises),
    )


def _shown(course: Path, assignment: str, graded: StudentResult) -> StudentResult:
    """``graded`` as its learner may read it today, in their notebook's language."""
    from ..course.loaded import get_assignment
    from ..course.visibility import seen_by_learner, shown_at

    loaded = _session(course).loaded
    visible = seen_by_learner(graded, shown_at(get_assignment(loaded, assignment)))
    languages = _languages(course, assignment)
    return languages.result_in(visible, languages.language_of(visible))


def _language(course: Path, shown: StudentResult) -> str:
    languages = _session(course).loaded.course.languages
    return shown.language if shown.language in languages else languages[0]


@lru_cache(maxsize=4)
def _languages(course: Path, assignment: str) -> LearnerLanguages:
    from ..course.learner_language import LearnerLanguages

    return LearnerLanguages(_session(course).loaded, assignment)


def _only_exercise(prep: PreparedAssignment, exercise_id: str) -> PreparedAssignment:
    kept = tuple(e for e in prep.exercises if e.loaded.exercise.id == exercise_id)
    if not kept:
        raise UsageError(
            f"exercise '{exercise_id}' is not in assignment '{prep.assignment.id}' of the course"
        )
    return replace(prep, exercises=kept)


def _given(item: str, text: str | None) -> dict[str, str]:
    return {} if text is None else {item: text}


def _verdict(item: str, results: list[QuestionResult]) -> float | None:
    from ..exports.status_names import status_name

    __tracebackhide__ = True
    if not results:
        raise UsageError(f"'{item}' is not a question of the course")
    earned, top = sum(r.points for r in results), sum(r.max_points for r in results)
    feedback = "\n\n".join(
        f"{r.id}: {status_name(r.status.value)}\n{r.feedback}".strip() for r in results
    )
    if earned <= 0:
        raise NotCorrect(feedback)
    print(feedback)
    return None if earned >= top else earned
