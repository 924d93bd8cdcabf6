"""`graders serve --cluster`: the service's grader sends each claimed attempt to a Dask
cluster's workers and saves what comes back as it saves its own gradings. Real processes:
uvicorn on a free loopback port, ``local:2`` (a LocalCluster of the server's own) or a
``dask scheduler`` with ``dask worker`` processes, real SQLite and PostgreSQL.

What is read: every attempt ends ``graded`` with the learner's grade of record, and the
servers' logs never name an attempt saved twice (``service_helpers.graded_once``) — through a
burst, a worker killed mid-job, ``kill -9`` of the server, a stop with jobs out on the
workers, and two servers sharing a PostgreSQL gradebook and a cluster.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from dask_servers import DaskServers
from pg_server import PostgresServer
from service_helpers import (
    ServedCourse,
    ServerProcess,
    all_graded,
    bearer,
    graded,
    graded_once,
    graders,
    hand_in,
    mint,
    repository_course,
    saved_lines,
    statuses,
)
from sqlalchemy import create_engine, text
from what_starts import starts

pytestmark = [pytest.mark.server, pytest.mark.cluster]  # graders serve, on a cluster

pytest.importorskip("uvicorn", reason="needs graders' serve extra")
distributed = pytest.importorskip("distributed")

LOCAL = ("--cluster", "local:2")
SCHEDULER = re.compile(
    r"grading on the Dask cluster \S+ \(scheduler (tcp://[\d.:]+), 2 worker threads\), "
    r"isolation (\w+)"
)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> ServedCourse:
    return repository_course(tmp_path_factory.mktemp("cluster"))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'gradebook.db'}"


def blank(course: ServedCourse) -> bytes:
    """ps1 as released: nothing answered (0 points, graded)."""
    return json.dumps(course.released).encode()


def column(url: str, query: str) -> Counter[object]:
    """How many rows of ``query`` (one column) have each value."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return Counter(value for (value,) in conn.execute(text(query)))
    finally:
        engine.dispose()


def test_a_burst_through_a_local_cluster_is_all_graded_right(
    course: ServedCourse, sqlite_url: str
) -> None:
    names = [f"b{i:02d}" for i in range(40)]
    tokens = mint(course.root, *names, db_url=sqlite_url)
    blanks = set(names[::4])
    notebooks = {name: blank(course) if name in blanks else course.notebook() for name in names}
    with ServerProcess(course.root, sqlite_url, workers=None, extra=LOCAL) as server:
        ready = SCHEDULER.search(server.log())  # the workers' sandboxes are warm
        assert ready, server.log()
        sent = hand_in(server, tokens, course, notebooks)
        all_graded(server, tokens, sent)
        with httpx.Client(base_url=server.url) as client:
            ada = graded(client, tokens["b01"], sent["b01"])
            assert ada["score"] == ada["max_score"] > 0 and ada["late_factor"] == 1.0
            assert ada["questions"] and {q["status"] for q in ada["questions"]} == {"correct"}
    assert server.returncode == 0, server.log()
    students = graded_once(sqlite_url, sent, server)
    for name, result in students.items():
        assert result.score == (0 if name in blanks else result.max_score), name
    # Each grade with code in it names the sandbox level it ran under: the workers'.
    levels = column(sqlite_url, "select isolation from submissions where score > 0")
    assert levels == Counter({ready.group(2): len(names) - len(blanks)}), levels


def test_a_worker_killed_mid_job_is_graded_again_by_dask_and_saved_once(
    course: ServedCourse, sqlite_url: str, tmp_path: Path
) -> None:
    import cloudpickle
    import cluster_faults

    names = [f"w{i:02d}" for i in range(10)]
    killers = ("w01", "w06")
    tokens = mint(course.root, *names, db_url=sqlite_url)
    marks = tmp_path / "killed"
    marks.mkdir()
    with ServerProcess(course.root, sqlite_url, workers=None, extra=LOCAL) as server:
        found = SCHEDULER.search(server.log())
        assert found, server.log()
        # The server's workers cannot import the tests' modules: the fault goes by value.
        cloudpickle.register_pickle_by_value(cluster_faults)
        with distributed.Client(found.group(1), timeout=60) as client:
            fault = cluster_faults.KillsItsWorkerOnce(str(marks), *killers)
            client.register_plugin(fault, name="kills-its-worker-once")
            sent = hand_in(server, tokens, course)
            all_graded(server, tokens, sent)
    assert server.returncode == 0, server.log()
    assert sorted(p.name for p in marks.iterdir()) == sorted(killers)  # each killed a worker
    students = graded_once(sqlite_url, sent, server)
    assert all(s.score == s.max_score > 0 for s in students.values())
    # Claimed once each: Dask sent the killed jobs again, the queue never did.
    assert column(sqlite_url, "select tries from attempts") == Counter({1: len(names)})


