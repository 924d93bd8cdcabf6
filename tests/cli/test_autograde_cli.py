"""``graders autograde`` as a process, with the real sandbox: exit codes, kill -9, Ctrl-C.

The course folder (and so its truth cache) is shared by the module; each test has its own
gradebook (``--db``) and output folder (``--out``).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from small_course import REPO, RIGHT, WRONG, a_class_that_pauses, hand_in, notebook, small_course

# Every test here runs graders in a process of its own.
pytestmark = pytest.mark.command

CLASS_SIZE = 40  # two of them pause the batch midway (small_course.a_class_that_pauses)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_course(tmp_path_factory.mktemp("cli") / "course")


def graders(course: Path, tmp: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "graders",
        *args,
        "--course",
        str(course),
        "--db",
        f"sqlite:///{tmp / 'g.db'}",
        "--out",
        str(tmp / "out"),
    ]


def autograde(
    course: Path, tmp: Path, subs: Path, *extra: str, assignment: str = "ps1"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        graders(course, tmp, "autograde", assignment, str(subs), *extra),
        capture_output=True,
        text=True,
        timeout=600,
    )


def rows(db: Path) -> dict[str, tuple[int, int]]:
    """Student -> (row id, run id) of every saved grade; {} while the gradebook does not exist."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
            return {
                s: (i, r) for s, i, r in conn.execute("select student, id, run_id from submissions")
            }
    except sqlite3.OperationalError:
        return {}


def run_outcomes(db: Path) -> list[tuple[int, str, int, int]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute("select id, outcome, graded, skipped from runs order by id"))


