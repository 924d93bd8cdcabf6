"""How long grading one code exercise takes on the warm fork path (not a test).

    .venv/bin/python benchmarks/code_exercises.py [--rounds 20] [--isolation auto]

For each code exercise of the course, the reference solution is graded ``rounds`` times
through ``kind.grade`` with a warm fork server: the time covers sending the job, forking,
the keeper, arming the guard, compiling the learner's source under the allowlist, running
it and the course's checker, the keeper's schema check, and judging in the grader. Printed
per exercise: median and 90th percentile of the whole grade, and the median time the
child itself took (``Outcome.duration_s``). The first line is the floor: the same runner
running a trivial truth job (``1``), for comparison on a machine whose load is not known.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from graders.course.load import load_course
from graders.grading.truth_cache import TruthCache
from graders.kinds.base import Context, ExerciseAnswers
from graders.kinds.registry import sandbox_modules, task_modules
from graders.sandbox import Job, Limits, open_runner

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--isolation", default="auto")
    args = parser.parse_args()
    loaded = load_course(ROOT / "course.yml")
    code = [ex for ex in loaded.exercises.values() if ex.kind.name == "code"]
    modules = sandbox_modules(loaded.exercises.values(), loaded.root)  # the course's checkers
    runner = open_runner(args.isolation, hide=(str(ROOT),), modules=modules, preload=task_modules())
    try:
        ctx = Context(loaded.course, loaded.root, _Timed(runner), None)
        print(
            f"isolation: {runner.isolation}; {args.rounds} rounds per exercise, after one warm-up"
        )
        print(f"{'exercise':20} {'median ms':>10} {'p90 ms':>8} {'child ms':>9}")
        _floor(runner, args.rounds)
        for ex in code:
            prepared = ex.kind.prepare(ex.exercise, ctx, TruthCache.of(ctx))
            given = ExerciseAnswers({}, code=prepared.solution)
            ex.kind.grade(
                ex.exercise, prepared, given, ctx
            )  # warm-up: the first job imports the task module
            ctx.runner.children.clear()
            wall = []
            for _ in range(args.rounds):
                started = time.perf_counter()
                ex.kind.grade(ex.exercise, prepared, given, ctx)
                wall.append((time.perf_counter() - started) * 1000)
            p90 = statistics.quantiles(wall, n=10)[-1]
            child = statistics.median(ctx.runner.children) * 1000
            print(f"{ex.exercise.id:20} {statistics.median(wall):10.1f} {p90:8.1f} {child:9.1f}")
    finally:
        runner.close()


def _floor(runner: object, rounds: int) -> None:
    job = Job(
        "graders.kinds.predict.child.task:compute",
        {"seed": 0, "setup": "", "questions": [{"id": "one", "expr": "1"}]},
        Limits(),
    )
    runner.run(job)  # type: ignore[attr-defined]
    wall = []
    for _ in range(rounds):
        started = time.perf_counter()
        runner.run(job)  # type: ignore[attr-defined]
        wall.append((time.perf_counter() - started) * 1000)
    print(
        f"{'(floor: trivial job)':20} {statistics.median(wall):10.1f} "
        f"{statistics.quantiles(wall, n=10)[-1]:8.1f}"
    )


class _Timed:
    """The runner, remembering how long each child took."""

    def __init__(self, runner: object) -> None:
        self.runner = runner
        self.isolation = runner.isolation
        self.children: list[float] = []

    def run(self, job: object) -> object:
        outcome = self.runner.run(job)  # type: ignore[attr-defined]
        self.children.append(outcome.duration_s)
        return outcome

    def run_all(self, jobs: list[object]) -> list[object]:
        return [self.run(job) for job in jobs]

    def close(self) -> None:
        self.runner.close()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
