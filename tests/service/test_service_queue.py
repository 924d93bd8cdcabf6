"""The queue of attempts in the gradebook, step by step, on SQLite and PostgreSQL: claimed
once, taken back from a dead server, saved only under a claim still held, failed after
taking its grader down too often.

The whole service around it, killed and restarted for real, is `test_service_restart.py`.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from small_course import RIGHT, notebook
from sqlalchemy import update

from graders.course.model import Assignment
from graders.gradebook import store as gradebook
from graders.gradebook.service_tables import FAILED, GRADED, GRADING, QUEUED, ServerRow
from graders.results import QuestionResult, Status, StudentResult
from graders.service.identity import Identity
from graders.service.queue import MAX_TRIES, Queue, Upload
from graders.service.servers import LEASE_S, Me, Servers

ASSIGNMENT = Assignment.model_validate(
    {"id": "ps1", "title": "t", "due": "2099-01-01T00:00:00+00:00", "exercises": ["x"]}
)
FULL = StudentResult("ada", (QuestionResult("x/q", Status.CORRECT, 1.0, 1.0),))
BY = ("2.13.0", "inprocess")
HANDED_IN = notebook(RIGHT).encode()


@pytest.fixture
def queue(gradebook_url: str) -> Queue:
    return Queue(gradebook.open_gradebook(gradebook_url), "tiny")


def accepted(queue: Queue, student: str = "ada") -> int:
    upload = Upload("ps1", "ps1.ipynb", HANDED_IN, datetime.now(UTC))
    return queue.accept(upload, Identity(student, "learner"), ASSIGNMENT).id


def status(queue: Queue, attempt: int) -> str:
    found = queue.attempt(attempt)
    assert found is not None
    return found.status


def test_each_attempt_is_claimed_once_oldest_first(queue: Queue) -> None:
    first, second = accepted(queue, "ada"), accepted(queue, "bob")
    me, other = Me(), Me()
    taken = [queue.claim(me.id), queue.claim(other.id), queue.claim(me.id)]
    assert [t.id if t else None for t in taken] == [first, second, None]
    assert taken[0] is not None and taken[0].notebook == HANDED_IN
    assert status(queue, first) == status(queue, second) == GRADING


def test_a_server_claims_only_its_own_course_s_attempts(queue: Queue) -> None:
    # One gradebook, two courses (a term's and the next one's, each served by its own
    # process): each server grades only what was handed in to its course.
    later = Queue(queue.engine, "tiny-2027")
    mine, theirs = accepted(queue), accepted(later)
    assert [c.id if c else None for c in (later.claim(Me().id), later.claim(Me().id))] == [
        theirs,
        None,
    ]
    claimed = queue.claim(Me().id)
    assert claimed is not None and claimed.id == mine


def test_a_regrade_takes_its_attempts_without_queueing_them(queue: Queue) -> None:
    # Taken straight from graded to grading by the regrading process: a running server
    # (which may hold the key the instructor just fixed) never sees them queued.
    attempt, server, regrader = accepted(queue), Me(), Me()
    claimed = queue.claim(server.id)
    assert claimed is not None and queue.finish(claimed, server.id, FULL, 0.1, ASSIGNMENT, BY)
    taken = queue.take([attempt], regrader.id)
    assert [t.id for t in taken] == [attempt] and status(queue, attempt) == GRADING
    assert queue.claim(server.id) is None
    assert queue.take([attempt], server.id) == []  # already being graded: left to its grader
    assert queue.finish(taken[0], regrader.id, FULL, 0.2, ASSIGNMENT, BY)
    assert status(queue, attempt) == GRADED


def test_a_grade_is_saved_only_under_a_claim_still_held(queue: Queue) -> None:
    attempt = accepted(queue)
    slow, fast = Me(), Me()
    claimed = queue.claim(slow.id)
    assert claimed is not None
    # The slow server is taken for dead: its attempt is queued again and another grades it.
    assert queue.give_back(slow.id) == 1
    again = queue.claim(fast.id)
    assert again is not None and again.id == attempt
    assert queue.finish(again, fast.id, FULL, 0.1, ASSIGNMENT, BY)
    # The slow one comes back with its grade: it is not saved, the grade stays the other's.
    assert not queue.finish(claimed, slow.id, FULL, 9.9, ASSIGNMENT, BY)
    assert not queue.fail(claimed, slow.id, "late", 9.9)
    found = queue.attempt(attempt)
    assert found is not None and (found.status, found.seconds) == (GRADED, 0.1)
    record = gradebook.results_document(queue.engine, "tiny", "ps1").students
    assert [(s.student, s.score) for s in record] == [("ada", 1.0)]


def test_a_dead_servers_attempts_go_back_to_the_queue(queue: Queue) -> None:
    servers = Servers(queue.engine)
    me = Me()
    servers.register(me)
    dead_here = Me(pid=_a_pid_no_process_has())
    silent_elsewhere = Me(host="another-machine")
    alive_elsewhere = Me(host="a-third-machine")
    for server in (dead_here, silent_elsewhere, alive_elsewhere):
        servers.register(server)
    held = {
        server.id: accepted(queue, server.id[:8])
        for server in (dead_here, silent_elsewhere, alive_elsewhere)
    }
    for server in (dead_here, silent_elsewhere, alive_elsewhere):
        assert queue.claim(server.id) is not None
    with queue.engine.begin() as conn:  # the machine that stopped beating, long ago
        old = datetime.now(UTC) - timedelta(seconds=LEASE_S * 2)
        conn.execute(
            update(ServerRow).where(ServerRow.id == silent_elsewhere.id).values(beat_at=old)
        )
    assert servers.sweep(me) == 2
    assert status(queue, held[dead_here.id]) == QUEUED
    assert status(queue, held[silent_elsewhere.id]) == QUEUED
    assert status(queue, held[alive_elsewhere.id]) == GRADING
    assert servers.sweep(me) == 0


def test_an_attempt_that_takes_its_grader_down_each_time_fails(queue: Queue) -> None:
    attempt = accepted(queue)
    for _ in range(MAX_TRIES):
        server = Me()
        assert queue.claim(server.id) is not None
        queue.give_back(server.id)  # as a sweep does after the server died
    assert queue.claim(Me().id) is None
    found = queue.attempt(attempt)
    assert found is not None and found.status == FAILED
    assert found.error == "stopped its grader each time"


def _a_pid_no_process_has() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


def test_the_default_gradebook_holds_the_queue(tmp_path: Path) -> None:
    # The queue is in the gradebook file itself: nothing else to set up or back up.
    url = gradebook.default_url(tmp_path)
    queue = Queue(gradebook.open_gradebook(url), "tiny")
    accepted(queue)
    assert Path(tmp_path / "gradebook.db").is_file()
    assert Queue(gradebook.open_gradebook(url), "tiny").waiting()[QUEUED] == 1


def test_a_grading_stopped_by_a_problem_of_graders_goes_back_to_the_queue(queue: Queue) -> None:
    attempt = accepted(queue)
    me, other = Me(), Me()
    claimed = queue.claim(me.id)
    assert claimed is not None
    assert not queue.release(claimed, other.id)  # only the holder gives it back
    assert queue.release(claimed, me.id)
    assert status(queue, attempt) == QUEUED


def test_a_grading_that_could_not_start_costs_no_try(queue: Queue) -> None:
    # The cluster was away: released uncounted, however often, it is never failed for it.
    attempt, me = accepted(queue), Me()
    for _ in range(MAX_TRIES + 1):
        claimed = queue.claim(me.id)
        assert claimed is not None and claimed.id == attempt
        assert queue.release(claimed, me.id, counted=False)
    assert status(queue, attempt) == QUEUED
    # A grading that stopped under way counts: MAX_TRIES of them, and it fails.
    for _ in range(MAX_TRIES):
        claimed = queue.claim(me.id)
        assert claimed is not None
        assert queue.release(claimed, me.id)
    assert queue.claim(me.id) is None
    assert status(queue, attempt) == FAILED