def test_kill_9_of_a_cluster_server_then_a_restart_grades_each_exactly_once(
    course: ServedCourse, sqlite_url: str
) -> None:
    import psutil

    tokens = mint(course.root, *[f"k{i:02d}" for i in range(30)], db_url=sqlite_url)
    first = ServerProcess(course.root, sqlite_url, workers=None, extra=LOCAL)
    with first:
        sent = hand_in(first, tokens, course)
        deadline = time.monotonic() + 300
        while not saved_lines(first) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert first.proc is not None
        cluster = psutil.Process(first.proc.pid).children(recursive=True)
        first.kill()  # a few saved, some in the workers' hands, the rest queued
    at_kill = statuses(sqlite_url)
    assert 1 <= at_kill["graded"] < 30, at_kill
    # The local cluster's workers (and their sandboxes) die with the server.
    _, alive = psutil.wait_procs(cluster, timeout=60)
    assert not alive, alive
    with ServerProcess(course.root, sqlite_url, workers=None, extra=LOCAL) as second:
        all_graded(second, tokens, sent)
    assert second.returncode == 0, second.log()
    students = graded_once(sqlite_url, sent, first, second)
    assert all(s.score == s.max_score > 0 for s in students.values())


def test_sigterm_with_jobs_out_on_the_cluster_queues_them_again_for_the_restart(
    course: ServedCourse, sqlite_url: str
) -> None:
    tokens = mint(course.root, *[f"t{i:02d}" for i in range(20)], db_url=sqlite_url)
    # No grace: the jobs out on the workers at the stop are cancelled, not waited for.
    first = ServerProcess(course.root, sqlite_url, workers=None, extra=(*LOCAL, "--grace", "0"))
    with first:
        sent = hand_in(first, tokens, course)
        assert first.stop() == 0, first.log()
    assert statuses(sqlite_url)["grading"] == 0  # saved, or queued again: none held
    with ServerProcess(course.root, sqlite_url, workers=None, extra=LOCAL) as second:
        all_graded(second, tokens, sent)
    assert second.returncode == 0, second.log()
    students = graded_once(sqlite_url, sent, first, second)
    assert all(s.score == s.max_score > 0 for s in students.values())


@pytest.fixture
@starts("cluster")
def dask(tmp_path: Path) -> Iterator[DaskServers]:
    servers = DaskServers(tmp_path / "dask")
    try:
        yield servers
    finally:
        servers.stop()


def test_two_servers_on_one_postgresql_gradebook_and_one_cluster_grade_each_once(
    course: ServedCourse, postgres: PostgresServer, dask: DaskServers
) -> None:
    url = postgres.new_database("serve_cluster")
    tokens = mint(course.root, *[f"p{i:02d}" for i in range(24)], db_url=url)
    extra = ("--cluster", dask.address)
    with (
        ServerProcess(course.root, url, workers=None, extra=extra) as one,
        ServerProcess(course.root, url, workers=None, extra=extra) as two,
    ):
        halves = sorted(tokens)[::2], sorted(tokens)[1::2]
        sent = hand_in(one, {n: tokens[n] for n in halves[0]}, course)
        sent |= hand_in(two, {n: tokens[n] for n in halves[1]}, course)
        all_graded(two, tokens, sent)  # either server answers for any attempt
        prof = mint(course.root, "prof", db_url=url, instructor=True)["prof"]
        with httpx.Client(base_url=one.url) as client:
            grades = client.get("/api/assignments/ps1/grades", headers=bearer(prof)).json()
        assert sorted(g["student"] for g in grades) == sorted(tokens)
    assert (one.returncode, two.returncode) == (0, 0), one.log() + two.log()
    students = graded_once(url, sent, one, two)
    assert all(s.score == s.max_score > 0 for s in students.values())
    # Both graded: each took attempts from the shared queue, none took one twice.
    assert saved_lines(one) and saved_lines(two)


def test_a_cluster_with_no_workers_to_spare_is_a_usage_error(course: ServedCourse) -> None:
    done = graders("serve", "--cluster", "local:2", "--workers", "0", cwd=course.root)
    assert done.returncode == 2
    assert "--workers 0 grades nothing: it cannot go with --cluster" in done.stderr
    done = graders("serve", "--cluster", "local:none", cwd=course.root)
    assert done.returncode == 2 and "write local:N with N from 1 to 64" in done.stderr
