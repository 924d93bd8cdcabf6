"""One handed-in notebook, read and graded: what every way of grading a notebook shares.

    grade_notebook(prep, loaded, handed_in)   # (result, retry next run?); never raises

What is handed in (``submissions.handed_in.HandedIn``) is the student, their notebook as
its file or its bytes, the name they know it by and its submission time. A batch's threads
(each ``Found`` of the folder scan, ``Found.handed_in``) and its cluster workers (the bytes
shipped), the service's grading sites (the upload's bytes, never written to disk) and
``graders ci`` (the pytest plugin and Gradescope with it) all grade a notebook through this
one function, so a learner gets the same grade, and the same words, wherever it was graded.
It needs no gradebook: one notebook graded alone imports nothing of storage.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from ..course.loaded import LoadedCourse
from ..errors import SubmissionError
from ..kinds.base import Submission
from ..notebook import collect
from ..results import StudentResult, SubmissionStatus
from ..said import say, told
from ..submissions.handed_in import HandedIn
from .pipeline import PreparedAssignment, grade_submission, internal_failure, ungradable

__all__ = ["HandedIn", "grade_notebook", "grade_read", "read_handed_in"]

log = logging.getLogger(__name__)


def grade_notebook(
    prep: PreparedAssignment, loaded: LoadedCourse, handed_in: HandedIn
) -> tuple[StudentResult, bool]:
    """Read and grade one student's notebook; also says whether to retry it next run.

    Never raises: a notebook that cannot be read is that student's ``ungradable`` result,
    in words that name it as the learner knows it (``handed_in.source``); a bug of the
    reader's is their ``internal`` result, graded again at the next run.
    """
    read = read_handed_in(prep.assignment.id, loaded, handed_in)
    return grade_read(prep, read) if isinstance(read, Submission) else read


def read_handed_in(
    assignment: str, loaded: LoadedCourse, handed_in: HandedIn
) -> Submission | tuple[StudentResult, bool]:
    """The submission ``handed_in`` holds, read as ``grade_notebook`` reads it, or, when it
    cannot be read, the student's result and whether to retry it. It needs no truths: one
    notebook's grader prepares its assignment only for a notebook it could read."""
    student, notebook = handed_in.student, handed_in.notebook
    if handed_in.error is not None or notebook is None:
        return ungradable(student, handed_in.error or say("no notebook")), False
    try:
        sub = collect.read_submission(notebook, assignment, loaded, student, name=handed_in.source)
    except SubmissionError as exc:
        return ungradable(student, told(exc), exc.language), False
    except Exception as exc:  # noqa: BLE001 - a reader bug costs this student, and is retried
        log.error("internal error while reading %s", handed_in.source, exc_info=True)
        return internal_failure(
            student,
            say(
                "internal error while reading {path}: {detail}",
                path=handed_in.source,
                detail=f"{type(exc).__name__}: {exc}",
            ),
        ), True
    return replace(sub, student=student, submitted_at=handed_in.submitted_at)


def grade_read(prep: PreparedAssignment, sub: Submission) -> tuple[StudentResult, bool]:
    """Grade a submission ``read_handed_in`` read; also says whether to retry it next run."""
    result = grade_submission(prep, sub)
    # A failure of graders' own is worth another try; the submission's own problems are not.
    return result, result.status is SubmissionStatus.INTERNAL
