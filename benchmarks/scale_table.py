"""The figures of one ``scale_pipeline.py`` run: its text, the targets, the table of
docs/explanation/performance.md.

    .venv/bin/python benchmarks/scale_table.py bench-scale.json          # the Markdown table
    .venv/bin/python benchmarks/scale_table.py bench-scale.json --text   # the run's report again

Every cell comes from the JSON that ``scale_pipeline.py --json`` wrote, so the performance
page shows what one run measured, not figures typed by hand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

PHASES = ("autograde", "feedback", "report", "export")
CONFIGS = {
    "local": "`--workers {workers}`, SQLite",
    "cluster": "`--cluster local:{workers}`, PostgreSQL",
}
PEAK_GROWTH = 1.2  # the larger class's whole-pipeline peak, at most this times the smaller's
TIME_GROWTH = 12.0  # each phase's time for 10x the learners, at most this times the smaller's
CHECK_TARGET = 2.0  # graders check, at most this times `import yaml, pydantic, click`


def table(f: dict[str, Any]) -> str:
    """The Markdown table: per configuration, each phase's time and peak at each size."""
    small, large = (f"{n:,}" for n in (f["sizes"][0], f["sizes"][-1]))
    lines = [
        f"| {f['assignment']}, {small} and {large} learners | {small} | {large} | "
        f"{large} / {small} |",
        "|---|---|---|---|",
    ]
    for name, label in CONFIGS.items():
        runs = f["configs"].get(name)
        if not runs:
            continue
        first, last = _sizes(runs)
        lines.append(f"| **{label.format(workers=f['workers'])}** | | | |")
        for phase in PHASES:
            a, b = first[phase], last[phase]
            ratio = (
                f"time ×{b['wall_s'] / a['wall_s']:.1f} (CPU ×{b['cpu_s'] / a['cpu_s']:.1f}), "
                f"peak ×{_peak(b) / _peak(a):.2f}"
            )
            lines.append(f"| {phase} | {_cell(a)} | {_cell(b)} | {ratio} |")
        whole = [pipeline_peak(runs[k]) for k in (min(runs, key=int), max(runs, key=int))]
        lines.append(
            f"| whole pipeline, peak of graders' own processes | {_gib(whole[0])} | "
            f"{_gib(whole[1])} | ×{whole[1] / whole[0]:.2f} |"
        )
    check = f["check"]
    lines.append(
        f"| `graders check`, cold (best of {check['runs']}) | {check['check']['best_s']:.2f} s | "
        f"`python -c pass` {check['pass']['best_s']:.2f} s | "
        f"`import yaml, pydantic, click` {check['imports']['best_s']:.2f} s |"
    )
    return "\n".join(lines)


def text(f: dict[str, Any]) -> str:
    """Every figure, as a plain-text report, then the targets met or missed."""
    m = f["machine"]
    lines = [
        f"graders scale benchmark: torch {f['torch']}, {m['cpus']} CPUs, load average "
        f"{m['load_before'][0]} at start, {m.get('load_after', ['?'])[0]} at the end; "
        f"{f['assignment']}, {' and '.join(f'{n:,}' for n in f['sizes'])} learners",
    ]
    if f.get("cluster_left_out"):
        lines.append(f"the cluster runs were left out: {f['cluster_left_out']}")
    for name, runs in f["configs"].items():
        lines += ["", CONFIGS[name].format(workers=f["workers"]).replace("`", "")]
        lines.append(
            f"{'':12} {'learners':>9} {'wall':>9} {'CPU':>8} {'own PSS':>9} {'tree PSS':>9} "
            f"{'load':>5}"
        )
        for size in sorted(runs, key=int):
            for phase in PHASES:
                p = runs[size][phase]
                memory = f"{p['own_pss_mib']:5.0f} MiB {p['tree_pss_mib']:5.0f} MiB"
                lines.append(
                    f"{phase:12} {int(size):9,} {p['wall_s']:8.1f}s {p['cpu_s']:7.1f}s "
                    f"{memory} {p['load_after']:5.2f}"
                )
    check = f["check"]
    lines += [
        "",
        f"graders check, cold, {check['runs']} runs (best / median): "
        + ", ".join(
            f"{name} {check[name]['best_s']:.3f} / {check[name]['median_s']:.3f} s"
            for name in ("check", "pass", "imports")
        ),
        "",
        "targets:",
    ]
    lines += [f"  [{'met ' if ok else 'MISS'}] {line}" for ok, line in targets(f)]
    return "\n".join(lines)


def targets(f: dict[str, Any]) -> list[tuple[bool, str]]:
    """Each target of the issue, met or not (the growth targets are for 10x the learners)."""
    found = []
    for name, runs in f["configs"].items():
        first, last = _sizes(runs)
        small, large = min(runs, key=int), max(runs, key=int)
        grown = pipeline_peak(last) / pipeline_peak(first)
        found.append(
            (
                grown <= PEAK_GROWTH,
                f"{name}: whole pipeline's peak (graders' own) at {int(large):,} learners "
                f"×{grown:.2f} its peak at {int(small):,} (at most ×{PEAK_GROWTH})",
            )
        )
        for phase in PHASES:
            ratio = last[phase]["wall_s"] / first[phase]["wall_s"]
            cpu = last[phase]["cpu_s"] / first[phase]["cpu_s"]
            found.append(
                (
                    ratio <= TIME_GROWTH,
                    f"{name}: {phase} ×{ratio:.1f} the time (at most ×{TIME_GROWTH:g}; "
                    f"CPU time ×{cpu:.1f})",
                )
            )
    check = f["check"]
    ratio = check["check"]["best_s"] / check["imports"]["best_s"]
    found.append(
        (
            ratio <= CHECK_TARGET,
            f'graders check cold ×{ratio:.2f} `python -c "import yaml, pydantic, click"` '
            f"(at most ×{CHECK_TARGET:g})",
        )
    )
    return found


def pipeline_peak(run: dict[str, Any]) -> float:
    """The peak memory of graders' own processes over the pipeline's phases (MiB)."""
    return max(_peak(run[phase]) for phase in PHASES)


def _sizes(runs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return runs[min(runs, key=int)], runs[max(runs, key=int)]


def _peak(phase: dict[str, Any]) -> float:
    return float(phase["own_pss_mib"])


def _cell(phase: dict[str, Any]) -> str:
    return f"{phase['wall_s']:.1f} s, {_gib(_peak(phase))}"


def _gib(mib: float) -> str:
    return f"{mib / 1024:.2f} GiB"


if __name__ == "__main__":
    figures = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    print(text(figures) if "--text" in sys.argv[2:] else table(figures))
