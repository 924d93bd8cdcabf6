"""Benchmark: a synthetic class graded on one machine and on a Dask cluster, into PostgreSQL.

    .venv/bin/python benchmarks/cluster_batch.py --students 10000     # the full run
    .venv/bin/python benchmarks/cluster_batch.py --students 400       # a quick look

On the same cores, with the class benchmark's generator (``synth``; hostile code cells
only with ``--hostile-every``: each holds a worker for the course's time limit), into a
throwaway PostgreSQL server of its own (fsync on, as a gradebook would run):

1. ``graders autograde --workers W`` (threads here);
2. ``graders autograde --cluster local:W`` (W Dask worker processes of one thread);
3. the same, with one worker killed (``kill -9``) once half the class is saved;
4. the cluster on the first fifth of the class: does memory grow with the class?

For each: the whole command's wall time and submissions per second, the steady rate
(from 20% to 80% of the class, without start-up), the CPU time of its process tree, and
the peak RSS of the tree and of its largest process. The scheduler's overhead per
submission is the CPU time per submission on the cluster minus that here (Dask's
scheduler, its messages and the worker processes' own work). Prints the figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import class_batch  # noqa: E402
import report  # noqa: E402
import synth  # noqa: E402
from pg_server import PostgresServer, find_bin  # noqa: E402
from proctree import Measured, run_measured  # noqa: E402

PROGRESS = re.compile(r"^\[(\d+)/(\d+)\] .*\(([\d.]+)/s, ETA")
SPAWNED = b"spawn_main"  # in the command line of a LocalCluster's worker processes


def main(argv: list[str] | None = None) -> int:
    opts = _options(argv)
    work = Path(tempfile.mkdtemp(prefix="graders-cluster-bench-"))
    server = PostgresServer(_pg_bin(), durable=True).start()
    try:
        figures = run(opts, work, server)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(text(figures))
    if opts.json:
        Path(opts.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


def run(opts: argparse.Namespace, work: Path, server: PostgresServer) -> dict[str, Any]:
    course = class_batch._copy_course(class_batch.REPO, work / "course")
    subs = write_class(opts, course, work)
    base = class_batch.copy_students(
        subs, work / "base", sorted(p.name for p in subs.iterdir())[: opts.students // 5]
    )
    workers = str(opts.workers)
    cluster = ("--cluster", f"local:{workers}")
    figures: dict[str, Any] = {
        "machine": report.machine(),
        "torch": report.torch_version(),
        "students": opts.students,
        "assignment": opts.assignment,
        "workers": opts.workers,
    }
    _say(f"{opts.students} submissions: --workers {workers}")
    figures["local"] = graded(course, opts, subs, server, work, "--workers", workers)
    _say(f"{opts.students} submissions: --cluster local:{workers}")
    figures["cluster"] = graded(course, opts, subs, server, work, *cluster)
    _say(f"{opts.students} submissions: --cluster local:{workers}, one worker killed at 50%")
    figures["killed"] = graded(course, opts, subs, server, work, *cluster, kill_at=0.5)
    _say(f"{opts.students // 5} submissions: --cluster local:{workers}")
    figures["cluster_fifth"] = graded(course, opts, base, server, work, *cluster)
    return figures


def write_class(opts: argparse.Namespace, course: Path, work: Path) -> Path:
    release = work / "release"
    class_batch.graders_cli(course, "release", opts.assignment, "--out", str(release))
    key = json.loads(class_batch.graders_cli(course, "key", opts.assignment, "--json").stdout)
    template = json.loads((release / opts.assignment / f"{opts.assignment}.ipynb").read_text())
    cohort = synth.students(opts.students, opts.seed, opts.code_share, opts.hostile_every)
    return class_batch.write_class(
        course, opts.assignment, template, cohort, key, work / "submitted", opts.seed
    )


def graded(
    course: Path,
    opts: argparse.Namespace,
    subs: Path,
    server: PostgresServer,
    work: Path,
    *where: str,
    kill_at: float | None = None,
) -> dict[str, Any]:
    """One ``graders autograde`` run into a new database, measured; its figures."""
    url = server.new_database("bench")
    out = work / f"out-{time.monotonic_ns()}"
    command = [
        str(class_batch.BIN / "graders"), "autograde", opts.assignment, str(subs),
        "--course", str(course), "--db", url, "--out", str(out), *where,
    ]  # fmt: skip
    killer = _Killer(url, int(len(list(subs.iterdir())) * kill_at), str(out)) if kill_at else None
    if killer:
        killer.start()
    done = run_measured(command, cwd=course, interval=0.1)
    if killer:
        killer.stop()
    if done.returncode not in (0, 1):
        raise RuntimeError(f"graders autograde failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return _figures(done, subs, killer, out)


def _figures(done: Measured, subs: Path, killer: _Killer | None, out: Path) -> dict[str, Any]:
    count = len(list(subs.iterdir()))
    students = json.loads((out / "results.json").read_text())["students"]
    figures: dict[str, Any] = {
        "submissions": count,
        "wall_s": round(done.wall_s, 2),
        "per_s": round(count / done.wall_s, 1),
        "steady_per_s": round(steady_rate(done.stderr), 1),
        "tree_rss_mib": round(done.tree_rss_mib),
        "single_rss_mib": round(done.single_rss_mib),
        "cpu_s": round(done.cpu_s, 1),
        "graded_once": len(students) == count and _graded_count(done.stdout) == count,
        "load_after": round(os.getloadavg()[0], 2),
    }
    if killer is not None:
        figures["killed_worker"] = killer.killed
    return figures


def steady_rate(stderr: str) -> float:
    """Submissions per second between 20% and 80% of the progress lines (start-up left out)."""
    points = [
        (int(m.group(1)), int(m.group(1)) / float(m.group(3)))
        for line in stderr.splitlines()
        if (m := PROGRESS.match(line)) and float(m.group(3)) > 0
    ]
    if len(points) < 5:
        return 0.0
    (k1, t1), (k2, t2) = points[len(points) // 5], points[len(points) * 4 // 5]
    return (k2 - k1) / (t2 - t1) if t2 > t1 else 0.0


def _graded_count(stdout: str) -> int:
    found = re.search(r"graded (\d+), skipped", stdout)
    return int(found.group(1)) if found else -1


class _Killer(threading.Thread):
    """Kills one worker process of the run (``kill -9``) once ``at`` grades are saved."""

    def __init__(self, url: str, at: int, tag: str) -> None:
        super().__init__(daemon=True)
        self.url, self.at, self.tag = url, at, tag
        self.killed: int | None = None
        self._done = threading.Event()

    def run(self) -> None:
        from sqlalchemy import create_engine, text

        engine = create_engine(self.url)
        while not self._done.wait(0.2):
            try:
                with engine.connect() as conn:
                    saved = conn.execute(text("select count(*) from submissions")).scalar_one()
            except Exception:  # noqa: BLE001 - the run has not created its tables yet
                continue
            if saved >= self.at and (victim := self._worker()) is not None:
                os.kill(victim, 9)
                self.killed = victim
                break
        engine.dispose()

    def stop(self) -> None:
        self._done.set()
        self.join(timeout=10)

    def _worker(self) -> int | None:
        """A worker process of the run: spawned by the command whose arguments hold the tag."""
        commands = {int(p.name): _cmdline(p) for p in Path("/proc").iterdir() if p.name.isdigit()}
        runs = {pid for pid, cmd in commands.items() if self.tag.encode() in cmd}
        for pid, cmd in commands.items():
            if SPAWNED in cmd and _parent(pid) in runs:
                return pid
        return None


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def text(f: dict[str, Any]) -> str:
    local, cluster, killed, fifth = f["local"], f["cluster"], f["killed"], f["cluster_fifth"]
    # CPU rather than wall time: on a shared machine the wall clock mostly measures the load.
    overhead_ms = 1000 * (cluster["cpu_s"] - local["cpu_s"]) / cluster["submissions"]
    ratio = cluster["steady_per_s"] / local["steady_per_s"]
    lines = [
        f"graders cluster benchmark: torch {f['torch']}, {f['machine']['cpus']} CPUs, load "
        f"average {f['machine']['load_before'][0]} at start; {f['students']} submissions of "
        f"{f['assignment']}, PostgreSQL gradebook",
        "",
        f"{'':34} {'wall':>8} {'subs/s':>7} {'steady/s':>9} {'CPU':>7} {'tree RSS':>9} "
        f"{'largest':>9} {'once':>5}",
    ]
    for label, run in (
        (f"--workers {f['workers']}", local),
        (f"--cluster local:{f['workers']}", cluster),
        ("--cluster, a worker killed at 50%", killed),
        (f"--cluster, {fifth['submissions']} submissions", fifth),
    ):
        lines.append(
            f"{label:34} {run['wall_s']:7.1f}s {run['per_s']:7.1f} {run['steady_per_s']:9.1f} "
            f"{run['cpu_s']:6.0f}s {run['tree_rss_mib']:5d} MiB {run['single_rss_mib']:5d} MiB "
            f"{'yes' if run['graded_once'] else 'NO':>5}"
        )
    lines += [
        "",
        f"cluster / local throughput (steady): {ratio:.2f} "
        f"(whole command: {cluster['per_s'] / local['per_s']:.2f})",
        f"scheduler overhead per submission (CPU, cluster minus local): {overhead_ms:.2f} ms",
        f"surviving a worker killed at 50%: {killed['wall_s'] - cluster['wall_s']:+.1f} s "
        f"(worker pid {killed.get('killed_worker')})",
        f"peak RSS of the tree (largest process), cluster: {fifth['tree_rss_mib']} MiB "
        f"({fifth['single_rss_mib']} MiB) at {fifth['submissions']}, {cluster['tree_rss_mib']} "
        f"MiB ({cluster['single_rss_mib']} MiB) at {cluster['submissions']}",
        f"load average at the end of each run: {local['load_after']}, {cluster['load_after']}, "
        f"{killed['load_after']}, {fifth['load_after']}",
    ]
    return "\n".join(lines)


def _pg_bin() -> Path:
    found = find_bin()
    if found is None:
        raise SystemExit("PostgreSQL is not installed (initdb, pg_ctl): apt-get install postgresql")
    return found


def _say(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def _options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=10_000)
    parser.add_argument("--assignment", default="ps1")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--code-share", type=float, default=0.3)
    parser.add_argument("--hostile-every", type=int, default=0, help="0: no hostile code cells")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write every figure to this file")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main())
