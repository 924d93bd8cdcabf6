"""A submission graders failed on has a status of its own, ``internal``: typed where it is
made, read from documents of schema 2 (which called it ``ungradable`` and said so only in
its error's words) and from the grades a gradebook kept, and it is what the exit code is
chosen from — never the text of an error."""

from __future__ import annotations

import json

from graders.gradebook.migrations.versions import rev_0009_internal_status as revision
from graders.grading.pipeline import hit_a_bug, internal_failure, ungradable
from graders.results import ResultsDocument, StudentResult, SubmissionStatus
from graders.results_upgrade import SCHEMA, upgraded
from graders.said import say

FAILED = [{"message": "internal error while grading: {detail}", "fields": {"detail": "boom"}}]
UNREADABLE = [{"message": "not a notebook: {path}", "fields": {"path": "ada.ipynb"}}]


def _student(name: str, status: str, error: object) -> dict[str, object]:
    return {
        "student": name,
        "score": 0.0,
        "max_score": 0,
        "status": status,
        "error": error,
        "late_factor": 1.0,
        "submitted_at": None,
        "graded_at": None,
        "questions": [],
    }


def test_the_status_is_made_typed_and_the_exit_code_reads_it() -> None:
    failed = internal_failure("ada", say("internal error while grading: {detail}", detail="x"))
    assert failed.status is SubmissionStatus.INTERNAL and hit_a_bug(failed)
    # Words alone decide nothing: an unreadable notebook whose error begins the same way
    # is the learner's problem, not a bug of graders'.
    worded = ungradable("bob", "internal error while reading: the learner typed this")
    assert worded.status is SubmissionStatus.UNGRADABLE and not hit_a_bug(worded)
    assert not failed.read and failed.score == 0


def test_a_schema_2_document_reads_its_internal_failures_as_internal() -> None:
    old = {
        "schema": 2,
        "course": "c",
        "assignment": "ps1",
        "torch_version": "2.13.0",
        "graded_at": None,
        "isolation": None,
        "students": [
            _student("ada", "ungradable", FAILED),
            _student("bob", "ungradable", UNREADABLE),
            _student("cy", "ungradable", ["internal error while reading x: E"]),
        ],
    }
    statuses = [s["status"] for s in upgraded(old)["students"]]
    assert statuses == ["internal", "ungradable", "internal"]
    assert SCHEMA == 3
    doc = ResultsDocument.parse(json.dumps(old))
    assert [s.status for s in doc.students] == [
        SubmissionStatus.INTERNAL,
        SubmissionStatus.UNGRADABLE,
        SubmissionStatus.INTERNAL,
    ]


def test_the_gradebook_revision_rewrites_only_what_graders_failed_on() -> None:
    stored = json.dumps(_student("ada", "ungradable", FAILED))
    rewritten = revision._upgraded(stored)  # noqa: SLF001 - the revision's own reading
    assert rewritten is not None and json.loads(rewritten)["status"] == "internal"
    assert revision._upgraded(json.dumps(_student("bob", "ungradable", UNREADABLE))) is None  # noqa: SLF001
    assert revision._upgraded(rewritten) is None  # noqa: SLF001 - twice changes nothing


def test_an_internal_result_round_trips_through_a_document() -> None:
    result = StudentResult("ada", (), SubmissionStatus.INTERNAL, "internal error while x")
    doc = ResultsDocument("c", "ps1", "2.13.0", None, None, (result,))
    again = ResultsDocument.parse(doc.dumps())
    assert again.students[0].status is SubmissionStatus.INTERNAL
