"""``graders autograde --cluster tcp://...`` against real servers: a ``dask scheduler``, a
``dask worker`` process running two workers, and a PostgreSQL gradebook. The scheduler is
killed mid-run: the command ends with exit 1 and a gradebook that a rerun completes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dask_servers import DaskServers
from pg_server import PostgresServer
from small_course import REPO, hand_in, notebook, small_course
from sqlalchemy import create_engine, text
from what_starts import starts

pytest.importorskip("distributed")

CLASS_SIZE = 150  # a few seconds of grading on two workers: the window for the scheduler's end
PREDICTIONS = {"clone-basics/shares": "False", "clone-basics/flag": "True"}


@pytest.fixture
@starts("cluster")
def servers(tmp_path: Path) -> Iterator[list[DaskServers]]:
    started: list[DaskServers] = []
    try:
        yield started
    finally:
        for one in started:
            one.stop()


def rows(url: str) -> dict[str, tuple[int, int]]:
    """Student -> (row id, run id) of every saved grade."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            found = conn.execute(text("select student, id, run_id from submissions"))
            return {student: (row_id, run) for student, row_id, run in found}
    except Exception:  # noqa: BLE001 - the tables do not exist before the run creates them
        return {}
    finally:
        engine.dispose()


def command(course: Path, subs: Path, url: str, address: str, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "graders", "autograde", "ps2", str(subs), "--course", str(course),
        "--db", url, "--out", str(out), "--cluster", address,
    ]  # fmt: skip


def test_the_scheduler_going_away_ends_the_run_with_exit_1_and_a_rerun_completes(
    tmp_path: Path, postgres: PostgresServer, servers: list[DaskServers]
) -> None:
    course = small_course(tmp_path / "course")
    subs = tmp_path / "subs"
    solution = (REPO / "solutions" / "independent-copy.py").read_text()
    names = {f"s{i:03d}" for i in range(CLASS_SIZE)}
    for name in names:
        hand_in(subs, name, notebook(PREDICTIONS, {"independent-copy": solution}), name="ps2.ipynb")
    url = postgres.new_database()
    first = DaskServers(tmp_path / "first")
    servers.append(first)
    proc = subprocess.Popen(
        command(course, subs, url, first.address, tmp_path / "out"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not rows(url) and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before its scheduler could be stopped"
        first.kill_scheduler()
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    assert "lost the Dask scheduler at tcp://127.0.0.1:" in err
    assert "every grade finished so far is saved; run the same command again" in err
    before = rows(url)
    assert 0 < len(before) < CLASS_SIZE
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert sorted(s["student"] for s in results["students"]) == sorted(before)

    second = DaskServers(tmp_path / "second")
    servers.append(second)
    rerun = subprocess.run(
        command(course, subs, url, second.address, tmp_path / "out"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert rerun.returncode == 0, rerun.stderr
    assert f"graded {CLASS_SIZE - len(before)}, skipped {len(before)} unchanged" in rerun.stdout
    after = rows(url)
    assert set(after) == names
    assert {s: after[s] for s in before} == before  # saved before the loss: kept, not redone
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert {s["score"] for s in results["students"]} == {6.0}


@pytest.mark.cluster  # `graders autograde --cluster local:2` starts it, as a child
def test_ctrl_c_stops_a_local_cluster_run_cleanly_and_a_rerun_goes_on(tmp_path: Path) -> None:
    course = small_course(tmp_path / "course")
    subs = tmp_path / "subs"
    solution = (REPO / "solutions" / "independent-copy.py").read_text()
    for i in range(CLASS_SIZE):
        hand_in(
            subs,
            f"s{i:03d}",
            notebook(PREDICTIONS, {"independent-copy": solution}),
            name="ps2.ipynb",
        )
    url = f"sqlite:///{tmp_path / 'g.db'}"
    args = command(course, subs, url, "local:2", tmp_path / "out")
    # Its own process group, as a terminal's foreground job: Ctrl-C reaches every process.
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    try:
        while not rows(url) and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be stopped"
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "stopping: saving the grades in hand" in err and "run the same command again" in err
    before = rows(url)
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert sorted(s["student"] for s in results["students"]) == sorted(before)
    rerun = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert f"graded {CLASS_SIZE - len(before)}, skipped {len(before)} unchanged" in rerun.stdout
