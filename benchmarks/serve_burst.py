"""Benchmark: a burst of learners handing ps1 in to ``graders serve``, beside one ``graders
autograde`` of the same notebooks.

    .venv/bin/python benchmarks/serve_burst.py                  # 500 learners within 60 s
    .venv/bin/python benchmarks/serve_burst.py --learners 40 --within 10    # a quick look
    .venv/bin/python benchmarks/serve_burst.py --cluster local:2   # grading on a Dask cluster

1. copy the repository's course, ``graders release ps1`` (truths computed and cached) and
   fill the released notebook for N synthetic learners (``synth``: the class benchmark's
   mix, a few hostile code cells among them);
2. start ``graders serve --workers W`` (or ``--cluster SPEC``: its workers grade; a SQLite
   gradebook in the work folder) and mint the N learners' tokens with ``graders token``;
3. the burst: each learner uploads at a moment drawn uniformly within ``--within`` s and
   waits for the grade (the API's long-poll); latency is from the upload's first byte to
   the grade read, on the client's clock. An upload that is refused or fails is an error
   (a GET of the grade is sent again after a transport error, an upload never); one
   accepted and not graded within ``--patience`` s is lost;
4. the sustained rate: every learner uploads again, all at once; submissions per second
   from the first upload to the last grade read;
5. ``graders autograde ps1`` of the same N notebooks, ``--workers W`` (or ``--cluster
   SPEC``, the same cluster): submissions per
   second of the whole command, and of its grading alone (the difference with a run of
   ``--small`` notebooks: the start-up, paid once, left out); and the scores the service
   gave in the burst are compared with autograde's, learner by learner.

Client and server share the machine's CPUs (the figures include the client's cost).
Prints the figures; ``--json FILE`` keeps them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import report  # noqa: E402
import synth  # noqa: E402
from class_batch import course_facts, graders_cli  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
COURSE_FILES = ("course.yml", "exercises", "solutions", "checkers")
ASSIGNMENT = "ps1"
RETRIES = 3  # a grade's GET sent again after a transport error (an upload never is)


@dataclass(frozen=True)
class Outcome:
    """One upload, from the learner's side."""

    learner: str
    attempt: int | None = None
    latency_s: float | None = None  # upload sent -> grade read
    status: str | None = None  # graded | failed
    score: float | None = None
    error: str | None = None  # refused, or the connection failed
    lost: bool = False  # accepted, never graded within the patience


def main(argv: list[str] | None = None) -> int:
    opts = _options(argv)
    work = Path(tempfile.mkdtemp(prefix="graders-serve-bench-"))
    figures: dict[str, Any] = {
        "command": " ".join(["benchmarks/serve_burst.py", *(argv or sys.argv[1:])]),
        "machine": report.machine(),
        "learners": opts.learners,
        "within_s": opts.within,
        "workers": opts.workers,
        "cluster": opts.cluster,
    }
    try:
        course, notebooks = prepare(work, opts)
        db = f"sqlite:///{work / 'served.db'}"
        tokens = mint(course, list(notebooks), db)
        with serving(course, db, grading_options(opts), work / "serve.log") as url:
            _say(f"burst: {opts.learners} learners within {opts.within:g} s")
            rng = random.Random(opts.seed)
            offsets = sorted(rng.uniform(0, opts.within) for _ in notebooks)
            burst = asyncio.run(run_learners(url, tokens, notebooks, offsets, opts.patience))
            _say("sustained: every learner again, all at once")
            started = time.monotonic()
            again = asyncio.run(
                run_learners(url, tokens, notebooks, [0.0] * len(notebooks), opts.patience)
            )
            sustained_s = time.monotonic() - started
        figures["burst"] = summary(burst)
        figures["sustained"] = summary(again) | {
            "wall_s": round(sustained_s, 2),
            "per_s": round(len(notebooks) / sustained_s, 1),
        }
        figures["server"] = server_side(work / "served.db", {"burst": burst, "sustained": again})
        figures["autograde"], scores = autograde(course, work, notebooks, opts)
        figures["same_scores"] = same_scores(burst, scores)
        print_figures(figures)
        if opts.json:
            opts.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        ok = figures["burst"]["errors"] == figures["burst"]["lost"] == 0
        return 0 if ok and figures["same_scores"]["differ"] == [] else 1
    finally:
        if not opts.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            _say(f"kept {work}")


