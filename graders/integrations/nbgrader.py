"""Grading inside nbgrader's autograder test cells, with graders' own engine.

``graders release`` writes an nbgrader source notebook whose hidden test cells call::

    graders.nbgrader.check("<exercise>/<question>", globals().pop("answer", ...), assignment="ps1")
    graders.nbgrader.check("<exercise>", <entry function>, assignment="ps1")

nbgrader runs those cells in a kernel in the student's ``autograded/<student>/<assignment>``
folder. ``check`` grades exactly as ``graders grade`` does (``prepare_assignment`` then
``grade_submission``), so the scores agree.

Where the truth comes from: the course itself, read from disk, and torch. The course is
found through ``$GRADERS_COURSE`` (a course.yml or its folder) or else through the
``graders-course.json`` that ``graders release`` writes next to the source notebook
(nbgrader copies it into every autograded folder, overwriting any student copy). Truths
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

from ..errors import UsageError
from ..kinds.code.layout import code_source
from ..notebook import POINTER_FILE

if TYPE_CHECKING:
    from ..batch.grading import PreparedAssignment
    from ..results import QuestionResult

COURSE_ENV = "GRADERS_COURSE"


class NotCorrect(AssertionError):
    """The test cell earns no points; the message is the learner's feedback."""


def check(item: str, answer: Any, *, assignment: str) -> float | None:
    """Grade ``answer`` for ``item`` (``"ex/q"``), or an entry function for a code exercise
    (``"ex"``).

    Returns None for full marks, the points earned for partial credit; raises
    ``NotCorrect`` when nothing is earned.
    """
    from ..batch.grading import grade_submission
    from ..kinds.base import Submission

    __tracebackhide__ = (
        True  # IPython and nbgrader's feedback show the test cell, not graders' frames
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a warning on stderr would fail the nbgrader cell
        prep = _prepared(*course_file(), assignment)
        exercise_id, _, question = item.partition("/")
        only = _only_exercise(prep, exercise_id)
        if question:
            sub = Submission("nbgrader", assignment, answers=_given(item, answer_text(answer)))
        else:
            source = code_source(entry_source(answer))
            sub = Submission("nbgrader", assignment, answers=_given(exercise_id, source))
        results = [q for q in grade_submission(only, sub).questions if q.id == item or not question]
    return _verdict(item, results)


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


def course_file() -> tuple[Path, str | None]:
    """The course.yml to grade with, from ``$GRADERS_COURSE`` or the release's pointer file,
    and the course id the pointer expects there (None when the variable names the course)."""
    from ..course.load import find_course

    env = os.environ.get(COURSE_ENV)
    if env:
        return find_course(Path(env)), None
    pointer = Path.cwd() / POINTER_FILE
    if not pointer.is_file():
        raise UsageError(
            f"graders cannot find the course: set {COURSE_ENV} to the course folder "
            f"(e.g. in nbgrader_config.py), or keep {POINTER_FILE} from `graders release` "
            f"in the assignment's source folder (looked in {Path.cwd()})"
        )
    try:
        data = json.loads(pointer.read_text(encoding="utf-8"))
        return find_course(Path(data["course"])), data.get("course_id")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{pointer}: not a graders course pointer ({exc})") from exc


@lru_cache(maxsize=4)
def _prepared(course: Path, course_id: str | None, assignment: str) -> PreparedAssignment:
    """The assignment's truths, once per kernel (each test cell reuses them)."""
    from ..batch.grading import prepare_assignment
    from ..session import start_session

    session = start_session(course)
    atexit.register(session.close)  # the kernel keeps the session for every later test cell
    loaded = session.loaded
    if course_id is not None and loaded.course.id != course_id:
        raise UsageError(
            f"{course} is course '{loaded.course.id}', but this assignment was released from "
            f"course '{course_id}'"
        )
    return prepare_assignment(loaded, assignment, session.ctx)


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
