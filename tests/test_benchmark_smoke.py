"""The class benchmark's building blocks: its synthetic notebooks are what graders reads.

The released student notebook of the notebook test course is filled for a few synthetic
students, written in nbgrader's layout, validated by nbformat and read back with
``read_submission``; nbgrader's log is parsed into per-student times (all without torch);
and the per-submission cost breakdown runs on them through the real sandbox. The scale
benchmark takes a small class through the whole pipeline, on this machine and (marked: it
starts them) on a local cluster into PostgreSQL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from notebook_helpers import copy_course

from graders.notebook.collect import read_submission
from graders.notebook.release import student_notebook
from graders.submissions.folder import find_submissions
from graders.workspace import load

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import nbgrader_side  # noqa: E402
import synth  # noqa: E402

KEY = {
    "clone-basics/shares-memory": "False",
    "clone-basics/grad-fn": "<CloneBackward0>",
    "clone-basics/backward": "no error",
    "clone-basics/grad": "tensor(3.)",
    "detach-basics/flags": "(True, False)",
    "detach-basics/write-through": "tensor(0.)",
    "detach-basics/resize-leaf": "RuntimeError",
    "independent-copy": "import torch\n\n\ndef independent_copy(t):\n    return "
    "t.clone().detach()\n",
}


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_course(tmp_path_factory.mktemp("notebook-course") / "course")


@pytest.fixture(scope="module")
def written(
    course: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[synth.Student]]:
    loaded = load(course)
    released = json.loads(
        nbformat.writes(student_notebook(loaded, loaded.course.assignment("nb1")))
    )
    folder = tmp_path_factory.mktemp("submitted")
    cohort = synth.students(8, seed=1, code_share=0.5, hostile_every=4)
    for student in cohort:
        nb = synth.fill(
            released,
            student,
            KEY,
            {"clone-basics/shares-memory": ["True"]},
            {"independent-copy": "independent_copy"},
        )
        synth.write_submission(nb, folder, student.id, "nb1")
    return folder, cohort


def test_the_class_is_deterministic_and_mixed() -> None:
    cohort = synth.students(500)
    assert cohort == synth.students(500)
    kinds = {s.code for s in cohort}
    assert set(synth.HOSTILE) <= kinds and {"none", "solution", "wrong"} <= kinds
    assert sum(s.hostile for s in cohort) == 4
    assert not any(s.hostile for s in synth.students(500, hostile_every=0))


def test_filled_notebooks_are_valid_and_graders_reads_every_answer(
    written: tuple[Path, list[synth.Student]], course: Path
) -> None:
    folder, cohort = written
    loaded = load(course)
    template = loaded.exercises["independent-copy"].exercise.template
    found = {f.student: f for f in find_submissions(folder, "nb1")}
    assert sorted(found) == [s.id for s in cohort] and all(f.error is None for f in found.values())
    for student in cohort:
        path = found[student.id].path
        nbformat.validate(nbformat.read(path, as_version=4))
        sub = read_submission(path, "nb1", loaded, student.id)
        assert set(sub.answers) <= set(KEY)
        code = sub.answers["independent-copy"]
        if student.code == "solution":
            assert code == KEY["independent-copy"]
        elif student.code == "none":
            assert (
                code.strip() == template.strip()
            )  # left as released: the grader calls it unanswered
        else:
            assert "def independent_copy(" in code
            assert ("while True" in code) == (
                student.code in ("memory-bomb", "infinite-loop", "stdout-flood")
            )


def test_nbgrader_log_gives_each_student_the_time_to_the_next() -> None:
    log = "\n".join(
        [
            "100.000 [AutogradeApp | INFO] Copying /c/submitted/s0001/ps1/timestamp.txt -> "
            "/c/autograded/s0001/ps1/timestamp.txt",
            "103.500 [AutogradeApp | INFO] Autograding /c/autograded/s0001/ps1/ps1.ipynb",
            "110.000 [AutogradeApp | INFO] Copying /c/submitted/s0002/ps1/timestamp.txt -> "
            "/c/autograded/s0002/ps1/timestamp.txt",
            "not a log line",
            "118.250 [AutogradeApp | INFO] Setting destination file permissions to 444",
        ]
    )
    assert nbgrader_side.per_student_times(log) == {"s0001": 10.0, "s0002": 8.25}


@pytest.mark.command
def test_the_cost_breakdown_runs_on_a_small_class(
    written: tuple[Path, list[synth.Student]], course: Path
) -> None:
    # The real sandbox, a few submissions: the benchmark's own code, kept from rotting.
    folder, cohort = written
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "costs.py"), "--course", str(course)]
        + ["--assignment", "nb1", "--submissions", str(folder), "--code-limit", "2"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    costs = json.loads(done.stdout)
    assert costs["submissions"] == len(cohort)
    assert costs["code"]["n"] + costs["code_hostile"]["n"] >= 1
    assert costs["submission"]["n"] == len(cohort)


def scale_run(tmp_path: Path, *args: str) -> tuple[dict, str]:
    """``scale_pipeline.py`` with ``args``: its figures (from --json) and what it printed."""
    saved = tmp_path / "scale.json"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "scale_pipeline.py"), *args, "--json", str(saved)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(saved.read_text()), done.stdout


@pytest.mark.command
def test_the_scale_benchmark_runs_the_whole_pipeline_at_two_sizes(tmp_path: Path) -> None:
    # Every phase, each measured, at two sizes (the smaller one the larger's first
    # learners), the class's outputs complete, and the performance table made. The
    # learners write no code here: the sandbox's share is the class benchmark's (above).
    import scale_table

    figures, printed = scale_run(
        tmp_path, "--sizes", "2,4", "--configs", "local", "--check-runs", "1", "--code-share", "0"
    )
    assert sorted(figures["configs"]) == ["local"] and figures["cluster_left_out"]
    runs = figures["configs"]["local"]
    assert sorted(runs, key=int) == ["2", "4"]
    for size, run in runs.items():
        assert run["written"]["results"] == run["written"]["feedback_pages"] == int(size)
        phases = [run[p] for p in scale_table.PHASES]
        assert all(p["wall_s"] > 0 and p["own_pss_mib"] > 0 for p in phases)
    assert figures["check"]["check"]["best_s"] > figures["check"]["pass"]["best_s"] > 0
    table = scale_table.table(figures)
    assert table.count("| whole pipeline, peak of graders' own processes |") == 1
    assert "targets:" in printed and "graders check cold" in printed


@pytest.mark.cluster
@pytest.mark.postgres
def test_the_scale_benchmark_runs_on_a_local_cluster_into_postgresql(tmp_path: Path) -> None:
    """The benchmark's other configuration (its own PostgreSQL server, a local Dask cluster:
    started by the script, so marked here by hand), with code to grade: about a minute, the
    cluster's workers each importing torch and warming a sandbox, and four commands."""
    from pg_server import find_bin

    if find_bin() is None:
        pytest.skip("PostgreSQL is not installed (initdb, pg_ctl)")
    figures, _printed = scale_run(
        tmp_path, "--sizes", "3", "--configs", "cluster", "--check-runs", "1", "--code-share", "0.7"
    )
    assert sorted(figures["configs"]) == ["cluster"]
    run = figures["configs"]["cluster"]["3"]
    assert run["written"]["results"] == run["written"]["feedback_pages"] == 3