def prepare(work: Path, opts: argparse.Namespace) -> tuple[Path, dict[str, bytes]]:
    """The course copied and ps1 released; each learner's notebook, by learner id."""
    course = work / "course"
    for name in COURSE_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, course / name)
        else:
            course.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, course / name)
    _say("graders release ps1 (truths computed and cached)")
    graders_cli(course, "release", ASSIGNMENT)
    key = json.loads(graders_cli(course, "key", ASSIGNMENT, "--json").stdout)
    released = json.loads((course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    wrong, entries = course_facts(course, ASSIGNMENT)
    cohort = synth.students(opts.learners, seed=opts.seed)
    notebooks = {
        s.id: json.dumps(synth.fill(released, s, key, wrong, entries, opts.seed)).encode()
        for s in cohort
    }
    return course, notebooks


def mint(course: Path, learners: list[str], db: str) -> dict[str, str]:
    done = graders_cli(course, "token", *learners, "--db", db)
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())


def grading_options(opts: argparse.Namespace) -> list[str]:
    """Where ``serve`` and ``autograde`` grade: ``--workers W``, or ``--cluster SPEC`` (with
    ``--workers`` only when it was given: serve's default follows the cluster's threads)."""
    workers = [] if opts.workers is None else ["--workers", str(opts.workers)]
    return ["--cluster", opts.cluster, *workers] if opts.cluster else workers


class serving:
    """``graders serve`` on a free loopback port, stopped with SIGTERM at the end."""

    def __init__(self, course: Path, db: str, grading: list[str], log: Path) -> None:
        self.course, self.db, self.grading, self.log = course, db, grading, log
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> str:
        import httpx

        args = ["--port", str(self.port), "--db", self.db, *self.grading]
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "graders", "serve", *args],
                cwd=self.course,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        url = f"http://127.0.0.1:{self.port}"
        for _ in range(600):
            try:
                if httpx.get(f"{url}/api/ready", timeout=2).status_code == 200:
                    return url  # warm: truths prepared, sandbox started
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"graders serve did not start:\n{self.log.read_text()}")

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(120)
        if code != 0:
            raise RuntimeError(f"graders serve exited {code}:\n{self.log.read_text()[-3000:]}")


async def run_learners(
    url: str,
    tokens: dict[str, str],
    notebooks: dict[str, bytes],
    offsets: list[float],
    patience: float,
) -> list[Outcome]:
    """Each learner uploads at their offset (seconds from now) and waits for the grade."""
    import httpx

    limits = httpx.Limits(max_connections=None, max_keepalive_connections=200)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        start = time.monotonic() + 0.5
        learners = [
            learner(client, name, tokens[name], notebooks[name], start + offset, patience)
            for name, offset in zip(notebooks, offsets, strict=True)
        ]
        return list(await asyncio.gather(*learners))


