"""Per-submission costs, measured in one process with graders' own library.

    .venv/bin/python benchmarks/costs.py --course DIR --assignment ps1 --submissions DIR [--limit N]

Prints one JSON object. For each submission (nbgrader ``submitted/`` layout):

- ``read``: reading the notebook as JSON and taking the answers out (``read_submission``);
- ``predictions``: grading every prediction once the truths are known (``grade_submission``
  on the assignment restricted to its predict exercises);
- ``code``: grading one code exercise of a student who wrote code, with a warm sandbox
  (one fork-server worker, as each of ``--workers`` runs): fork, confine, run the harness,
  judge. Hostile code (it runs to the time limit) is counted apart in ``code_hostile``;
- ``submission``: reading and grading a whole submission, everything included.

Each figure is a wall-clock time in milliseconds (median, 90th percentile, max); reading
and predictions also give their CPU time (``thread_time``), which a busy machine inflates
less. Truths are prepared before anything is timed, as a batch does once.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from graders.grading.pipeline import (
    PreparedAssignment,
    Submission,
    grade_submission,
    prepare_assignment,
)
from graders.notebook.collect import read_submission
from graders.submissions.folder import find_submissions
from graders.workspace import open_workspace


def main(argv: list[str] | None = None) -> None:
    """Measure and print the costs as JSON."""
    args = _parser().parse_args(argv)
    print(
        json.dumps(
            measure(args.course, args.assignment, args.submissions, args.limit, args.code_limit),
            indent=1,
        )
    )


def measure(
    course: Path, assignment: str, submissions: Path, limit: int, code_limit: int
) -> dict[str, Any]:
    """Every figure of the module docstring, for the first ``limit`` submissions."""
    found = [f for f in find_submissions(submissions, assignment) if f.path is not None][:limit]
    with open_workspace(course, workers=1) as ws:
        prep = prepare_assignment(ws.loaded, assignment, ws.ctx)
        subs, read_wall, read_cpu = _timed_all(
            lambda f: read_submission(f.path, assignment, ws.loaded, f.student), found
        )
        predict = _only(prep, "predict")
        _, pred_wall, pred_cpu = _timed_all(lambda s: grade_submission(predict, s), subs)
        code, hostile, by_exercise = _code_costs(prep, subs, code_limit)
        _, whole, _ = _timed_all(
            lambda f: grade_submission(
                prep, read_submission(f.path, assignment, ws.loaded, f.student)
            ),
            found,
        )
        isolation = ws.isolation
    return {
        "assignment": assignment,
        "submissions": len(subs),
        "isolation": isolation,
        "questions": sum(len(ex.loaded.kind.items(ex.loaded.exercise)) for ex in predict.exercises),
        "read": _stats(read_wall, read_cpu),
        "predictions": _stats(pred_wall, pred_cpu),
        "code": _stats(code),
        "code_hostile": _stats(hostile),
        "submission": _stats(whole),
        "code_by_exercise": {ex_id: _stats(times) for ex_id, times in by_exercise.items()},
    }


def _code_costs(
    prep: PreparedAssignment, subs: list[Submission], limit: int
) -> tuple[list[float], list[float], dict[str, list[float]]]:
    """Wall time of each code exercise graded alone: ordinary runs, hostile runs, ordinary by
    exercise."""
    ordinary: list[float] = []
    hostile: list[float] = []
    by_exercise: dict[str, list[float]] = {}
    for ex in (e for e in prep.exercises if e.loaded.kind.name == "code"):
        only = replace(prep, exercises=(ex,))
        ex_id = ex.loaded.exercise.id
        written = [s for s in subs if _runs_code(ex, s, prep)][:limit]
        if written:
            grade_submission(
                only, written[0]
            )  # the first job imports the harness in the fork server
        for sub in written:
            started = time.perf_counter()
            result = grade_submission(only, sub)
            took = (time.perf_counter() - started) * 1e3
            crashed = any(q.status.value in ("timeout", "error") for q in result.questions)
            (hostile if crashed else ordinary).append(took)
            if not crashed:
                by_exercise.setdefault(ex_id, []).append(took)
    return ordinary, hostile, by_exercise


def _runs_code(ex: Any, sub: Submission, prep: PreparedAssignment) -> bool:
    """Does grading ``sub`` run code for this exercise? The kind says (a starter left as
    released, whatever the notebook made of it, is unanswered and runs nothing)."""
    kind, exercise = ex.loaded.kind, ex.loaded.exercise
    return bool(kind.jobs(exercise, ex.prepared, kind.given(exercise, sub), prep.ctx))


def _only(prep: PreparedAssignment, kind: str) -> PreparedAssignment:
    return replace(prep, exercises=tuple(e for e in prep.exercises if e.loaded.kind.name == kind))


def _timed_all(
    step: Callable[[Any], Any], items: list[Any]
) -> tuple[list[Any], list[float], list[float]]:
    """``step`` applied to each item, with each call's wall and CPU time in milliseconds."""
    out, wall, cpu = [], [], []
    for item in items:
        w, c = time.perf_counter(), time.thread_time()
        out.append(step(item))
        cpu.append((time.thread_time() - c) * 1e3)
        wall.append((time.perf_counter() - w) * 1e3)
    return out, wall, cpu


def _stats(wall: list[float], cpu: list[float] | None = None) -> dict[str, Any]:
    if not wall:
        return {"n": 0}
    ordered = sorted(wall)
    stats: dict[str, Any] = {
        "n": len(wall),
        "median_ms": round(statistics.median(wall), 3),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 3),
        "max_ms": round(ordered[-1], 3),
    }
    if cpu:
        stats["cpu_median_ms"] = round(statistics.median(cpu), 3)
    return stats


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--course", type=Path, required=True, help="the course folder (holding course.yml)"
    )
    parser.add_argument("--assignment", required=True)
    parser.add_argument(
        "--submissions", type=Path, required=True, help="a folder of <student>/<assignment>/*.ipynb"
    )
    parser.add_argument(
        "--limit", type=int, default=200, help="submissions to read and grade (default 200)"
    )
    parser.add_argument(
        "--code-limit", type=int, default=40, help="code runs per code exercise (default 40)"
    )
    return parser


if __name__ == "__main__":
    sys.exit(main())
