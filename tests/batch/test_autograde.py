"""The batch: a class of notebooks -> gradebook -> outputs; skipping, re-grading, bad submissions.

These tests run the library with the in-process runner (trusted truths only, fast);
``tests/cli/test_autograde_cli.py`` runs the command with the real sandbox.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from small_course import (
    ON_TIME,
    RIGHT,
    WRONG,
    hand_in,
    notebook,
    open_small_course,
    small_course,
    students,
    text,
)
from stored_text import english

from graders.batch.autograde import Summary, autograde
from graders.course.load import load_course
from graders.gradebook import store as gradebook
from graders.kinds.base import Context
from graders.results import StudentResult
from graders.workspace import Workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    with open_small_course(tmp_path / "course") as ws:
        yield ws


class Recorder:
    """A reporter that remembers what it was told."""

    def __init__(self) -> None:
        self.started: tuple[int, int] | None = None
        self.results: list[StudentResult] = []

    def start(self, total: int, skipped: int) -> None:
        self.started = (total, skipped)

    def done(self, result: StudentResult) -> None:
        self.results.append(result)


def run(ws: Workspace, folder: Path, **options) -> tuple[Summary, dict]:
    summary = autograde(ws, "ps1", folder, **options)
    return summary, json.loads((summary.out_dir / "results.json").read_text())


def test_a_class_is_graded_saved_and_exported(workspace: Workspace, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "ada", notebook(RIGHT))
    hand_in(subs, "bob", notebook(WRONG))
    recorder = Recorder()
    summary, doc = run(workspace, subs, workers=2, reporter=recorder)
    assert (summary.graded, summary.skipped, summary.all_graded) == (2, 0, True)
    assert recorder.started == (2, 0) and sorted(r.student for r in recorder.results) == [
        "ada",
        "bob",
    ]
    by = students(doc)
    assert (by["ada"]["score"], by["ada"]["max_score"]) == (6.0, 6.0)
    assert by["bob"]["score"] == 1.0  # only clone-basics/flag, worth 1 of clone-basics' 2
    shares = by["bob"]["questions"][0]
    assert (shares["status"], shares["misconception"], shares["section"]) == (
        "wrong",
        "clone-shares-memory",
        "§1a",
    )
    assert by["bob"]["questions"][2]["max_points"] == 4.0  # the assignment's points override
    out = workspace.loaded.root / "autograded" / "ps1"
    assert summary.out_dir == out
    assert {p.name for p in out.iterdir()} == {
        "results.json",
        "grades.csv",
        "junit.xml",
        "gradescope",
    }
    assert (workspace.loaded.root / "gradebook.db").is_file()


def test_a_second_run_grades_nothing_unless_forced(workspace: Workspace, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "ada", notebook(RIGHT))
    hand_in(subs, "bob", notebook(WRONG))
    first, doc1 = run(workspace, subs)
    again, doc2 = run(workspace, subs)
    assert (again.graded, again.skipped) == (0, 2)
    assert doc2["students"] == doc1["students"]
    forced, _ = run(workspace, subs, force=True)
    assert (forced.graded, forced.skipped) == (2, 0)


def test_only_a_changed_notebook_is_graded_again(workspace: Workspace, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "ada", notebook(RIGHT))
    hand_in(subs, "bob", notebook(WRONG))
    run(workspace, subs)
    hand_in(subs, "bob", notebook(RIGHT))
    recorder = Recorder()
    summary, doc = run(workspace, subs, reporter=recorder)
    assert (summary.graded, summary.skipped) == (1, 1)
    assert [r.student for r in recorder.results] == ["bob"]
    assert students(doc)["bob"]["score"] == 6.0


def test_a_fixed_exercise_grades_everyone_again(workspace: Workspace, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "ada", notebook(RIGHT))
    run(workspace, subs)
    root = workspace.loaded.root
    fixed = text("exercises/clone-basics.yml").replace("clone copies.", "clone() copies the data.")
    small_course(root, {"exercises/clone-basics.yml": fixed})
    loaded = load_course(root / "course.yml")
    fixed = Workspace(
        loaded, Context(loaded.course, root, workspace.ctx.runner, workspace.ctx.cache_dir)
    )
    summary, doc = run(fixed, subs)
    assert (summary.graded, summary.skipped) == (1, 0)
    assert "clone() copies the data." in english(students(doc)["ada"]["questions"][0]["feedback"])


def test_the_results_document_covers_the_whole_gradebook(
    workspace: Workspace, tmp_path: Path
) -> None:
    hand_in(tmp_path / "morning", "ada", notebook(RIGHT))
    hand_in(tmp_path / "evening", "bob", notebook(WRONG))
    run(workspace, tmp_path / "morning")
    summary, doc = run(workspace, tmp_path / "evening")
    assert summary.found == 1 and sorted(students(doc)) == ["ada", "bob"]


@pytest.mark.parametrize(
    ("when", "factor", "status"),
    [
        (datetime(2026, 10, 5, 23, 59, tzinfo=UTC), 1.0, "graded"),
        (datetime(2026, 10, 6, 0, 30, tzinfo=UTC), 0.75, "graded"),
        (datetime(2026, 10, 9, 0, 0, tzinfo=UTC), 0.0, "late-cutoff"),
    ],
    ids=["on-time", "one-day-late", "past-cutoff"],
)
def test_the_late_policy_uses_the_times_file(
    workspace: Workspace, tmp_path: Path, when: datetime, factor: float, status: str
) -> None:
    hand_in(tmp_path / "subs", "ada", notebook(RIGHT), when=ON_TIME)  # the mtime never counts
    times = tmp_path / "times.csv"
    times.write_text(f"student,submitted_at\nada,{when.isoformat()}\n")
    summary, doc = run(workspace, tmp_path / "subs", times=times)
    ada = students(doc)["ada"]
    assert (ada["status"], ada["late_factor"], ada["score"]) == (status, factor, 6.0 * factor)
    assert datetime.fromisoformat(ada["submitted_at"]) == when.replace(microsecond=0)
    assert summary.all_graded and summary.late == (factor < 1)


def test_nbgrader_timestamp_wins_over_the_file_time(workspace: Workspace, tmp_path: Path) -> None:
    course_root = tmp_path / "nbgrader-course"
    hand_in(
        course_root / "submitted" / "ada" / "ps1", "", notebook(RIGHT), name="clone-basics.ipynb"
    )
    (course_root / "submitted" / "ada" / "ps1" / "timestamp.txt").write_text(
        "2026-10-06 10:00:00.000000 UTC"
    )
    _, doc = run(workspace, course_root)
    assert students(doc)["ada"]["late_factor"] == 0.75


def test_a_changed_timestamp_is_graded_again(workspace: Workspace, tmp_path: Path) -> None:
    folder = tmp_path / "subs" / "ada" / "ps1"
    hand_in(tmp_path / "subs" / "ada", "ps1", notebook(RIGHT), name="work.ipynb")
    (folder / "timestamp.txt").write_text("2026-10-05 12:00:00 UTC")
    run(workspace, tmp_path / "subs")
    (folder / "timestamp.txt").write_text("2026-10-06 01:00:00 UTC")
    summary, doc = run(workspace, tmp_path / "subs")
    assert summary.graded == 1 and students(doc)["ada"]["late_factor"] == 0.75


def test_gradebook_url_and_out_dir_can_be_chosen(workspace: Workspace, tmp_path: Path) -> None:
    hand_in(tmp_path / "subs", "ada", notebook(RIGHT))
    url = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    summary, _ = run(workspace, tmp_path / "subs", db_url=url, out_dir=tmp_path / "out")
    assert summary.out_dir == tmp_path / "out" and (tmp_path / "out" / "grades.csv").is_file()
    assert [s.student for s in gradebook.results_document(url, "tiny", "ps1").students] == ["ada"]
    assert not (workspace.loaded.root / "gradebook.db").exists()


def test_a_reader_failure_is_internal_and_retried(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import graders.notebook.collect as collect

    hand_in(tmp_path / "subs", "ada", notebook(RIGHT))
    real = collect.read_submission
    monkeypatch.setattr(collect, "read_submission", lambda *a, **k: 1 / 0)
    summary, doc = run(workspace, tmp_path / "subs")
    assert summary.ungradable == (
        ("ada", "internal error while reading ada/ps1.ipynb: ZeroDivisionError: division by zero"),
    )
    assert students(doc)["ada"]["status"] == "internal"  # a status of its own, not the text
    monkeypatch.setattr(collect, "read_submission", real)
    summary, doc = run(workspace, tmp_path / "subs")
    assert summary.graded == 1 and students(doc)["ada"]["score"] == 6.0


def test_an_interrupted_batch_keeps_what_it_saved_and_resumes(
    workspace: Workspace, tmp_path: Path
) -> None:
    subs = tmp_path / "subs"
    for i in range(6):
        hand_in(subs, f"s{i}", notebook(RIGHT if i % 2 else WRONG))

    class CtrlC(Recorder):
        def done(self, result: StudentResult) -> None:
            super().done(result)
            if len(self.results) == 2:
                raise KeyboardInterrupt

    first = CtrlC()
    with pytest.raises(KeyboardInterrupt):
        autograde(workspace, "ps1", subs, reporter=first)
    doc = json.loads((workspace.loaded.root / "autograded" / "ps1" / "results.json").read_text())
    url = gradebook.default_url(workspace.loaded.root)
    saved = {s.student for s in gradebook.results_document(url, "tiny", "ps1").students}
    # Grades that finished together are saved together: everything reported is saved.
    assert {r.student for r in first.results} <= saved
    assert set(students(doc)) == saved  # the outputs match the gradebook, even when interrupted
    second = Recorder()
    summary, doc = run(workspace, subs, reporter=second)
    assert (summary.graded, summary.skipped) == (6 - len(saved), len(saved))
    assert saved.isdisjoint(r.student for r in second.results)
    assert len(doc["students"]) == 6


def test_a_stop_request_ends_the_batch_and_a_rerun_goes_on(
    workspace: Workspace, tmp_path: Path
) -> None:
    subs = tmp_path / "subs"
    for i in range(4):
        hand_in(subs, f"s{i}", notebook(RIGHT))
    stop = threading.Event()
    stop.set()  # what the Ctrl-C handler does; here before the first grade is in hand
    summary, doc = run(workspace, subs, stop=stop)
    assert summary.interrupted and summary.graded == 0 and doc["students"] == []
    resumed, doc = run(workspace, subs)
    assert not resumed.interrupted and (resumed.graded, resumed.skipped) == (4, 0)