async def learner(
    client: Any, name: str, token: str, notebook: bytes, at: float, patience: float
) -> Outcome:
    import httpx

    await asyncio.sleep(max(0.0, at - time.monotonic()))
    headers = {"Authorization": f"Bearer {token}"}
    sent = time.monotonic()
    try:
        answer = await client.post(
            f"/api/assignments/{ASSIGNMENT}/submissions",
            files={"notebook": (f"{ASSIGNMENT}.ipynb", notebook, "application/x-ipynb+json")},
            headers=headers,
        )
    except httpx.HTTPError as exc:
        return Outcome(name, error=f"upload: {type(exc).__name__}: {exc}")
    if answer.status_code != 202:
        return Outcome(name, error=f"upload: {answer.status_code}: {answer.text[:200]}")
    attempt = int(answer.json()["id"])
    failures = 0
    while time.monotonic() - sent < patience:
        try:
            read = await client.get(f"/api/submissions/{attempt}?wait=30", headers=headers)
        except httpx.TransportError as exc:
            # A GET may be sent again, as any client does: a pooled connection the server
            # closed for idling is the client's affair, not a lost grade.
            failures += 1
            if failures > RETRIES:
                return Outcome(name, attempt, error=f"reading: {type(exc).__name__}: {exc}")
            continue
        data = read.json()
        if data["status"] in ("graded", "failed"):
            latency = time.monotonic() - sent
            return Outcome(name, attempt, latency, data["status"], data["score"])
    return Outcome(name, attempt, lost=True)


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    latencies = sorted(o.latency_s for o in outcomes if o.latency_s is not None)
    return {
        "graded": sum(o.status == "graded" for o in outcomes),
        "failed": sum(o.status == "failed" for o in outcomes),
        "errors": sum(o.error is not None for o in outcomes),
        "lost": sum(o.lost for o in outcomes),
        "error_samples": [o.error for o in outcomes if o.error][:5],
        "latency_s": {
            "p50": _quantile(latencies, 0.50),
            "p95": _quantile(latencies, 0.95),
            "p99": _quantile(latencies, 0.99),
            "max": round(latencies[-1], 3) if latencies else None,
        },
        "outcomes": [asdict(o) for o in outcomes],
    }


def server_side(db: Path, phases: dict[str, list[Outcome]]) -> dict[str, Any]:
    """What the server's gradebook says of each phase's attempts: grading and waiting times."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        rows = {
            attempt: (seconds, through)
            for attempt, seconds, through in conn.execute(
                "select id, seconds, (julianday(graded_at) - julianday(received_at)) * 86400 "
                "from attempts where status = 'graded'"
            )
        }
    found = {}
    for phase, outcomes in phases.items():
        mine = [rows[o.attempt] for o in outcomes if o.attempt in rows]
        grading = sorted(g for g, _ in mine)
        through = sorted(t for _, t in mine)
        found[phase] = {
            "graded": len(mine),
            "grading_s": {"p50": _quantile(grading, 0.5), "p99": _quantile(grading, 0.99)},
            "received_to_graded_s": {
                "p50": _quantile(through, 0.5),
                "p99": _quantile(through, 0.99),
            },
        }
    return found


def autograde(
    course: Path, work: Path, notebooks: dict[str, bytes], opts: argparse.Namespace
) -> tuple[dict[str, Any], dict[str, float]]:
    """``graders autograde`` of the same notebooks (and of ``--small`` of them): its rates,
    and each learner's score."""
    timed = {}
    for label, count in (("small", opts.small), ("all", len(notebooks))):
        folder = work / f"submissions-{label}"
        for name in list(notebooks)[:count]:
            (folder / name).mkdir(parents=True)
            (folder / name / f"{ASSIGNMENT}.ipynb").write_bytes(notebooks[name])
        _say(f"graders autograde of {count} notebooks")
        out = work / f"autograded-{label}"
        done = graders_cli(
            course,
            "autograde",
            ASSIGNMENT,
            str(folder),
            *grading_options(opts),
            "--db",
            f"sqlite:///{work / f'autograde-{label}.db'}",
            "--out",
            str(out),
            check=False,
        )
        if done.returncode not in (0, 1):
            raise RuntimeError(f"graders autograde failed:\n{done.stderr[-3000:]}")
        timed[label] = (count, done.wall_s, done.cpu_s, out)
    (small, small_s, _, _), (count, wall_s, cpu_s, out) = timed["small"], timed["all"]
    results = json.loads((out / "results.json").read_text())
    scores = {s["student"]: s["score"] for s in results["students"]}
    grading_s = wall_s - small_s
    return {
        "wall_s": round(wall_s, 2),
        "cpu_s": round(cpu_s, 2),
        "per_s": round(count / wall_s, 1),
        "grading_per_s": round((count - small) / grading_s, 1) if grading_s > 0 else None,
        "small": small,
        "small_wall_s": round(small_s, 2),
    }, scores