def start_and_stop(
    course: Path, tmp: Path, subs: Path, sig: int, saved_at_least: int = 3
) -> subprocess.CompletedProcess[str]:
    """Start a batch; once some grades are saved, send ``sig`` to the grading process only."""
    proc = subprocess.Popen(
        graders(course, tmp, "autograde", "ps2", str(subs), "--workers", "2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        while len(rows(tmp / "g.db")) < saved_at_least and proc.poll() is None:
            time.sleep(0.01)
        assert proc.poll() is None, "the batch ended before it could be stopped"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        _end_session(proc)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _end_session(proc: subprocess.Popen[str]) -> None:
    # Whatever the grading process started (its sandbox) goes with the session we created.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=60)


def test_exit_codes_and_a_second_run_that_grades_nothing(course: Path, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "ada", notebook(RIGHT))
    hand_in(subs, "bob", b"{ not json")
    first = autograde(course, tmp_path, subs)
    assert first.returncode == 1, first.stderr
    assert (
        "graded 2, skipped 0 unchanged" in first.stdout
        and "bob: bob/ps1.ipynb: not a notebook" in first.stdout
    )
    again = autograde(course, tmp_path, subs)
    assert (
        again.returncode == 1
        and "graded 0, skipped 2 unchanged" in again.stdout
        and "bob:" in again.stdout
    )
    only_ada = tmp_path / "only-ada"
    (only_ada / "ada").mkdir(parents=True)
    os.link(subs / "ada" / "ps1.ipynb", only_ada / "ada" / "ps1.ipynb")  # same bytes, same time
    assert autograde(course, tmp_path, only_ada).returncode == 0
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [s["student"] for s in results["students"]] == ["ada", "bob"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ps9"], "no assignment 'ps9'"),
        (["ps1", "/nonexistent/submissions"], "does not exist"),
    ],
)
def test_usage_errors_exit_2(course: Path, tmp_path: Path, args: list[str], message: str) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "ada", notebook(RIGHT))
    argv = args if len(args) == 2 else [*args, str(subs)]
    result = subprocess.run(
        graders(course, tmp_path, "autograde", *argv), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2 and message in result.stderr


def test_kill_9_mid_batch_loses_nothing_and_grades_no_one_twice(
    course: Path, tmp_path: Path
) -> None:
    names = a_class_that_pauses(tmp_path / "subs", CLASS_SIZE)
    killed = start_and_stop(course, tmp_path, tmp_path / "subs", signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL
    before = rows(tmp_path / "g.db")
    assert 0 < len(before) < len(names)
    assert run_outcomes(tmp_path / "g.db") == [
        (1, "running", 0, 0)
    ]  # the killed run never finished

    resumed = autograde(course, tmp_path, tmp_path / "subs", "--workers", "2", assignment="ps2")
    assert resumed.returncode == 0, resumed.stderr
    after = rows(tmp_path / "g.db")
    assert set(after) == names
    assert {
        s: after[s] for s in before
    } == before  # grades saved before the kill were kept, not redone
    assert all(run == 2 for s, (_, run) in after.items() if s not in before)
    assert f"graded {len(names) - len(before)}, skipped {len(before)} unchanged" in resumed.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert sorted(s["student"] for s in results["students"]) == sorted(names)


def test_ctrl_c_stops_cleanly_saves_the_outputs_and_says_how_to_go_on(
    course: Path, tmp_path: Path
) -> None:
    a_class_that_pauses(tmp_path / "subs", CLASS_SIZE)
    stopped = start_and_stop(course, tmp_path, tmp_path / "subs", signal.SIGINT)
    assert stopped.returncode == 130
    assert (
        "stopping: saving the grades in hand" in stopped.stderr
        and "run the same command again" in stopped.stderr
    )
    saved = rows(tmp_path / "g.db")
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert sorted(s["student"] for s in results["students"]) == sorted(saved)
    assert run_outcomes(tmp_path / "g.db")[-1][1] == "interrupted"


HOSTILE = "def independent_copy(t):\n    while True:\n        pass\n"


def test_a_corrupted_notebook_and_a_hostile_code_cell_cost_only_their_students(
    course: Path, tmp_path: Path
) -> None:
    subs = tmp_path / "subs"
    predictions = {"clone-basics/shares": "False", "clone-basics/flag": "True"}
    solution = (REPO / "solutions" / "independent-copy.py").read_text()
    hand_in(subs, "ada", notebook(predictions, {"independent-copy": solution}), name="ps2.ipynb")
    hand_in(subs, "eve", notebook(predictions, {"independent-copy": HOSTILE}), name="ps2.ipynb")
    hand_in(
        subs, "bob", notebook(predictions)[:-40], name="ps2.ipynb"
    )  # cut short: not JSON any more
    first = autograde(course, tmp_path, subs, assignment="ps2")
    assert first.returncode == 1, first.stderr
    assert "graded 3, skipped 0" in first.stdout
    assert "bob: bob/ps2.ipynb: not a notebook" in first.stdout
    assert "eve: independent-copy: timeout (4 checks)" in first.stdout
    by = {
        s["student"]: s
        for s in json.loads((tmp_path / "out" / "results.json").read_text())["students"]
    }
    assert by["ada"]["score"] == by["ada"]["max_score"] == 6.0
    eve = {q["id"]: q["status"] for q in by["eve"]["questions"]}
    assert by["eve"]["status"] == "graded" and by["eve"]["score"] == 2.0
    assert [
        eve[f"independent-copy/{c}"]
        for c in ("values", "own-memory", "detached", "independent-writes")
    ] == ["timeout"] * 4
    second = autograde(course, tmp_path, subs, assignment="ps2")
    assert second.returncode == 1 and "graded 0, skipped 3 unchanged" in second.stdout


def test_names_and_reasons_from_submissions_cannot_drive_the_terminal() -> None:
    from graders.cli.autograde import printable

    assert printable("evil\x1b[2J\x07name") == "evil\\x1b[2J\\x07name"
    assert printable("ada") == "ada"


def test_a_broken_course_exits_2_with_its_location(tmp_path: Path) -> None:
    broken = small_course(tmp_path / "course")
    (broken / "exercises" / "detach-basics.yml").write_text(
        (broken / "exercises" / "detach-basics.yml")
        .read_text()
        .replace("kind: predict", "kind: predikt")
    )
    hand_in(tmp_path / "subs", "ada", notebook(RIGHT))
    result = autograde(broken, tmp_path, tmp_path / "subs")
    assert (
        result.returncode == 2
        and "exercises/detach-basics.yml:4:1: kind: unknown kind 'predikt'" in result.stderr
    )


def test_several_assignments_are_graded_in_one_command_each_into_its_own_folder(
    course: Path, tmp_path: Path
) -> None:
    subs = tmp_path / "subs"
    predictions = {"clone-basics/shares": "False", "clone-basics/flag": "True"}
    solution = (REPO / "solutions" / "independent-copy.py").read_text()
    hand_in(subs, "ada", notebook(RIGHT))
    hand_in(subs, "bob", notebook(WRONG))
    hand_in(subs, "ada", notebook(predictions, {"independent-copy": solution}), name="ps2.ipynb")

    def ps1_and_ps2() -> subprocess.CompletedProcess[str]:
        argv = graders(course, tmp_path, "autograde", "ps1", "ps2", str(subs))
        return subprocess.run(argv, capture_output=True, text=True, timeout=600)

    both = ps1_and_ps2()

    assert both.returncode == 1, both.stderr  # bob handed in no ps2
    assert "bob: no notebook for ps2" in both.stdout.partition("ps2:\n")[2]
    ps1 = json.loads((tmp_path / "out" / "ps1" / "results.json").read_text())
    ps2 = json.loads((tmp_path / "out" / "ps2" / "results.json").read_text())
    assert [(s["student"], s["score"]) for s in ps1["students"]] == [("ada", 6.0), ("bob", 1.0)]
    assert [(s["student"], s["score"]) for s in ps2["students"]] == [("ada", 6.0), ("bob", 0.0)]
    assert both.stdout.index("ps1:") < both.stdout.index("ps2:")
    again = ps1_and_ps2()
    assert again.returncode == 1 and again.stdout.count("graded 0, skipped") == 2


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["ps9"], "no assignment 'ps9'"),
        (["ps2", "--times", "times.csv"], "--times holds one assignment's times"),
    ],
)
def test_a_wrong_assignment_among_several_stops_before_anyone_is_graded(
    course: Path, tmp_path: Path, extra: list[str], message: str
) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "ada", notebook(RIGHT))
    (tmp_path / "times.csv").write_text("student,submitted_at\nada,2026-10-01T12:00:00Z\n")
    names = [a for a in extra if not a.startswith("--") and not a.endswith(".csv")]
    options = [a for a in extra if a not in names]
    argv = ["autograde", "ps1", *names, str(subs), *options]

    result = subprocess.run(
        graders(course, tmp_path, *argv), capture_output=True, text=True, timeout=120, cwd=tmp_path
    )

    assert result.returncode == 2 and message in result.stderr
    assert rows(tmp_path / "g.db") == {}
