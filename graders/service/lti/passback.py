"""Assignment and Grade Services: each LTI learner's grade of record, sent to their LMS
course's line item whenever it changes, and nothing lost when the LMS is down.

    passback = Passback(engine, loaded, platforms, keys)
    passback.send_changed()          # what changed since it was last sent (the service's thread)
    passback.sync("ps1")             # everything again (`graders lti sync ps1`)

The grade of record is read as every output reads it (``gradebook.results_document``: the
counted attempt, the instructor's overrides, extensions, drops and regrades) and compared
with what was last sent, so whatever changed it — the service's grader, or `graders
override` in another process — the LMS gets the new score at the next round. A line item
is looked up by its ``resourceId`` (the assignment) before one is created, through every
page of the platform's list (``Link: rel="next"``, at most ``LINE_ITEM_PAGES``, on the
line items endpoint's origin only), and its URL is kept: it is never created twice; a list
that goes on where it is not followed makes none (the score waits, and the log says why).
``scoreGiven`` is never above ``scoreMaximum``. A score the platform refuses, or cannot
take now, stays to send (retried at later rounds, each longer apart); every score sent or
refused is a line of the audit trail.
"""

from __future__ import annotations

import logging
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from sqlalchemy import select, text, update
from sqlalchemy.engine import Engine

from ...course.loaded import LoadedCourse
from ...gradebook import audit
from ...gradebook import store as gradebook
from ...gradebook.lti_tables import (
    FAILED_PASSBACK,
    POSTED,
    LtiContextRow,
    LtiLineItemRow,
    LtiOutcomeRow,
    LtiUserRow,
)
from ...results import ResultsDocument
from .keys import ToolKeys
from .platforms import Platforms
from .services import ServiceCalls, ServiceError, Unfollowed, pages

log = logging.getLogger("graders.service.lti")

LINE_ITEM = "application/vnd.ims.lis.v2.lineitem+json"
LINE_ITEMS = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE = "application/vnd.ims.lis.v1.score+json"
AGS = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LINE_ITEM_SCOPES = (AGS + "lineitem",)
SCORE_SCOPES = (AGS + "score",)
BY = "graders serve (LTI)"  # who sent a score, in the audit trail
SENDER_LOCK = 0x6C7469  # "lti": with the course's hash, the advisory lock of its sender
RETRY_AFTER_S = (10.0, 600.0)  # a failed score waits this long before another round, doubling
LINE_ITEM_PAGES = 50  # the line items of one LMS course, filtered by resourceId: a few pages


@dataclass(frozen=True)
class Sent:
    """What one round did: scores sent, scores that failed, scores already there."""

    sent: int = 0
    failed: int = 0
    unchanged: int = 0


@dataclass(frozen=True)
class _Target:
    """A learner's outcome on one line item, and where it goes."""

    outcome: int
    student: str
    sub: str
    state: str
    sent_score: float | None
    tries: int
    item: int
    item_url: str | None
    assignment: str
    score_maximum: float
    lineitems_url: str | None
    context_id: str
    platform_id: int


def scores_url(line_item: str) -> str:
    """The scores endpoint of ``line_item``: its path and ``/scores``, its query kept."""
    parts = urlsplit(line_item)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores", fragment=""))


def score_given(doc: ResultsDocument, student: str, maximum: float) -> float | None:
    """The learner's score of record in the line item's points (never above them), or
    None when there is no grade to send yet."""
    found = next((s for s in doc.students if s.student == student), None)
    if found is None or found.max_score <= 0:
        return None
    return round(min(maximum, max(0.0, found.score * maximum / found.max_score)), 4)


