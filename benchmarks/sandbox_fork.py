"""Per-job latency of the sandbox: a small autograd task run through ``open_runner``.

    .venv/bin/python benchmarks/sandbox_fork.py [--jobs 50] [--level bubblewrap] [--gap-ms 50]

Prints, per isolation level, the start-up time of the warm fork server and the latency
of ``Runner.run`` for ``graders.sandbox.selftest:autograd``, both back-to-back and with a
pause between jobs (the pause lets the server finish the previous child's teardown,
as between two exercises of a real grading run). Not a test: numbers depend on the load.
"""

from __future__ import annotations

import argparse
import statistics
import time

from graders.sandbox import Job, SandboxError, open_runner

JOB = Job("graders.sandbox.selftest:autograd", {"values": [1.0, 2.0, 3.0]})


def measure(level: str, jobs: int, gap_s: float) -> None:
    started = time.perf_counter()
    try:
        runner = open_runner(level)
    except SandboxError as exc:
        print(f"{level:>10}: not available ({exc})")
        return
    startup = time.perf_counter() - started
    with runner:
        runner.run(JOB)  # the first job also pays for lazy set-up in the parent
        back_to_back = [_timed(runner) for _ in range(jobs)]
        spaced = []
        for _ in range(jobs):
            time.sleep(gap_s)
            spaced.append(_timed(runner))
    print(
        f"{runner.isolation:>10}: start-up {startup:.2f} s | back-to-back {_summary(back_to_back)} "
        "| "
        f"with {gap_s * 1000:.0f} ms gaps {_summary(spaced)}"
    )


def _timed(runner) -> float:
    started = time.perf_counter()
    outcome = runner.run(JOB)
    elapsed = time.perf_counter() - started
    if outcome.status != "ok" or outcome.result != {"grad": [2.0, 4.0, 6.0]}:
        raise SystemExit(f"unexpected outcome: {outcome}")
    return elapsed * 1000


def _summary(ms: list[float]) -> str:
    ms = sorted(ms)
    return (
        f"median {statistics.median(ms):.1f} ms, p90 {ms[int(len(ms) * 0.9)]:.1f} ms, min "
        f"{ms[0]:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=50)
    parser.add_argument("--level", action="append", help="isolation level(s); default: every level")
    parser.add_argument("--gap-ms", type=float, default=50.0)
    args = parser.parse_args()
    for level in args.level or ["bubblewrap", "unshare", "plain", "unsafe"]:
        measure(level, args.jobs, args.gap_ms / 1000)


if __name__ == "__main__":
    main()
