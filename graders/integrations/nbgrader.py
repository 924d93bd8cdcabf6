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

Where the truth comes from: the course itself, read from disk, and torch. The course is
found through ``$GRADERS_COURSE`` (a course.yml or its folder; set it in
``nbgrader_config.py``) or else, by the id the release's ``graders-course.json`` names, in
the folders above the notebook (a course whose folder holds the nbgrader course). The
pointer holds no path: nbgrader hands the source folder's files out to learners. Truths
come from the course's truth cache, which ``graders release`` has filled; on a miss they
are computed by torch in a sandbox child, never in this kernel, where student code has
already run and could have changed torch.

A cell passes (full points), raises ``NotCorrect`` (no points, with the feedback), or,
for a code exercise with partial credit, returns the points earned, which nbgrader reads
as the cell's partial credit. Nothing is written to stderr: nbgrader scores a test cell
with stderr output as failed.

nbgrader runs student code in the same kernel before these cells, so a student can
defeat any test cell there. ``graders autograde`` reads the same notebooks as text and
never runs them: use it where the grade must be trusted.
"""

from __future__ import annotations

import atexit
import inspect
import json
import linecache
import os
import warnings
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SubmissionError, UsageError
from ..kinds.code.layout import code_source
from ..notebook import META_KEY, POINTER_FILE

if TYPE_CHECKING:
    from ..batch.grading import PreparedAssignment
    from ..kinds.base import Submission
    from ..results import QuestionResult
    from ..session import Session

COURSE_ENV = "GRADERS_COURSE"
STUDENT = "nbgrader"
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
    from ..batch.grading import grade_submission

    __tracebackhide__ = (
        True  # IPython and nbgrader's feedback show the test cell, not graders' frames
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a warning on stderr would fail the nbgrader cell
        course = course_file()
        prep = _prepared(course, assignment)
        exercise_id, _, question = item.partition("/")
        only = _only_exercise(prep, exercise_id)
        sub = _submission(course, assignment, item, answer)
        results = [q for q in grade_submission(only, sub).questions if q.id == item or not question]
    return _verdict(item, results)


def saved_notebook(assignment: str, folder: Path | None = None) -> Path | None:
    """The notebook of ``assignment`` saved in ``folder`` (the current one): the one named
    ``<assignment>.ipynb``, else the only notebook released for that assignment."""
    folder = folder or Path.cwd()
    named = folder / f"{assignment}.ipynb"
    if named.is_file():
        return named
    released = [p for p in sorted(folder.glob("*.ipynb")) if _declares(p, assignment)]
    return released[0] if len(released) == 1 else None


def _submission(course: Path, assignment: str, item: str, answer: Any) -> Submission:
    """What the learner answered, from the saved notebook (or, failing that, the kernel)."""
    from ..kinds.base import Submission
    from ..notebook.collect import read_submission

    notebook = saved_notebook(assignment)
    if notebook is not None:
        return read_submission(notebook, assignment, _session(course).loaded, STUDENT)
    if answer is _NOT_GIVEN:
        raise UsageError(
            f"graders cannot find the notebook of assignment '{assignment}' in {Path.cwd()}: "
            f"save it there as {assignment}.ipynb"
        )
    exercise_id, _, question = item.partition("/")
    if question:
        return Submission(STUDENT, assignment, answers=_given(item, answer_text(answer)))
    source = code_source(entry_source(answer))
    return Submission(STUDENT, assignment, answers=_given(exercise_id, source))


def _declares(path: Path, assignment: str) -> bool:
    from ..notebook.read import read_notebook

    try:
        meta = read_notebook(path).get("metadata", {})
    except SubmissionError:
        return False
    tag = meta.get(META_KEY) if isinstance(meta, dict) else None
    return isinstance(tag, dict) and tag.get("assignment") == assignment


def answer_text(answer: Any) -> str | None:
    """A Python value as the answer literal a learner would type (None: unanswered)."""
    if answer is Ellipsis:
        return None
    if isinstance(answer, str):
        return answer  # the literal itself, as in a notebook cell read by `graders grade`
    if isinstance(answer, type) and issubclass(answer, BaseException):
        return answer.__name__
    if isinstance(answer, BaseException):
        return type(answer).__name__
    return repr(answer)  # torch prints tensors, sizes, dtypes and grad_fns as literals


def entry_source(entry: Any) -> str:
    """The source a learner wrote for a code exercise: the whole cell defining ``entry``."""
    if isinstance(entry, str):
        return entry
    filename = getattr(getattr(entry, "__code__", None), "co_filename", "")
    lines = linecache.getlines(filename) if filename else []
    if lines:
        return "".join(lines)  # IPython keeps each cell's source in linecache
    try:
        return inspect.getsource(entry)
    except (OSError, TypeError):
        return ""


def course_file() -> Path:
    """The course.yml to grade with: ``$GRADERS_COURSE``, else the nearest course above
    the current folder whose id is the one the release's pointer file names."""
    from ..course.load import find_course

    env = os.environ.get(COURSE_ENV)
    if env:
        return find_course(Path(env))
    pointer = Path.cwd() / POINTER_FILE
    course_id = _pointer_course_id(pointer)
    found = _course_above(Path.cwd(), course_id)
    if found is None:
        raise UsageError(
            f"graders cannot find course '{course_id}' in the folders above {Path.cwd()}: set "
            f"{COURSE_ENV} to the course folder in nbgrader_config.py, e.g. "
            f'os.environ["{COURSE_ENV}"] = "/path/to/course"'
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
    """The nearest course.yml in ``folder`` or a folder above it whose id is ``course_id``."""
    import yaml

    from ..course.load import COURSE_FILE

    for candidate in (d / COURSE_FILE for d in (folder, *folder.parents)):
        try:
            data = yaml.safe_load(candidate.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        if isinstance(data, dict) and data.get("id") == course_id:
            return candidate
    return None


@lru_cache(maxsize=4)
def _session(course: Path) -> Session:
    """The course opened once per kernel (each test cell reuses it)."""
    from ..session import start_session

    session = start_session(course)
    atexit.register(session.close)  # the kernel keeps the session for every later test cell
    return session


@lru_cache(maxsize=4)
def _prepared(course: Path, assignment: str) -> PreparedAssignment:
    """The assignment's truths, once per kernel."""
    from ..batch.grading import prepare_assignment

    session = _session(course)
    return prepare_assignment(session.loaded, assignment, session.ctx)


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
    __tracebackhide__ = True
    if not results:
        raise UsageError(f"'{item}' is not a question of the course")
    earned, top = sum(r.points for r in results), sum(r.max_points for r in results)
    feedback = "\n\n".join(f"{r.id}: {r.status.value}\n{r.feedback}".strip() for r in results)
    if earned <= 0:
        raise NotCorrect(feedback)
    print(feedback)
    return None if earned >= top else earned