class Passback:
    """Sends the grades of record of one course's LTI learners."""

    def __init__(
        self, engine: Engine, loaded: LoadedCourse, platforms: Platforms, keys: ToolKeys
    ) -> None:
        self.engine, self.loaded = engine, loaded
        self.course = loaded.course.id
        self.platforms, self.keys = platforms, keys
        self._calls: dict[int, ServiceCalls] = {}
        self._round = threading.Lock()  # one round at a time: never two sends of one score
        self._not_before: dict[int, float] = {}  # outcome -> when a failed one is tried again

    def send_changed(self, stop: threading.Event | None = None) -> Sent:
        """Send every score that differs from the one last sent (or was never sent)."""
        return self._send(None, force=False, stop=stop)

    def sync(self, assignment: str | None = None) -> Sent:
        """Send every score of ``assignment`` (all: None) again, failed or not."""
        return self._send(assignment, force=True, stop=None)

    def _send(self, assignment: str | None, force: bool, stop: threading.Event | None) -> Sent:
        # `graders lti sync` waits its turn; the service's own rounds skip a turn.
        with self._round, self._only_sender(wait=force) as alone:
            if not alone:
                return Sent()  # another process is sending this course's scores right now
            return self._send_each(assignment, force, stop)

    @contextmanager
    def _only_sender(self, wait: bool) -> Iterator[bool]:
        """Whether this process alone sends the course's scores now: several processes
        sharing a PostgreSQL gradebook take turns (an advisory lock), or two of them could
        each make the line item they both did not find."""
        if self.engine.dialect.name != "postgresql":
            yield True  # SQLite: one machine, one service process sends
            return
        key = zlib.crc32(self.course.encode()) & 0x7FFFFFFF
        with self.engine.connect() as conn:
            take = "pg_advisory_lock" if wait else "pg_try_advisory_lock"
            found = conn.execute(
                text(f"SELECT {take}(:a, :b)"), {"a": SENDER_LOCK, "b": key}
            ).scalar_one()
            taken = wait or bool(found)  # pg_advisory_lock returns nothing: it waited
            conn.commit()  # the lock is the session's: no transaction stays open meanwhile
            try:
                yield bool(taken)
            finally:
                if taken:
                    conn.execute(
                        text("SELECT pg_advisory_unlock(:a, :b)"), {"a": SENDER_LOCK, "b": key}
                    )
                conn.commit()

    def _send_each(self, assignment: str | None, force: bool, stop: threading.Event | None) -> Sent:
        sent = failed = unchanged = 0
        docs: dict[str, ResultsDocument] = {}
        for target in self._targets(assignment):
            if stop is not None and stop.is_set():
                break
            if target.assignment not in docs:
                docs[target.assignment] = gradebook.results_document(
                    self.engine, self.course, target.assignment, self.loaded.renamed
                )
            doc = docs[target.assignment]
            dropped = target.student in doc.dropped
            score = None if dropped else score_given(doc, target.student, target.score_maximum)
            if score is None and not (dropped and target.sent_score is not None):
                continue  # nothing graded yet: nothing to say
            if not force and target.state == POSTED and target.sent_score == score:
                unchanged += 1
                continue
            if not force and self._not_before.get(target.outcome, 0.0) > time.monotonic():
                continue
            if self._post(target, score):
                sent += 1
            else:
                failed += 1
        return Sent(sent, failed, unchanged)

    def _post(self, target: _Target, score: float | None) -> bool:
        calls = self._calls_of(target.platform_id)
        where = (self.course, target.assignment, target.student)
        try:
            url = target.item_url or self._line_item(calls, target)
            calls.post(scores_url(url), SCORE_SCOPES, _score(target, score), content_type=SCORE)
        except (ServiceError, ValueError) as exc:  # ValueError: an answer that is not JSON
            tries = target.tries + 1
            wait = min(RETRY_AFTER_S[1], RETRY_AFTER_S[0] * 2 ** (tries - 1))
            self._not_before[target.outcome] = time.monotonic() + wait
            log.warning(
                "LTI score of %s for %s not sent: %s", target.student, target.assignment, exc
            )
            with self.engine.begin() as conn:
                conn.execute(
                    update(LtiOutcomeRow)
                    .where(LtiOutcomeRow.id == target.outcome)
                    .values(state=FAILED_PASSBACK, tries=tries, error=str(exc))
                )
                audit.log(
                    conn,
                    where,
                    "lti-passback-failed",
                    f"score {_shown(score)} not sent to {target.context_id}: {exc}",
                    by=BY,
                )
            return False
        self._not_before.pop(target.outcome, None)
        with self.engine.begin() as conn:
            conn.execute(
                update(LtiOutcomeRow)
                .where(LtiOutcomeRow.id == target.outcome)
                .values(
                    state=POSTED, sent_score=score, sent_at=datetime.now(UTC), tries=0, error=None
                )
            )
            audit.log(
                conn,
                where,
                "lti-passback",
                f"score {_shown(score)} of {target.score_maximum:g} sent to {url}",
                by=BY,
            )
        log.info("LTI score %s of %s sent for %s", _shown(score), target.assignment, target.student)
        return True

    def _line_item(self, calls: ServiceCalls, target: _Target) -> str:
        """The line item of the assignment in the LMS course: found by ``resourceId``,
        else created (once: its URL is kept)."""
        if target.lineitems_url is None:
            raise ServiceError("the LMS course offers no line items service")
        found = self._find_line_item(calls, target.lineitems_url, target.assignment)
        if found is not None:
            url = found
        else:
            body = {
                "scoreMaximum": target.score_maximum,
                "label": self._title(target.assignment),
                "resourceId": target.assignment,
                "tag": "graders",
            }
            made = calls.post(
                target.lineitems_url,
                LINE_ITEM_SCOPES,
                body,
                content_type=LINE_ITEM,
                accept=LINE_ITEM,
            ).json()
            if not isinstance(made, dict) or not isinstance(made.get("id"), str):
                raise ServiceError("the LMS made a line item without an id")
            url = str(made["id"])
        with self.engine.begin() as conn:
            conn.execute(
                update(LtiLineItemRow)
                .where(LtiLineItemRow.id == target.item, LtiLineItemRow.url.is_(None))
                .values(url=url)
            )
        return url

    def _find_line_item(
        self, calls: ServiceCalls, lineitems_url: str, assignment: str
    ) -> str | None:
        """The URL of the line item whose ``resourceId`` is ``assignment``, looked for page
        by page (None: the whole list read, and it is not there)."""
        listed = pages(
            calls,
            lineitems_url,
            LINE_ITEM_SCOPES,
            accept=LINE_ITEMS,
            limit=LINE_ITEM_PAGES,
            resource_id=assignment,
        )
        try:
            for page in listed:
                for item in _json_list(page.json()):
                    if item.get("resourceId") == assignment and isinstance(item.get("id"), str):
                        return str(item["id"])
        except Unfollowed as exc:
            log.warning(
                "LTI line item of %s not looked up further, and none made (it may be on a page "
                "not read; the score waits for a later round): %s",
                assignment,
                exc,
            )
            raise
        return None

    def _title(self, assignment: str) -> str:
        found = self.loaded.course.assignment(assignment)
        return str(found.title) if found is not None else assignment

    def _calls_of(self, platform_id: int) -> ServiceCalls:
        if platform_id not in self._calls:
            self._calls[platform_id] = ServiceCalls(self.platforms.get(platform_id), self.keys)
        return self._calls[platform_id]

    def _targets(self, assignment: str | None) -> list[_Target]:
        query = (
            select(
                LtiOutcomeRow.id,
                LtiOutcomeRow.student,
                LtiUserRow.sub,
                LtiOutcomeRow.state,
                LtiOutcomeRow.sent_score,
                LtiOutcomeRow.tries,
                LtiLineItemRow.id,
                LtiLineItemRow.url,
                LtiLineItemRow.assignment,
                LtiLineItemRow.score_maximum,
                LtiContextRow.lineitems_url,
                LtiContextRow.context_id,
                LtiContextRow.platform_id,
            )
            .join(LtiUserRow, LtiUserRow.id == LtiOutcomeRow.user_id)
            .join(LtiLineItemRow, LtiLineItemRow.id == LtiOutcomeRow.line_item_id)
            .join(LtiContextRow, LtiContextRow.id == LtiLineItemRow.context_row_id)
            .where(LtiOutcomeRow.course == self.course)
            .order_by(LtiOutcomeRow.id)
        )
        if assignment is not None:
            query = query.where(LtiOutcomeRow.assignment == assignment)
        with self.engine.connect() as conn:
            return [_Target(*row) for row in conn.execute(query)]  # type: ignore[call-arg]


def _score(target: _Target, score: float | None) -> dict[str, Any]:
    """The AGS score: fully graded; a dropped learner's score cleared (no ``scoreGiven``)."""
    body: dict[str, Any] = {
        "userId": target.sub,
        "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "activityProgress": "Completed" if score is not None else "Initialized",
        "gradingProgress": "FullyGraded" if score is not None else "NotReady",
    }
    if score is not None:
        body |= {"scoreGiven": score, "scoreMaximum": target.score_maximum}
    return body


def _shown(score: float | None) -> str:
    return "(cleared)" if score is None else f"{score:g}"


def _json_list(data: Any) -> list[dict[str, Any]]:
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []
