"""Chart geometry: numbers only. The SVG itself is written by the Jinja2 templates.

Each function turns aggregated data into the positions and sizes a template draws, in
the SVG's own user units (its ``viewBox``), so the charts scale with the page.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..exports.status_names import status_name
from ..i18n import _, ngettext
from .aggregate import QUESTION_STATUSES, Bin, ScoreStats
from .misconceptions import Cooccurrence

CHAR_WIDTH = 7.0  # a 12px sans-serif character, on average, for laying out labels
TEXT_HEIGHT = 12.0  # a 12px label, baseline to top
MARKER_ROW = 22.0  # one row of marker labels (mean, median) above the histogram's bars


@dataclass(frozen=True)
class Rect:
    """A bar or a cell, with what it stands for."""

    x: float
    y: float
    w: float
    h: float
    count: int
    label: str
    css: str = ""  # a class name: a status, or "diag" for a heatmap's diagonal
    opacity: float = 1.0


@dataclass(frozen=True)
class Tick:
    """An axis label at a position; ``minor`` ones hide on narrow screens."""

    at: float
    label: str
    minor: bool = False


@dataclass(frozen=True)
class Marker:
    """A vertical line across the plot (mean, median) with its label row, above the bars."""

    x: float
    label: str
    css: str
    row: int
    text_y: float  # the label's baseline
    line_top: float  # where its line starts, under its label


@dataclass(frozen=True)
class Frame:
    """The viewBox and plot area of a chart."""

    width: float
    height: float
    left: float
    top: float
    right: float
    bottom: float


@dataclass(frozen=True)
class Histogram:
    """A score histogram."""

    frame: Frame
    bars: tuple[Rect, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    markers: tuple[Marker, ...]
    x_title: str


def histogram_chart(stats: ScoreStats, width: float = 600, height: float = 280) -> Histogram:
    """Bars of graded submissions per score range, with mean and median lines."""
    rows = (("mean", _("mean"), stats.mean), ("median", _("median"), stats.median))
    # The bars start under the last marker label and the tallest bar's count above them:
    # a count never meets a label, at any width (the chart scales as one picture).
    first_baseline = 6 + TEXT_HEIGHT
    top = first_baseline + MARKER_ROW * (len(rows) - 1) + 8 + TEXT_HEIGHT + 4
    frame = Frame(width, height, 44, top, width - 16, height - 44)
    bins = stats.bins or (Bin(0.0, 1.0, 0),)
    top = bins[-1].hi

    def x_of(score: float) -> float:
        return frame.left + score / top * (frame.right - frame.left)

    y_max, y_ticks = _count_axis(max(b.count for b in bins), frame)
    bars = tuple(_bar(frame, x_of(b.lo), x_of(b.hi) - x_of(b.lo), b, y_max) for b in bins)
    x_ticks = _score_ticks([b.lo for b in bins] + [top], x_of)
    markers = tuple(
        Marker(
            x_of(value),
            f"{label} {number(value)}",
            name,
            row,
            first_baseline + MARKER_ROW * row,
            first_baseline + MARKER_ROW * row + 6,
        )
        for row, (name, label, value) in enumerate(rows)
        if value is not None
    )
    return Histogram(
        frame,
        bars,
        x_ticks,
        y_ticks,
        markers,
        _("score (out of {max})").format(max=number(stats.max_score)),
    )


def stacked_bar(counts: Mapping[str, int], total: int) -> tuple[Rect, ...]:
    """One question's statuses as segments of a 100-unit bar, in the fixed status order."""
    segments, x = [], 0.0
    for status in QUESTION_STATUSES:
        n = counts.get(status, 0)
        if n and total:
            w = 100.0 * n / total
            label = _("{status}: {n} of {total} ({share})").format(
                status=status_name(status), n=n, total=total, share=f"{n / total:.0%}"
            )
            segments.append(Rect(x, 0.0, w, 10.0, n, label, status))
            x += w
    return tuple(segments)


def share_bar(count: int, total: int) -> Rect:
    """A single bar of ``count`` out of ``total`` on a 100-unit scale."""
    share = count / total if total else 0.0
    label = _("{n} of {total} ({share})").format(n=count, total=total, share=f"{share:.0%}")
    return Rect(0.0, 0.0, 100.0 * share, 10.0, count, label)


@dataclass(frozen=True)
class Heatmap:
    """A symmetric matrix: rows labelled ``1 name``, columns by number."""

    frame: Frame
    cell: float
    names: tuple[str, ...]
    cells: tuple[Rect, ...]


