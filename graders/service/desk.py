"""The instructor's desk: the class list of every assignment with each learner's status, the
open review requests, the queue; the class list as CSV; the class report. Instructors only
(403 for anyone else), written with the pages' ``render`` in the reader's language.

    /instructor[?status=S]          the class lists (filtered by status), requests, the queue
    /assignments/{a}/class.csv      one assignment's class list as CSV
    /assignments/{a}/report         the class report of an assignment
    POST /requests/{id}/preview     a review request's attempt graded again, saved nowhere

The preview is a ``POST`` (the instructor page's button, through the form gate like every
change): it grades, and a ``GET`` does no work a link prefetcher or another site's
``<img>`` could start (``tests/service/test_gate.py`` walks every ``GET`` route so).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from ..course.times import zone_of
from ..errors import UsageError
from ..gradebook.service_tables import FAILED
from ..i18n import N_, speaking
from ..intake.roster import Roster, find_roster
from .class_list import STATUS_WORDS, STATUSES, class_list
from .identity import Identity
from .pages import course_in, render, signed_in
from .refusals import Refusal, Refused
from .requests import open_requests, preview
from .state import Service, service_of


def routes() -> list[BaseRoute]:
    return [
        Route("/instructor", instructor_page),
        Route("/assignments/{assignment}/report", report_page),
        Route("/assignments/{assignment}/class.csv", class_csv),
        Route("/requests/{id:int}/preview", request_preview, methods=["POST"]),
    ]


async def request_preview(request: Request) -> Response:
    """What grading a review request's attempt again would give, before anything is saved:
    each question before and after, and the form that saves it (``Grade again``)."""
    service = service_of(request)
    who = await signed_in(request)
    shown = await run_in_threadpool(preview, service, who, int(request.path_params["id"]))
    return render(request, "request_preview.html.j2", who, {"p": shown})


async def instructor_page(request: Request) -> Response:
    service = service_of(request)
    who = await signed_in(request)
    _instructors_only(who)

    wanted = request.query_params.get("status")
    shown = wanted if wanted in STATUSES else None

    def context() -> dict[str, Any]:
        course = course_in(service, request).course
        roster = _roster(service)
        classes = []
        for a in course.assignments:
            rows = class_list(service.queue, service.assignment(a.id), roster)
            classes.append(
                {
                    "assignment": a,
                    "rows": [r for r in rows if shown is None or r.status == shown],
                    "counts": {s: sum(r.status == s for r in rows) for s in STATUSES},
                    "total": len(rows),
                    "failed": [x for x in service.queue.all_attempts(a.id) if x.status == FAILED],
                    "zone": zone_of(a),
                }
            )
        return {
            "classes": classes,
            "queue": service.queue.waiting(),
            "statuses": [(s, STATUS_WORDS[s]) for s in STATUSES],
            "status_words": STATUS_WORDS,
            "shown": shown,
            "requests": open_requests(service),
        }

    return render(request, "instructor.html.j2", who, await run_in_threadpool(context))


async def class_csv(request: Request) -> Response:
    """The instructor page's class list of one assignment, as CSV (for a spreadsheet)."""
    from ..exports.csv_writer import csv_text

    service = service_of(request)
    who = await signed_in(request)
    _instructors_only(who)
    assignment = service.assignment(request.path_params["assignment"])

    def table() -> str:
        rows = class_list(service.queue, assignment, _roster(service))
        head = ["student", "status", "attempts", "score", "max_score", "late_factor"]
        head += ["extended_to", "overridden", "on_roster", "counted_submission", "accommodated"]
        return csv_text(
            [head]
            + [
                [
                    r.student,
                    r.status,
                    r.attempts,
                    r.record.score if r.record else "",
                    r.record.max_score if r.record else "",
                    r.late_factor if r.late_factor is not None else "",
                    r.extended_to.isoformat() if r.extended_to else "",
                    "yes" if r.overridden else "",
                    {True: "yes", False: "no", None: ""}[r.on_roster],
                    r.record.counted_id or "" if r.record else "",
                    "yes" if r.accommodated else "",
                ]
                for r in rows
            ]
        )

    name = f"{assignment.id}-class.csv"
    return Response(
        await run_in_threadpool(table),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def _roster(service: Service) -> Roster | None:
    """The course's roster.csv, if it has one that reads (a broken one: the list without it)."""
    try:
        return find_roster(service.loaded.root)
    except UsageError:
        return None


async def report_page(request: Request) -> Response:
    from ..gradebook import store as gradebook
    from ..reports.course_info import course_info
    from ..reports.model import assignment_report
    from ..reports.render import assignment_pieces, write_page

    service = service_of(request)
    who = await signed_in(request)
    _instructors_only(who)
    assignment = service.assignment(request.path_params["assignment"])
    language = service.language(request)

    def page() -> Path:
        # Written to a file as the class is read and sent from there: a class of thousands
        # is a page of hundreds of megabytes, never held in memory.
        results = gradebook.class_results(
            service.engine, service.course.id, assignment.id, service.queue.renamed
        )
        if not results.count:
            text = N_("Nothing is graded for {assignment} yet.")
            raise Refused(404, Refusal(text, {"assignment": assignment.id}))
        handle, name = tempfile.mkstemp(prefix="graders-report-", suffix=".html")
        os.close(handle)
        try:
            with speaking(language):
                shown = service.languages(assignment.id).course_in(language)
                report = assignment_report(results, course_info(shown))
                return write_page(assignment_pieces(report), Path(name))
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise

    written = await run_in_threadpool(page)
    # The report is one self-contained file with its own inline script and policy.
    return FileResponse(
        written,
        media_type="text/html",
        headers={
            "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; "
            "script-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'"
        },
        background=BackgroundTask(written.unlink, missing_ok=True),
    )


def _instructors_only(who: Identity) -> None:
    if not who.instructor:
        raise Refused(403, Refusal(N_("Only the course's instructors may read this page.")))
