"""One handed-in notebook, read and graded: what every way of grading a notebook shares.

    grade_found(prep, loaded, found)   # (result, retry next run?); never raises

A batch's threads and its cluster workers, the service's grading sites and ``graders ci``
(the pytest plugin and Gradescope with it) all grade a notebook through this one function,
so a learner gets the same grade, and the same words, wherever it was graded. It needs no
gradebook: one notebook graded alone imports nothing of storage.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from ..course.loaded import LoadedCourse
from ..errors import SubmissionError
from ..notebook import collect
from ..results import StudentResult, SubmissionStatus
from ..said import replaced, say, told
from ..submissions.folder import Found
from .pipeline import PreparedAssignment, grade_submission, internal_failure, ungradable

log = logging.getLogger(__name__)


def grade_found(
    prep: PreparedAssignment, loaded: LoadedCourse, found: Found
) -> tuple[StudentResult, bool]:
    """Read and grade one student's notebook; also says whether to retry it next run.

    Never raises: a notebook that cannot be read is that student's ``ungradable`` result.
    """
    if found.error is not None or found.path is None:
        return ungradable(found.student, found.error or say("no notebook")), False
    try:
        sub = collect.read_submission(found.path, prep.assignment.id, loaded, found.student)
    except SubmissionError as exc:
        # The learner knows their notebook by its place in what they handed in.
        reason = replaced(told(exc), str(found.path), found.source)
        return ungradable(found.student, reason, exc.language), False
    except Exception as exc:  # noqa: BLE001 - a reader bug costs this student, and is retried
        log.error("internal error while reading %s", found.source, exc_info=True)
        return internal_failure(
            found.student,
            say(
                "internal error while reading {path}: {detail}",
                path=found.source,
                detail=f"{type(exc).__name__}: {exc}",
            ),
        ), True
    result = grade_submission(
        prep, replace(sub, student=found.student, submitted_at=found.submitted_at)
    )
    # A failure of graders' own is worth another try; the submission's own problems are not.
    return result, result.status is SubmissionStatus.INTERNAL
