"""Benchmark: a class of ps1 through the whole pipeline at two sizes, and ``graders check`` cold.

    .venv/bin/python benchmarks/scale_pipeline.py --json bench-scale.json   # make bench-scale
    .venv/bin/python benchmarks/scale_pipeline.py --quick                   # 8 and 24 learners
    .venv/bin/python benchmarks/scale_pipeline.py --sizes 2,4 --configs local   # the suite's

One synthetic class (the class benchmark's generator, ``synth``: 30% write code, no
hostile cells unless ``--hostile-every N``) of the larger size is written once; the
smaller class is its first learners. Each size goes through the pipeline twice:

- ``local``: ``graders autograde --workers W`` into SQLite, on this machine;
- ``cluster``: ``graders autograde --cluster local:W`` into PostgreSQL (a throwaway server
  of the benchmark's own, fsync on, as ``cluster_batch.py`` runs it; left out, and said so,
  where PostgreSQL is not installed, or ``--configs local`` leaves it out);

each then followed by ``graders feedback``, ``graders report --csv`` and ``graders export``
(Canvas) from that gradebook. Every phase is a process of its own, measured as a whole
(``proctree``): wall time, CPU time, and the peak memory of its process tree: the PSS of
the whole tree and of graders' own processes (the sandbox's jobs, each capped by the
course's memory limit, left out), read while grading at every ``PSS_EVERY``-th sample
only, so that reading it slows the run little.

Then the cold start of ``graders check`` on one submitted notebook against ``python -c
pass`` and ``python -c "import yaml, pydantic, click"``: each run a fresh interpreter with
its bytecode cached (as an installed package has it), the three interleaved, best and
median of ``--check-runs``.

Prints the figures and the issue's targets: at the larger size, the whole pipeline's peak
(graders' own processes) within 1.2x of its peak at the smaller and each phase's time
within 12x (for 10x the learners); ``graders check`` within 2x of the imports of yaml,
pydantic and click. Asserts nothing; ``scale_table.py`` makes the performance page's table
(docs/explanation/performance.md) of a saved run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import class_batch  # noqa: E402
import report  # noqa: E402
import scale_table  # noqa: E402
import synth  # noqa: E402
from pg_server import PostgresServer, find_bin  # noqa: E402
from proctree import Measured, run_measured  # noqa: E402

PHASES = ("autograde", "feedback", "report", "export")
INTERVAL_S = 0.1  # how often the process tree is sampled
# PSS read at every 10th sample (about once a second) while grading, whose tree of fork
# servers takes tens of ms to read; at every sample in the other phases (one process).
PSS_EVERY = {"autograde": 10}
BASELINE_IMPORTS = "import yaml, pydantic, click"


def main(argv: list[str] | None = None) -> int:
    opts = _options(argv)
    work = Path(tempfile.mkdtemp(prefix="graders-scale-bench-"))
    server = _postgres(opts)
    try:
        figures = run(opts, work, server)
    finally:
        if server is not None:
            server.stop()
        if not opts.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(scale_table.text(figures))
    if opts.json:
        Path(opts.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


def run(opts: argparse.Namespace, work: Path, server: PostgresServer | None) -> dict[str, Any]:
    """Every figure of the run."""
    figures: dict[str, Any] = {
        "command": " ".join(["benchmarks/scale_pipeline.py", *sys.argv[1:]]),
        "machine": report.machine(),
        "torch": report.torch_version(),
        "assignment": opts.assignment,
        "sizes": opts.sizes,
        "workers": opts.workers,
        "configs": {},
    }
    course = class_batch._copy_course(class_batch.REPO, work / "course")
    _say(f"writing a class of {max(opts.sizes)} learners of {opts.assignment}")
    classes = write_classes(opts, course, work)
    configs = {}
    if "local" in opts.configs:
        configs["local"] = ("--workers", str(opts.workers))
    if server is not None:
        configs["cluster"] = ("--cluster", f"local:{opts.workers}")
    else:
        figures["cluster_left_out"] = (
            "--configs local"
            if "cluster" not in opts.configs
            else "PostgreSQL is not installed (initdb, pg_ctl)"
        )
    for name, where in configs.items():
        figures["configs"][name] = {}
        for size, subs in classes.items():
            url = server.new_database("scale") if name == "cluster" and server else None
            url = url or f"sqlite:///{work / f'{name}-{size}.db'}"
            _say(f"{name}: {size} learners through the pipeline ({' '.join(where)})")
            figures["configs"][name][str(size)] = pipeline(
                opts, course, subs, url, work / f"out-{name}-{size}", where
            )
    notebook = next(iter(classes.values()))
    first = sorted(notebook.glob("*/*/*.ipynb"))[0]
    _say(f"graders check, cold, {opts.check_runs} runs")
    figures["check"] = cold_check(first, work / "pycache", opts.check_runs)
    figures["machine"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return figures


def write_classes(opts: argparse.Namespace, course: Path, work: Path) -> dict[int, Path]:
    """The submissions folder of each size (the smaller ones: the first learners, linked)."""
    release = work / "release"
    class_batch.graders_cli(course, "release", opts.assignment, "--out", str(release))
    key = json.loads(class_batch.graders_cli(course, "key", opts.assignment, "--json").stdout)
    template = json.loads((release / opts.assignment / f"{opts.assignment}.ipynb").read_text())
    cohort = synth.students(max(opts.sizes), opts.seed, opts.code_share, opts.hostile_every)
    whole = class_batch.write_class(
        course, opts.assignment, template, cohort, key, work / "submitted", opts.seed
    )
    return {
        size: whole
        if size == len(cohort)
        else class_batch.copy_students(whole, work / f"first-{size}", [s.id for s in cohort[:size]])
        for size in sorted(opts.sizes)
    }


def pipeline(
    opts: argparse.Namespace,
    course: Path,
    subs: Path,
    url: str,
    out: Path,
    where: tuple[str, ...],
) -> dict[str, Any]:
    """autograde -> feedback -> report -> export of one class into the gradebook at ``url``."""
    a = opts.assignment
    commands = {
        "autograde": ["autograde", a, str(subs), "--out", str(out), *where],
        "feedback": ["feedback", a, "--out", str(out / "feedback")],
        "report": ["report", a, "--out", str(out / "report.html"), "--csv", str(out / "csv")],
        "export": ["export", a, "--format", "canvas", "-o", str(out / "canvas.csv")],
    }
    figures = {}
    for phase, args in commands.items():
        done = _graders(course, [*args, "--db", url], PSS_EVERY.get(phase, 1))
        ok = (0, 1) if phase == "autograde" else (0,)  # 1: some submission was ungradable
        if done.returncode not in ok:
            raise RuntimeError(
                f"graders {phase} failed ({done.returncode}):\n{done.stderr[-3000:]}"
            )
        figures[phase] = report.measured(done)
    figures["written"] = {
        "results": len(json.loads((out / "results.json").read_text())["students"]),
        "feedback_pages": len(list((out / "feedback").glob("*.html"))),
        "report_bytes": (out / "report.html").stat().st_size,
    }
    return figures


def _graders(course: Path, args: list[str], pss_every: int) -> Measured:
    return run_measured(
        [str(class_batch.BIN / "graders"), *args, "--course", str(course)],
        cwd=course,
        pss=True,
        interval=INTERVAL_S,
        pss_every=pss_every,
    )


def cold_check(notebook: Path, pycache: Path, runs: int) -> dict[str, Any]:
    """``graders check`` and the two baselines, each a fresh interpreter, interleaved."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)  # bytecode cached, as an install has it
    python = str(class_batch.BIN / "python")
    commands = {
        "check": [python, "-m", "graders", "check", str(notebook)],
        "pass": [python, "-c", "pass"],
        "imports": [python, "-c", BASELINE_IMPORTS],
    }
    walls: dict[str, list[float]] = {name: [] for name in commands}
    for attempt in range(runs + 1):
        for name, command in commands.items():
            started = time.perf_counter()
            subprocess.run(command, env=env, cwd=notebook.parent, capture_output=True)
            if attempt:  # the first compiles the bytecode
                walls[name].append(time.perf_counter() - started)
    return {
        "runs": runs,
        **{
            name: {"best_s": round(min(w), 4), "median_s": round(statistics.median(w), 4)}
            for name, w in walls.items()
        },
    }


def _postgres(opts: argparse.Namespace) -> PostgresServer | None:
    if "cluster" not in opts.configs:
        return None
    found = find_bin()
    return PostgresServer(found, durable=True).start() if found else None


def _say(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def _options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="learners per class, comma-separated")
    parser.add_argument("--quick", action="store_true", help="8 and 24 learners, 3 check runs")
    parser.add_argument("--assignment", default="ps1")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--code-share", type=float, default=0.3)
    parser.add_argument("--hostile-every", type=int, default=0, help="0: no hostile code cells")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check-runs", type=int, default=15)
    parser.add_argument(
        "--configs", default="local,cluster", help="which runs, comma-separated: local, cluster"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--json", help="also write every figure to this file")
    opts = parser.parse_args(argv)
    if opts.quick:
        opts.sizes, opts.check_runs = "8,24", 3
    opts.sizes = sorted(int(n) for n in opts.sizes.split(","))
    opts.configs = [c for c in opts.configs.split(",") if c]
    unknown = set(opts.configs) - {"local", "cluster"}
    if unknown or not opts.configs:
        parser.error(f"--configs takes local and cluster, not {sorted(unknown) or 'nothing'}")
    return opts


if __name__ == "__main__":
    sys.exit(main())
