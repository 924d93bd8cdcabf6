"""Nothing accepted is lost, and nothing is graded twice: `graders serve` killed with
``kill -9`` (queued, and while grading), stopped with SIGTERM, and two servers sharing one
PostgreSQL gradebook (``FOR UPDATE SKIP LOCKED``). Real processes, real databases.

"Exactly once" is read in two places: every attempt ends ``graded`` in the gradebook with
the learner's grade of record beside it, and the servers' logs, which write one line per
attempt after its grade is saved, name each attempt once across every run.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from service_helpers import (
    ServedCourse,
    ServerProcess,
    all_graded,
    bearer,
    graded_once,
    hand_in,
    mint,
    repository_course,
    saved_lines,
    statuses,
)

pytestmark = [pytest.mark.server]  # graders serve, killed and started again

pytest.importorskip("uvicorn", reason="needs graders' serve extra")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> ServedCourse:
    return repository_course(tmp_path_factory.mktemp("restarts"))


@pytest.fixture
def sqlite_url(course: ServedCourse, tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'gradebook.db'}"


def assert_exactly_once(url: str, sent: dict[str, int], *servers: ServerProcess) -> None:
    students = graded_once(url, sent, *servers)
    assert all(s.score == s.max_score > 0 for s in students.values())


def test_kill_9_with_30_queued_then_a_restart_grades_all_30_exactly_once(
    course: ServedCourse, sqlite_url: str
) -> None:
    tokens = mint(course.root, *[f"q{i:02d}" for i in range(30)], db_url=sqlite_url)
    # A server that only takes uploads (--workers 0): all 30 are queued when it dies.
    first = ServerProcess(course.root, sqlite_url, workers=0)
    with first:
        sent = hand_in(first, tokens, course)
        first.kill()
    assert first.returncode == -9
    assert statuses(sqlite_url) == Counter({"queued": 30})  # stored before each 202
    with ServerProcess(course.root, sqlite_url, workers=2) as second:
        all_graded(second, tokens, sent)
    assert second.returncode == 0, second.log()
    assert_exactly_once(sqlite_url, sent, first, second)


def test_kill_9_while_grading_then_a_restart_grades_what_was_left_exactly_once(
    course: ServedCourse, sqlite_url: str
) -> None:
    tokens = mint(course.root, *[f"k{i:02d}" for i in range(30)], db_url=sqlite_url)
    first = ServerProcess(course.root, sqlite_url, workers=1)
    with first:
        sent = hand_in(first, tokens, course)
        deadline = time.monotonic() + 300
        while not saved_lines(first) and time.monotonic() < deadline:
            time.sleep(0.05)
        first.kill()  # one saved, one (most likely) half graded, the rest queued
    at_kill = statuses(sqlite_url)
    assert at_kill["graded"] >= 1 and at_kill["graded"] < 30, at_kill
    with ServerProcess(course.root, sqlite_url, workers=2) as second:
        all_graded(second, tokens, sent)
    assert_exactly_once(sqlite_url, sent, first, second)
    if at_kill["grading"]:  # the one it was grading went back to the queue at the restart
        assert "queued again 1 attempts a stopped server was grading" in second.log()


def test_sigterm_stops_cleanly_and_a_restart_grades_the_rest(
    course: ServedCourse, sqlite_url: str
) -> None:
    tokens = mint(course.root, *[f"t{i:02d}" for i in range(12)], db_url=sqlite_url)
    first = ServerProcess(course.root, sqlite_url, workers=1)
    with first:
        sent = hand_in(first, tokens, course)
        assert first.stop() == 0, first.log()
    assert statuses(sqlite_url)["grading"] == 0  # finished, or queued again: none held
    with ServerProcess(course.root, sqlite_url, workers=2) as second:
        all_graded(second, tokens, sent)
    assert second.returncode == 0
    assert_exactly_once(sqlite_url, sent, first, second)


@pytest.fixture
def postgresql_url(postgres: object) -> Iterator[str]:
    yield postgres.new_database("serve")  # type: ignore[attr-defined]


def test_two_servers_share_one_postgresql_queue(course: ServedCourse, postgresql_url: str) -> None:
    tokens = mint(course.root, *[f"p{i:02d}" for i in range(24)], db_url=postgresql_url)
    with (
        ServerProcess(course.root, postgresql_url, workers=1) as one,
        ServerProcess(course.root, postgresql_url, workers=1) as two,
    ):
        halves = sorted(tokens)[::2], sorted(tokens)[1::2]
        with ThreadPoolExecutor(2) as pool:
            parts = pool.map(
                lambda p: hand_in(p[0], {n: tokens[n] for n in p[1]}, course),
                [(one, halves[0]), (two, halves[1])],
            )
            sent = {name: i for part in parts for name, i in part.items()}
        all_graded(one, tokens, sent)  # either server answers for any attempt
        with httpx.Client(base_url=two.url) as client:
            prof = mint(course.root, "prof", db_url=postgresql_url, instructor=True)["prof"]
            grades = client.get("/api/assignments/ps1/grades", headers=bearer(prof)).json()
            assert sorted(g["student"] for g in grades) == sorted(tokens)
    assert (one.returncode, two.returncode) == (0, 0)
    assert_exactly_once(postgresql_url, sent, one, two)
