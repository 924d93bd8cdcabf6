"""Grading on a Dask cluster into PostgreSQL: the same grades as one machine into SQLite,
faults survived (a worker killed mid-batch, a notebook that kills every worker, a worker
that would grade differently), with real worker processes and the real sandbox.

``test_cluster_cli.py`` runs the command against a ``dask scheduler`` and ``dask worker``
processes, and stops the scheduler mid-run.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster_faults import KillsItsWorker, OtherTorch
from pg_server import PostgresServer
from small_course import REPO, hand_in, notebook, small_course
from stored_text import english
from what_starts import starts

from graders.batch.autograde import Summary, autograde
from graders.batch.cluster import ClusterError, ClusterExecutor
from graders.gradebook import store as gradebook
from graders.results import StudentResult
from graders.workspace import open_workspace

distributed = pytest.importorskip("distributed")

RIGHT = {"clone-basics/shares": "False", "clone-basics/flag": "True"}
WRONG = {"clone-basics/shares": "True", "clone-basics/flag": "False"}
SOLUTION = (REPO / "solutions" / "independent-copy.py").read_text()
WRONG_CODE = "import torch\n\ndef independent_copy(t):\n    return t\n"
NOT_PYTHON = "def independent_copy(t)\n    return t.clone(\n"
LOOPS = "def independent_copy(t):\n    while True:\n        pass\n"
CLASS_SIZE = 40


def write_class(subs: Path) -> set[str]:
    """40 students of ps2: right and wrong predictions and code, no code, code that does not
    parse, an endless loop, a notebook cut short and a folder without a notebook."""
    codes = [SOLUTION, WRONG_CODE, None, NOT_PYTHON, SOLUTION]
    names = set()
    for i in range(CLASS_SIZE - 3):
        code = codes[i % len(codes)]
        answers = WRONG if i % 4 == 1 else RIGHT
        text = notebook(answers, {"independent-copy": code} if code else None)
        hand_in(subs, f"s{i:02d}", text, name="ps2.ipynb")
        names.add(f"s{i:02d}")
    hand_in(subs, "eve", notebook(RIGHT, {"independent-copy": LOOPS}), name="ps2.ipynb")
    hand_in(subs, "bob", notebook(RIGHT)[:-40], name="ps2.ipynb")  # not JSON any more
    (subs / "nobody").mkdir()
    return names | {"eve", "bob", "nobody"}


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_course(tmp_path_factory.mktemp("cluster") / "course")


@pytest.fixture(scope="module")
def subs(course: Path) -> Path:
    folder = course.parent / "subs"
    write_class(folder)
    return folder


@pytest.fixture(scope="module")
def on_one_machine(course: Path, subs: Path) -> dict[str, Any]:
    """The class graded here, two threads, into SQLite: what the cluster must match."""
    with open_workspace(course, workers=2) as session:
        summary = autograde(
            session,
            "ps2",
            subs,
            db_url=f"sqlite:///{course.parent / 'local.db'}",
            out_dir=course.parent / "local",
            workers=2,
        )
    assert summary.graded == CLASS_SIZE
    return comparable(summary)


def comparable(summary: Summary) -> dict[str, Any]:
    """The results document of a run, without the times at which it was graded, and
    without which of a timed-out job's two limits came first: its wall time or its CPU
    time (an endless loop meets both at once; a loaded machine, where the wall clock is
    stretched by the time spent waiting for a CPU, decides which is seen first)."""
    doc = json.loads((summary.out_dir / "results.json").read_text())
    doc.pop("graded_at")
    for student in doc["students"]:
        student.pop("graded_at")
        for question in student["questions"]:
            if question["status"] == "timeout":
                for said in ("feedback", "explain", "said"):
                    question.pop(said, None)
    return doc


# The two sentences of a timed-out job: which limit came first is the machine's load (see
# ``comparable``), not the grading; both read as one in the outputs compared.
TIME_LIMITS = re.compile(
    rb"the code (?:did not finish within the time limit of [0-9.]+ s"
    rb"|used more than its [0-9.]+ s of CPU time and was stopped)"
)


def exported(out_dir: Path) -> dict[str, bytes]:
    """Every output but the results document (which holds grading times), byte for byte
    but for which time limit a timed-out job met first."""
    return {
        p.relative_to(out_dir).as_posix(): TIME_LIMITS.sub(
            b"the code met a time limit", p.read_bytes()
        )
        for p in sorted(out_dir.rglob("*"))
        if p.is_file() and p.name != "results.json"
    }


class Recorder:
    """A reporter that remembers every result it is told about, and can act once on the first
    that a worker graded (``nobody``, who has no notebook, is graded where the batch runs)."""

    def __init__(self, on_first: Any = None) -> None:
        self.results: list[StudentResult] = []
        self.on_first = on_first

    def start(self, total: int, skipped: int) -> None:
        self.total = total

    def done(self, result: StudentResult) -> None:
        self.results.append(result)
        if result.student != "nobody" and self.on_first is not None:
            self.on_first, act = None, self.on_first
            act()


@pytest.fixture
@starts("cluster")
def local_cluster() -> Iterator[Any]:
    """Two worker processes of one thread each, with nannies that restart a killed one."""
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            scheduler_kwargs={"allowed_failures": 1},  # a batch is given up after 2 deaths
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.wait_for_workers(2, timeout=120)
        yield client


@pytest.mark.cluster
def test_a_class_graded_on_a_cluster_into_postgresql_gets_the_same_document(
    course: Path, subs: Path, on_one_machine: dict[str, Any], postgres: PostgresServer
) -> None:
    url = postgres.new_database()
    recorder = Recorder()
    with open_workspace(course) as session:
        summary = autograde(
            session,
            "ps2",
            subs,
            db_url=url,
            out_dir=course.parent / "cluster",
            executor=ClusterExecutor("local:2"),
            reporter=recorder,
        )
    assert (summary.graded, summary.interrupted, summary.lost) == (CLASS_SIZE, False, None)
    assert comparable(summary) == on_one_machine
    exports = exported(course.parent / "local")  # grades.csv, junit.xml, gradescope/*.json
    assert "grades.csv" in exports
    on_cluster = exported(summary.out_dir)
    assert sorted(on_cluster) == sorted(exports)
    for name, text in exports.items():  # a file at a time, as text: a difference is shown
        assert on_cluster[name].decode() == text.decode(), name
    assert on_one_machine["isolation"] is not None  # learner code ran, on the workers
    assert sorted(r.student for r in recorder.results) == sorted(
        s["student"] for s in on_one_machine["students"]
    )
    by = {s["student"]: s for s in on_one_machine["students"]}
    assert by["s00"]["score"] == by["s00"]["max_score"] == 6.0
    assert by["bob"]["status"] == "ungradable" and "not a notebook" in english(by["bob"]["error"])
    assert {q["status"] for q in by["eve"]["questions"] if q["id"].startswith("independent")} == {
        "timeout"
    }
    with open_workspace(course) as session:  # run again: nothing has changed
        again = autograde(session, "ps2", subs, db_url=url, executor=ClusterExecutor("local:2"))
    assert (again.graded, again.skipped) == (0, CLASS_SIZE)


def test_a_worker_killed_mid_batch_costs_nothing_and_no_one_is_saved_twice(
    course: Path,
    subs: Path,
    on_one_machine: dict[str, Any],
    postgres: PostgresServer,
    local_cluster: Any,
) -> None:
    killed: list[str] = []

    def kill_a_busy_worker() -> None:
        for _ in range(100):  # a worker with a batch in hand, mid-way through it
            busy = [w for w, keys in local_cluster.processing().items() if keys]
            if busy:
                pids = local_cluster.run(os.getpid)
                killed.append(busy[0])
                os.kill(pids[busy[0]], signal.SIGKILL)
                return
            time.sleep(0.05)

    url = postgres.new_database()
    recorder = Recorder(on_first=kill_a_busy_worker)
    executor = ClusterExecutor("local:2", client=local_cluster, batch_size=3)
    with open_workspace(course) as session:
        summary = autograde(
            session,
            "ps2",
            subs,
            db_url=url,
            out_dir=course.parent / "killed",
            executor=executor,
            reporter=recorder,
        )
    assert killed, "no worker had a batch in hand to be killed"
    assert summary.graded == CLASS_SIZE
    assert len(recorder.results) == len({r.student for r in recorder.results}) == CLASS_SIZE
    assert comparable(summary) == on_one_machine
    keys = gradebook.grading_keys(gradebook.open_gradebook(url), "tiny", "ps2")
    assert len(keys) == CLASS_SIZE and None not in keys.values()


@pytest.mark.parametrize("killers", [("s2",), ("s1", "s4")])
def test_a_notebook_that_kills_every_worker_is_ungradable_and_retried_next_run(
    course: Path,
    tmp_path: Path,
    postgres: PostgresServer,
    local_cluster: Any,
    killers: tuple[str, ...],
) -> None:
    folder = tmp_path / "subs"
    for i in range(6):
        hand_in(folder, f"s{i}", notebook(RIGHT), name="ps2.ipynb")
    local_cluster.register_plugin(KillsItsWorker(*killers), name="kills-its-worker")
    url = postgres.new_database()
    executor = ClusterExecutor("local:2", client=local_cluster, batch_size=3)
    with open_workspace(course) as session:
        summary = autograde(
            session, "ps2", folder, db_url=url, out_dir=tmp_path / "out", executor=executor
        )
    # Its batch was given up (and any other that shared a worker it killed), then each of
    # their notebooks was sent alone, with nothing beside it: only a killer is blamed.
    assert summary.graded == 6 and executor.stats.killed >= 1
    reason = "grading this notebook killed the Dask worker each time it was sent"
    assert summary.ungradable == tuple((s, reason) for s in killers)
    keys = gradebook.grading_keys(gradebook.open_gradebook(url), "tiny", "ps2")
    assert all(keys[s] is None for s in killers)  # the grader failed: graded again next run
    assert all(keys[f"s{i}"] for i in range(6) if f"s{i}" not in killers)


@pytest.mark.cluster
def test_a_cluster_left_without_workers_stops_the_batch_with_a_reason(
    course: Path, tmp_path: Path
) -> None:
    # Every worker gone for good (nannies that gave up, machines switched off): the batch
    # ends saying so, with what it graded saved, instead of waiting for ever.
    hand_in(tmp_path / "subs", "ada", notebook(RIGHT), name="ps2.ipynb")
    with (
        distributed.LocalCluster(
            n_workers=0, host="127.0.0.1", dashboard_address="127.0.0.1:0"
        ) as cluster,
        distributed.Client(cluster) as client,
        open_workspace(course) as session,
    ):
        executor = ClusterExecutor("local:2", client=client, patience_s=1.0)
        summary = autograde(
            session,
            "ps2",
            tmp_path / "subs",
            db_url=f"sqlite:///{tmp_path / 'g.db'}",
            out_dir=tmp_path / "out",
            executor=executor,
        )
    assert summary.graded == 0
    assert summary.lost == "the Dask cluster at local:2 has had no worker for 1 s"


def test_a_worker_with_another_torch_stops_the_run_before_it_grades(
    course: Path, tmp_path: Path, local_cluster: Any
) -> None:
    hand_in(tmp_path / "subs", "ada", notebook(RIGHT), name="ps2.ipynb")
    local_cluster.register_plugin(OtherTorch(), name="other-torch")
    executor = ClusterExecutor("local:2", client=local_cluster)
    with open_workspace(course) as session, pytest.raises(ClusterError) as raised:
        autograde(
            session,
            "ps2",
            tmp_path / "subs",
            db_url=f"sqlite:///{tmp_path / 'g.db'}",
            out_dir=tmp_path / "out",
            executor=executor,
        )
    assert "would grade differently from the batch (here: torch 0.0.0+elsewhere" in str(
        raised.value
    )
    assert json.loads((tmp_path / "out" / "results.json").read_text())["students"] == []


def test_a_local_cluster_needs_a_worker_count() -> None:
    from graders.errors import UsageError

    with pytest.raises(UsageError, match="write local:N"):
        ClusterExecutor("local:zero")


def test_each_learner_is_graded_in_their_own_variant_on_the_cluster(
    tmp_path: Path, local_cluster: Any
) -> None:
    from variant_course import open_variant_course, two_learners

    from graders.grading.pipeline import answer_key, for_learner, prepare_assignment

    with open_variant_course(tmp_path / "course") as ws:
        ada, bob = two_learners(ws.loaded)
        prep = prepare_assignment(ws.loaded, "ps1", ws.ctx)
        keys = {s: answer_key(for_learner(prep, s)) for s in (ada, bob)}
        folder = tmp_path / "subs"
        for student, other in ((ada, bob), (bob, ada)):
            for name, key in ((student, keys[student]), (f"{student}-copy", keys[other])):
                hand_in(folder, name, notebook({k: json.dumps(v) for k, v in key.items()}))
        runs = {}
        for where, executor in (
            ("here", None),
            ("cluster", ClusterExecutor("local:2", client=local_cluster)),
        ):
            runs[where] = comparable(
                autograde(
                    ws,
                    "ps1",
                    folder,
                    db_url=f"sqlite:///{tmp_path / where}.db",
                    out_dir=tmp_path / where,
                    executor=executor,
                )
            )
    assert runs["cluster"] == runs["here"]
    by = {s["student"]: s for s in runs["cluster"]["students"]}
    assert by[ada]["score"] == by[bob]["score"] == by[ada]["max_score"] == 5  # their own variant
