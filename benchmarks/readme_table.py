"""The performance table of docs/explanation/performance.md, made from the figures of one
``make bench`` run.

    .venv/bin/python benchmarks/readme_table.py bench.json      # prints the Markdown table

Every cell comes from the JSON that ``benchmarks/class_batch.py --json`` wrote, so the
documentation shows what one run measured, not figures typed by hand.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import report

Row = tuple[str, Callable[[dict[str, Any], int], str]]


def _batch(a: dict[str, Any], n: int) -> str:
    wall = a["batch"]["wall_s"]
    return f"{wall:.1f} s, {n / wall:.0f}/s"


def _code(a: dict[str, Any], n: int) -> str:
    medians = [e["median_ms"] for e in a["costs"].get("code_by_exercise", {}).values()]
    if not medians:
        return "-"
    low, high = min(medians), max(medians)
    return f"{low:.0f} ms" if round(low) == round(high) else f"{low:.0f}–{high:.0f} ms"


def _gib(mib: float) -> str:
    return f"{mib / 1024:.2f} GiB"


ROWS: tuple[Row, ...] = (
    ("graders: {n} submissions (whole command)", _batch),
    ("graders: CPU time of the whole process tree", lambda a, n: f"{a['batch']['cpu_s']:.1f} s"),
    (
        "nbgrader: {subset} submissions (whole command)",
        lambda a, n: f"{a['nbgrader']['batch']['wall_s']:.0f} s",
    ),
    ("throughput, graders / nbgrader", lambda a, n: f"{report.throughput_ratio(a, n):.0f}×"),
    (
        "scores on the {subset} graded by both",
        lambda a, n: "identical" if a["nbgrader"]["same_scores"] else "**differ**",
    ),
    ("reading a notebook (median)", lambda a, n: f"{a['costs']['read']['median_ms']:.1f} ms"),
    (
        "all predictions of a submission (median)",
        lambda a, n: f"{a['costs']['predictions']['median_ms']:.1f} ms",
    ),
    ("one code exercise graded alone (median)", _code),
    ("{n} vs {base} submissions", lambda a, n: f"×{report.growth(a):.2f}"),
    ("peak memory (PSS of the process tree)", lambda a, n: _gib(a["memory"]["tree_pss_mib"])),
    ("of which graders' own processes", lambda a, n: _gib(a["memory"]["own_pss_mib"])),
)


def table(figures: dict[str, Any]) -> str:
    """The Markdown table: one column per assignment, one row per figure."""
    assignments = figures["assignments"]
    first = next(iter(assignments.values()))
    n = figures["students"]
    names = {
        "n": n,
        "subset": len(first["nbgrader"]["subset"]),
        "base": first.get("growth", {}).get("base", "-"),
    }
    lines = [
        "| | " + " | ".join(assignments) + " |",
        "|---|" + "---|" * len(assignments),
    ]
    for label, cell in ROWS:
        cells = [cell(a, n) for a in assignments.values()]
        lines.append(f"| {label.format(**names)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))))
