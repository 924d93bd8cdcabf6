"""The benchmark's figures as text: tables per assignment, then each target met or missed.

.venv/bin/python benchmarks/report.py bench.json  # print a saved run (class_batch.py --json) again
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from proctree import Measured

# The performance targets, with every protection of the trust boundary on.
TARGET_RATIO = {"ps1": 150.0, "ps2": 150.0, "ps3": 200.0}  # x nbgrader, whole command
DEFAULT_RATIO = 150.0
TARGET_PREDICTIONS_MS = 5.0
TARGET_CODE_MS = 60.0
TARGET_COURSE_S = 30.0  # 1,500 submissions, hostile ones included, on 2 cores
TARGET_PEAK_MIB = 1536.0
GROWTH_SLACK = 1.1  # N submissions cost at most 1.1 x (N / base) what base cost: linear


def machine() -> dict[str, Any]:
    """What the figures were measured on (the load average says how busy it was)."""
    return {"cpus": os.cpu_count(), "load_before": [round(x, 2) for x in os.getloadavg()]}


def torch_version() -> str:
    """The installed torch version, without importing torch."""
    from importlib.metadata import version

    return version("torch")


def measured(m: Measured) -> dict[str, Any]:
    """A measured command as JSON-ready figures."""
    return {
        "wall_s": round(m.wall_s, 3),
        "cpu_s": round(m.cpu_s, 3),
        "tree_pss_mib": round(m.tree_pss_mib, 1),
        "own_pss_mib": round(m.own_pss_mib, 1),
        "tree_rss_mib": round(m.tree_rss_mib, 1),
        "single_rss_mib": round(m.single_rss_mib, 1),
        "rusage_maxrss_mib": round(m.rusage_maxrss_mib, 1),
        "processes": m.peak_processes,
        "load_after": round(os.getloadavg()[0], 2),
    }


def mix(cohort: Iterable[Any]) -> dict[str, int]:
    """How many students do what with their code cells."""
    return dict(Counter(s.code for s in cohort))


def text(f: dict[str, Any]) -> str:
    """Every figure, as a plain-text report."""
    lines = [
        f"graders benchmark: torch {f.get('torch', '?')}, {f['machine']['cpus']} CPUs, "
        f"load average {f['machine']['load_before'][0]} at start",
        f"command: .venv/bin/python {f['command']}",
        f"{f['students']} submissions per assignment, graders autograde --workers {f['workers']}; "
        "code cells: "
        + ", ".join(
            f"{n} {k}"
            for k, n in sorted(next(iter(f["assignments"].values()), {}).get("mix", {}).items())
        ),
        "",
    ]
    lines += _batches(f)
    lines += _costs(f)
    lines += _extras(f)
    lines += ["", "targets:"] + [
        f"  [{'met ' if ok else 'MISS'}] {line}" for ok, line in targets(f)
    ]
    return "\n".join(lines)


def _batches(f: dict[str, Any]) -> list[str]:
    rows = [
        "           graders autograde, N submissions          | memory (untimed run)              "
        "| nbgrader autograde, subset",
        "batch      wall    sub/s   CPU s  median/sub | peak PSS  grader's own  1-proc RSS |  n    "
        "wall   sub/s  median/sub | ratio  scores",
    ]
    for name, a in f["assignments"].items():
        b, m, n = a["batch"], a["memory"], f["students"]
        ours = a["costs"]["submission"].get("median_ms", float("nan"))
        row = (
            f"{name:<6} {b['wall_s']:>7.1f}s {n / b['wall_s']:>8.1f} {b['cpu_s']:>7.1f} "
            f"{ours:>9.1f}ms | {m['tree_pss_mib']:>7.0f}M "
            f"{m['own_pss_mib']:>12.0f}M {m['single_rss_mib']:>10.0f}M |"
        )
        nb = a.get("nbgrader")
        if nb:
            k = len(nb["subset"])
            median = _median(list(nb["per_submission_s"].values()))
            row += (
                f" {k:>2} {nb['batch']['wall_s']:>6.0f}s {k / nb['batch']['wall_s']:>7.3f} "
                f"{median:>10.1f}s"
                f" | {throughput_ratio(a, n):>4.0f}x  "
                f"{'same' if nb['same_scores'] else 'DIFFER: ' + str(nb['differ'])}"
            )
        rows.append(row)
    return rows


def _costs(f: dict[str, Any]) -> list[str]:
    rows = [
        "",
        "per submission, one process, warm (median / p90 ms): read = notebook JSON -> answers; "
        "predictions = all of them once truths are known",
        "batch      read            predictions (questions)   code exercise       hostile code (n) "
        "  whole submission",
    ]
    for name, a in f["assignments"].items():
        c = a["costs"]
        rows.append(
            f"{name:<10} {_mp(c['read']):<15} {_mp(c['predictions']):<15} ({c['questions']:>3})    "
            " "
            f"{_mp(c['code']):<19} {_mp(c['code_hostile'], p90=False)} "
            f"({c['code_hostile']['n']})".ljust(96)
            + f" {_mp(c['submission'])}"
        )
    return rows


def _extras(f: dict[str, Any]) -> list[str]:
    rows = [""]
    for name, a in f["assignments"].items():
        g = a.get("growth")
        if g:
            rows.append(
                f"growth {name}: {g['base']} submissions {g['batch']['wall_s']:.1f}s, "
                f"{f['students']} submissions "
                f"{a['batch']['wall_s']:.1f}s: x{growth(a):.2f}"
            )
        sc = a.get("scale")
        if sc:
            rows.append(
                f"scale {name}: {sc['students']} submissions ({sc['hostile']} hostile) "
                f"{sc['batch']['wall_s']:.1f}s, CPU {sc['batch']['cpu_s']:.1f}s, "
                f"x{scale(a, f['students']):.2f} the time of {f['students']}; "
                f"peak PSS {sc['memory']['tree_pss_mib']:.0f}M "
                f"(the grader's own {sc['memory']['own_pss_mib']:.0f}M)"
            )
    names = ", ".join(f["assignments"])
    summed = sum(a["batch"]["wall_s"] for a in f["assignments"].values())
    course = f.get("course")
    if course:
        tame = course["without_hostile"]
        rows.append(
            f"course: {course['submissions']} submissions ({names}) in one graders autograde: "
            f"{course['batch']['wall_s']:.1f}s, CPU {course['batch']['cpu_s']:.1f}s; without "
            f"the {course['hostile']} hostile ones {tame['wall_s']:.1f}s, CPU "
            f"{tame['cpu_s']:.1f}s"
        )
    rows.append(
        f"course: the {len(f['assignments'])} graders autograde runs above (each a fresh "
        f"process, one assignment each), summed: {summed:.1f}s"
    )
    check = f.get("check")
    if check:
        rows.append(
            f"graders check (cold start, {check['runs']} runs): first {check['first_s']:.2f}s, "
            f"median {check['median_s']:.2f}s"
        )
    one = f.get("one_notebook")
    if one:
        rows.append(
            f"graders ci of one notebook ({one['runs']} runs, alternated): median "
            f"{one['ci_median_s']:.2f}s against {one['import_torch_median_s']:.2f}s for "
            f"`import torch` alone: {one['ratio']:.1f}x"
        )
    return rows


def targets(f: dict[str, Any]) -> list[tuple[bool, str]]:
    """(met, what) for every target of the issue that this run measured."""
    found: list[tuple[bool, str]] = []
    n = f["students"]
    for name, a in f["assignments"].items():
        nb = a.get("nbgrader")
        if nb:
            ratio, wanted = throughput_ratio(a, n), TARGET_RATIO.get(name, DEFAULT_RATIO)
            found.append(
                (
                    ratio >= wanted and nb["same_scores"],
                    f"{name}: throughput {ratio:.0f}x nbgrader's (>= {wanted:g}x), scores "
                    + ("identical" if nb["same_scores"] else "DIFFER")
                    + f" on {len(nb['subset'])} submissions",
                )
            )
        pred = a["costs"]["predictions"]
        found.append(
            (
                pred["median_ms"] <= TARGET_PREDICTIONS_MS,
                f"{name}: predictions {pred['median_ms']:.2f} ms per submission "
                f"(median; p90 {pred['p90_ms']:.2f}) <= {TARGET_PREDICTIONS_MS:g} ms",
            )
        )
        for ex_id, code in a["costs"].get("code_by_exercise", {}).items():
            found.append(
                (
                    code["median_ms"] <= TARGET_CODE_MS,
                    f"{name}: code exercise {ex_id} {code['median_ms']:.1f} ms "
                    f"(median of {code['n']}; p90 {code['p90_ms']:.1f}) <= {TARGET_CODE_MS:g} ms",
                )
            )
        peak, own = a["memory"]["tree_pss_mib"], a["memory"]["own_pss_mib"]
        found.append(
            (
                peak <= TARGET_PEAK_MIB,
                f"{name}: peak memory of the {n}-submission batch {peak:.0f} MiB "
                f"(PSS of the process tree; the grader's own {own:.0f} MiB) <= {TARGET_PEAK_MIB:g} "
                "MiB",
            )
        )
        if a.get("growth"):
            limit = GROWTH_SLACK * n / a["growth"]["base"]
            found.append(
                (
                    growth(a) <= limit,
                    f"{name}: {n} submissions take x{growth(a):.2f} the time of "
                    f"{a['growth']['base']} (<= x{limit:.2f})",
                )
            )
        sc = a.get("scale")
        if sc:
            limit = GROWTH_SLACK * sc["students"] / n
            peak = sc["memory"]["tree_pss_mib"]
            found += [
                (
                    scale(a, n) <= limit,
                    f"{name}: {sc['students']} submissions take x{scale(a, n):.2f} the time of "
                    f"{n} (<= x{limit:.2f})",
                ),
                (
                    peak <= TARGET_PEAK_MIB,
                    f"{name}: peak memory of the {sc['students']}-submission batch {peak:.0f} MiB "
                    f"<= {TARGET_PEAK_MIB:g} MiB",
                ),
            ]
    total = course_total(f)
    found.append(
        (
            total < TARGET_COURSE_S,
            f"course: {n * len(f['assignments'])} submissions in {total:.1f}s "
            f"with {f['workers']} workers (< {TARGET_COURSE_S:g}s for 1,500)",
        )
    )
    return found


def throughput_ratio(a: dict[str, Any], n: int) -> float:
    """graders' submissions per second over nbgrader's, each over its own batch."""
    nb = a["nbgrader"]
    return (n / a["batch"]["wall_s"]) / (len(nb["subset"]) / nb["batch"]["wall_s"])


def growth(a: dict[str, Any]) -> float:
    return a["batch"]["wall_s"] / a["growth"]["batch"]["wall_s"]


def scale(a: dict[str, Any], n: int) -> float:
    """The scaled class's time over the main batch's (``n`` submissions)."""
    return float(a["scale"]["batch"]["wall_s"] / a["batch"]["wall_s"])


def course_total(f: dict[str, Any]) -> float:
    """The whole course's time: one command over every assignment where it was run, else
    the assignments' runs summed."""
    if "course" in f:
        return float(f["course"]["batch"]["wall_s"])
    return sum(a["batch"]["wall_s"] for a in f["assignments"].values())


def _mp(stats: dict[str, Any], p90: bool = True) -> str:
    if not stats.get("n"):
        return "-"
    return (
        f"{stats['median_ms']:.1f} / {stats['p90_ms']:.1f}" if p90 else f"{stats['median_ms']:.0f}"
    )


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else float("nan")


if __name__ == "__main__":
    print(text(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))))
