"""The gradebook on SQLite and on a real PostgreSQL server: several processes writing at once
into a new database, a batch killed with ``kill -9`` and resumed, a server that is not there.

``test_gradebook.py`` runs each of its tests on both as well (its ``engine`` fixture).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pg_server import PostgresServer
from small_course import a_class_that_pauses, small_course
from sqlalchemy import create_engine, text

from graders.errors import UsageError
from graders.gradebook import store as gradebook
from graders.results import QuestionResult, Status, StudentResult

WRITERS = 4
STUDENTS = 25
ROUNDS = 2


def write_every_student(url: str, writer: int, start: Any) -> None:
    """One writer process: wait for the others, open the gradebook, save everyone, twice."""
    start.wait(timeout=120)
    engine = gradebook.open_gradebook(url)  # the first to come creates the tables
    for i in list(range(STUDENTS)) * ROUNDS:
        result = StudentResult(
            f"s{i:02d}", (QuestionResult("ex/q", Status.CORRECT, 1.0, 1.0, "1", "1", ""),)
        )
        gradebook.record(
            engine,
            "course",
            "ps1",
            gradebook.Graded(
                result,
                key=f"written-by-{writer}",
                run_id=None,
                source=None,
                submitted_at=None,
                torch_version="2.13.0",
                isolation=None,
            ),
        )


def test_writers_in_several_processes_share_a_new_gradebook(gradebook_url: str) -> None:
    # Every writer saves every student, all starting at once on a database without tables.
    spawn = multiprocessing.get_context("spawn")
    start = spawn.Barrier(WRITERS)
    procs = [
        spawn.Process(target=write_every_student, args=(gradebook_url, n, start))
        for n in range(WRITERS)
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=300)
    assert [proc.exitcode for proc in procs] == [0] * WRITERS
    keys = gradebook.grading_keys(gradebook.open_gradebook(gradebook_url), "course", "ps1")
    assert sorted(keys) == [f"s{i:02d}" for i in range(STUDENTS)]  # one row each, none lost
    assert set(keys.values()) <= {f"written-by-{n}" for n in range(WRITERS)}


def saved(url: str) -> dict[str, tuple[int, int]]:
    """Student -> (row id, run id); {} before the batch has created its tables."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            found = conn.execute(text("select student, id, run_id from submissions"))
            return {student: (row_id, run) for student, row_id, run in found}
    except Exception:  # noqa: BLE001 - no table yet
        return {}
    finally:
        engine.dispose()


def test_a_batch_killed_mid_run_resumes_on_postgresql(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    course = small_course(tmp_path / "course")
    names = a_class_that_pauses(tmp_path / "subs", 40)
    url = postgres.new_database()
    args = [
        sys.executable, "-m", "graders", "autograde", "ps2", str(tmp_path / "subs"),
        "--course", str(course), "--db", url, "--out", str(tmp_path / "out"), "--workers", "2",
    ]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    try:
        while len(saved(url)) < 3 and proc.poll() is None:
            time.sleep(0.01)
        assert proc.poll() is None, "the batch ended before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)  # the grader and its sandbox
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    before = saved(url)
    assert 0 < len(before) < len(names)
    resumed = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert f"graded {len(names) - len(before)}, skipped {len(before)} unchanged" in resumed.stdout
    after = saved(url)
    assert set(after) == names and {s: after[s] for s in before} == before


def test_a_server_that_is_not_there_is_a_message(tmp_path: Path) -> None:
    url = f"postgresql+psycopg://nobody@/gradebook?host={tmp_path}&port=1"
    with pytest.raises(UsageError, match="cannot open the gradebook postgresql"):
        gradebook.open_gradebook(url)


def test_postgresql_urls_without_a_driver_use_psycopg(postgres: PostgresServer) -> None:
    url = postgres.new_database().replace("postgresql+psycopg://", "postgresql://")
    assert gradebook.open_gradebook(url).dialect.driver == "psycopg"
