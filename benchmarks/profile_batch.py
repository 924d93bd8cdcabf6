"""Where the time of one ``graders autograde`` batch goes, phase by phase.

    .venv/bin/python benchmarks/profile_batch.py --course DIR --assignment ps3 \
        --submissions DIR [--workers 2] [--top 25]

Runs the batch in this process, as the command does (``plan_batch`` then ``grade_plan``),
with each phase wrapped to add up its calls, wall time and CPU time of the calling thread
(``thread_time``: on a busy machine, wall time also counts waiting for a core). Worker
threads read and grade; the main thread saves each grade and writes the outputs. With
``--top N``, also prints the N functions with the most own time (cProfile, every thread).

For a sampling view of a real run, py-spy does not need this script:
``py-spy record -r 100 -o profile.svg -- .venv/bin/graders autograde ps3 SUBMISSIONS``.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import pstats
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

PHASES = (  # (module, attribute, label): wrapped in place for the run
    ("graders.batch.autograde", "plan_batch", "plan: find, prepare truths, key notebooks"),
    ("graders.grading.handed_in", "grade_notebook", "worker: read + grade one submission"),
    ("graders.notebook.collect", "read_submission", "worker:   read notebook -> answers"),
    ("graders.kinds.predict", "PredictKind.grade", "worker:   predictions (one exercise)"),
    ("graders.kinds.code.kind", "CodeKind.grade", "worker:   code exercise (one, sandbox counted)"),
    (
        "graders.sandbox.runner",
        "LazyRunner.run_all",
        "worker:   a submission's jobs, together",
    ),
    ("graders.sandbox.runner", "LazyRunner.run", "worker:     sandbox job alone (fork, run, wait)"),
    ("graders.batch.autograde", "gradebook.record", "main: save one grade (gradebook)"),
    (
        "graders.batch.autograde",
        "gradebook.class_results",
        "main: the class's ids and head from the gradebook",
    ),
    (
        "graders.batch.autograde",
        "write_outputs",
        "main: read the class, write results.json, csv, junit, gradescope",
    ),
)


class Phases:
    """Calls, wall and thread CPU per phase, from every thread."""

    def __init__(self) -> None:
        self.totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
        self.lock = threading.Lock()
        self.profiles: list[cProfile.Profile] = []

    def wrap(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                with self.lock:
                    entry = self.totals[label]
                    entry[0] += 1
                    entry[1] += time.perf_counter() - wall
                    entry[2] += time.thread_time() - cpu

        return timed

    def table(self) -> str:
        rows = [f"{'phase':<52} {'calls':>6} {'wall s':>8} {'CPU s':>7} {'CPU ms/call':>12}"]
        for _module, _name, label in PHASES:
            calls, wall, cpu = self.totals.get(label, (0, 0.0, 0.0))
            if calls:
                rows.append(
                    f"{label:<52} {calls:>6} {wall:>8.2f} {cpu:>7.2f} {cpu / calls * 1e3:>12.2f}"
                )
        return "\n".join(rows)


def install(phases: Phases) -> None:
    """Wrap every phase of ``PHASES`` where it is looked up at call time."""
    for module_name, attribute, label in PHASES:
        owner: Any = importlib.import_module(module_name)
        *path, name = attribute.split(".")
        for part in path:
            owner = getattr(owner, part)
        setattr(owner, name, phases.wrap(label, getattr(owner, name)))


def main(argv: list[str] | None = None) -> None:
    """Run one batch with the phases wrapped and print where its time went."""
    args = _parser().parse_args(argv)
    started = time.perf_counter()
    from graders.batch import autograde
    from graders.workspace import open_workspace

    imported = time.perf_counter() - started
    phases = Phases()
    install(phases)
    profiler = _profile_threads(phases) if args.top else None
    db = f"sqlite:///{args.work / 'profile-gradebook.db'}"
    for stale in args.work.glob("profile-gradebook.db*"):
        stale.unlink()
    with open_workspace(args.course, workers=args.workers) as ws:
        plan = autograde.plan_batch(
            ws, args.assignment, args.submissions, db_url=db, out_dir=args.work / "profile-out"
        )
        autograde.grade_plan(plan, ws, workers=args.workers)
    total = time.perf_counter() - started
    print(
        f"{len(plan.todo)} submissions of {args.assignment}, {args.workers} workers: {total:.2f}s "
        "wall "
        f"(imports {imported:.2f}s)\n{phases.table()}"
    )
    if profiler is not None:
        profiler.disable()
        stats = pstats.Stats(profiler, *phases.profiles)
        stats.sort_stats("tottime").print_stats(args.top)


def _profile_threads(phases: Phases) -> cProfile.Profile:
    """cProfile in the main thread and in every thread started from now on."""

    def start(*_args: Any) -> None:
        threading.setprofile(None)
        profile = cProfile.Profile()
        phases.profiles.append(profile)
        profile.enable()  # takes over this new thread's profile hook

    threading.setprofile(start)
    main_profile = cProfile.Profile()
    main_profile.enable()
    return main_profile


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--course", type=Path, required=True)
    parser.add_argument("--assignment", required=True)
    parser.add_argument("--submissions", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--work",
        type=Path,
        default=Path("."),
        help="where the gradebook and outputs go (default .)",
    )
    parser.add_argument(
        "--top", type=int, default=0, help="also print the N functions with the most own time"
    )
    return parser


if __name__ == "__main__":
    sys.exit(main())