def heatmap_chart(co: Cooccurrence, cell: float = 30) -> Heatmap:
    """Cells shaded by how many students hold both misconceptions; the diagonal shows holders."""
    n = len(co.names)
    left = 12 + CHAR_WIDTH * (3 + max((len(name) for name in co.names), default=0))
    frame = Frame(left + n * cell + 4, 24 + n * cell + 4, left, 24, left + n * cell, 24 + n * cell)
    off = [co.counts[i][j] for i in range(n) for j in range(n) if i != j]
    peak = max(off, default=0) or 1
    cells = tuple(
        Rect(
            left + j * cell,
            frame.top + i * cell,
            cell - 2,
            cell - 2,
            co.counts[i][j],
            _pair_label(co, i, j),
            "diag" if i == j else "pair",
            1.0 if i == j else 0.12 + 0.88 * co.counts[i][j] / peak,
        )
        for i in range(n)
        for j in range(n)
    )
    return Heatmap(frame, cell, co.names, cells)


@dataclass(frozen=True)
class Series:
    """A line through one value per assignment."""

    name: str
    css: str
    points: tuple[tuple[float, float, str], ...]  # x, y, label
    labelled: bool  # the first series carries value labels; the others would overlap it


@dataclass(frozen=True)
class Trend:
    """A line chart of shares (0..1) across assignments."""

    frame: Frame
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    series: tuple[Series, ...]


def trend_chart(
    labels: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    width: float = 600,
    height: float = 260,
) -> Trend:
    """Shares per assignment as lines; gaps where an assignment has no value."""
    frame = Frame(width, height, 64, 24, width - 28, height - 40)
    step = (frame.right - frame.left) / max(len(labels) - 1, 1)
    xs = [
        frame.left + (i * step if len(labels) > 1 else (frame.right - frame.left) / 2)
        for i in range(len(labels))
    ]

    def y_of(share: float) -> float:
        return frame.bottom - share * (frame.bottom - frame.top)

    y_ticks = tuple(Tick(y_of(p / 100), f"{p}%") for p in range(0, 101, 25))
    lines = tuple(
        Series(
            name,
            f"s{k}",
            tuple((xs[i], y_of(v), f"{v:.0%}") for i, v in enumerate(values) if v is not None),
            k == 0,
        )
        for k, (name, values) in enumerate(series.items())
    )
    return Trend(
        frame, tuple(Tick(x, label) for x, label in zip(xs, labels, strict=True)), y_ticks, lines
    )


def _score_ticks(edges: list[float], x_of: Callable[[float], float]) -> tuple[Tick, ...]:
    # Every other label is minor when there are many; so is one crowding the final total.
    every = 1 if len(edges) <= 9 else 2
    crowded = len(edges) > 2 and (edges[-1] - edges[-2]) < 0.6 * every * (edges[1] - edges[0])
    last = len(edges) - 1
    return tuple(
        Tick(
            x_of(e), number(e), minor=i != last and (i % every != 0 or (crowded and i == last - 1))
        )
        for i, e in enumerate(edges)
    )


def _count_axis(peak: int, frame: Frame) -> tuple[int, tuple[Tick, ...]]:
    step = max(1, math.ceil(peak / 4))
    top = step * max(1, math.ceil(peak / step))
    ticks = tuple(
        Tick(frame.bottom - k / top * (frame.bottom - frame.top), str(k))
        for k in range(0, top + 1, step)
    )
    return top, ticks


def _bar(frame: Frame, x: float, slot: float, b: Bin, y_max: int) -> Rect:
    h = (frame.bottom - frame.top) * b.count / y_max
    gap = min(4.0, slot * 0.15)
    label = ngettext(
        "{n} student scored {lo}–{hi}", "{n} students scored {lo}–{hi}", b.count
    ).format(n=b.count, lo=number(b.lo), hi=number(b.hi))
    return Rect(x + gap / 2, frame.bottom - h, slot - gap, h, b.count, label)


def _pair_label(co: Cooccurrence, i: int, j: int) -> str:
    a, b, n = co.names[i], co.names[j], co.counts[i][j]
    students = ngettext("{n} student", "{n} students", n).format(n=n)
    return f"{a}: {students}" if i == j else f"{a} + {b}: {students}"


def number(x: float) -> str:
    """A number as people write it: 7, 7.5, 6.33."""
    return f"{x:.2f}".rstrip("0").rstrip(".") if abs(x - round(x)) > 1e-9 else str(int(round(x)))