def same_scores(burst: list[Outcome], scores: dict[str, float]) -> dict[str, Any]:
    differ = [
        f"{o.learner}: served {o.score}, autograde {scores.get(o.learner)}"
        for o in burst
        if o.status == "graded" and abs((o.score or 0.0) - scores.get(o.learner, -1.0)) > 1e-6
    ]
    return {"compared": sum(o.status == "graded" for o in burst), "differ": differ[:20]}


def print_figures(f: dict[str, Any]) -> None:
    burst, sustained, auto = f["burst"], f["sustained"], f["autograde"]
    lat = burst["latency_s"]
    where = f"--cluster {f['cluster']}" if f["cluster"] else f"--workers {f['workers']}"
    print(
        f"graders serve, {ASSIGNMENT}: {f['learners']} learners uploading within "
        f"{f['within_s']:g} s, {where} ({f['machine']['cpus']} CPUs, load "
        f"average before {f['machine']['load_before'][0]})"
    )
    print(
        f"  upload-to-feedback latency: p50 {lat['p50']} s, p95 {lat['p95']} s, "
        f"p99 {lat['p99']} s, max {lat['max']} s"
    )
    print(
        f"  graded {burst['graded']}, failed {burst['failed']}, errors {burst['errors']}, "
        f"lost {burst['lost']}"
    )
    for sample in burst["error_samples"]:
        print(f"    error: {sample}")
    server = f["server"]["burst"]
    print(
        f"  on the server: grading p50 {server['grading_s']['p50']} s, p99 "
        f"{server['grading_s']['p99']} s; received to graded p50 "
        f"{server['received_to_graded_s']['p50']} s, p99 {server['received_to_graded_s']['p99']} s"
    )
    print(
        f"  sustained, all {f['learners']} at once: {sustained['per_s']} submissions/s "
        f"({sustained['wall_s']} s; errors {sustained['errors']}, lost {sustained['lost']})"
    )
    print(
        f"  graders autograde of the same {f['learners']}: {auto['per_s']} submissions/s for the "
        f"whole command ({auto['wall_s']} s), {auto['grading_per_s']} submissions/s grading "
        f"alone (less a run of {auto['small']}: {auto['small_wall_s']} s)"
    )
    same = f["same_scores"]
    verdict = "identical" if not same["differ"] else f"{len(same['differ'])} differ"
    print(f"  scores, served vs autograde, {same['compared']} learners: {verdict}")
    for line in same["differ"]:
        print(f"    {line}")


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    return round(values[min(len(values) - 1, int(q * len(values)))], 3)


def _say(text: str) -> None:
    print(f"[bench] {text}", file=sys.stderr, flush=True)


def _options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=500, help="learners (default 500)")
    parser.add_argument(
        "--within", type=float, default=60.0, help="seconds the burst is spread over (60)"
    )
    parser.add_argument(
        "--workers", type=int, default=None, help="--workers (default: CPUs; see --cluster)"
    )
    parser.add_argument(
        "--cluster",
        default=None,
        metavar="SPEC",
        help="grade on a Dask cluster (local:N, or a scheduler's address), in the service and "
        "in autograde; --workers then only if given",
    )
    parser.add_argument(
        "--patience", type=float, default=600.0, help="seconds before a grade is lost (600)"
    )
    parser.add_argument(
        "--small", type=int, default=20, help="autograde's start-up run: notebooks (20)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    opts = parser.parse_args(argv)
    if opts.workers is None and opts.cluster is None:
        opts.workers = os.cpu_count() or 1
    return opts


if __name__ == "__main__":
    sys.exit(main())
