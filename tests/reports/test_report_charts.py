"""Chart geometry: the numbers the SVG templates draw."""

from __future__ import annotations

import pytest

from graders.reports.aggregate import ScoreStats, histogram
from graders.reports.charts import heatmap_chart, histogram_chart, number, stacked_bar, trend_chart
from graders.reports.misconceptions import Cooccurrence


def stats_of(scores: list[float], top: float) -> ScoreStats:
    ordered = sorted(scores)
    mean = sum(scores) / len(scores)
    return ScoreStats(
        len(scores),
        top,
        mean,
        ordered[len(ordered) // 2],
        max(scores),
        min(scores),
        histogram(scores, top),
    )


def test_stacked_bar_segments_fill_the_bar_in_status_order() -> None:
    segments = stacked_bar({"wrong": 1, "unanswered": 1, "correct": 2}, 4)
    assert [(s.css, s.x, s.w, s.count) for s in segments] == [
        ("correct", 0.0, 50.0, 2),
        ("wrong", 50.0, 25.0, 1),
        ("unanswered", 75.0, 25.0, 1),
    ]
    assert segments[1].label == "wrong: 1 of 4 (25%)"
    assert stacked_bar({}, 0) == ()


def test_histogram_bars_scale_to_the_count_axis() -> None:
    chart = histogram_chart(stats_of([1, 2, 2, 2, 5], 5))
    plot = chart.frame.bottom - chart.frame.top
    heights = [round(b.h / plot, 3) for b in chart.bars]
    top_tick = int(chart.y_ticks[-1].label)
    assert heights == [round(b.count / top_tick, 3) for b in chart.bars]
    assert [b.count for b in chart.bars] == [0, 1, 3, 0, 1]
    assert [t.label for t in chart.x_ticks] == ["0", "1", "2", "3", "4", "5"]


def test_mean_and_median_lines_sit_at_their_scores() -> None:
    chart = histogram_chart(stats_of([0, 5, 10], 10))
    width = chart.frame.right - chart.frame.left
    (mean, median) = chart.markers
    assert (mean.label, median.label) == ("mean 5", "median 5")
    assert mean.x == pytest.approx(chart.frame.left + width / 2)
    assert (mean.row, median.row) == (0, 1)  # two label rows, so close values never overlap


def test_a_short_last_bar_hides_the_label_it_would_crowd_on_phones() -> None:
    ticks = histogram_chart(stats_of([10, 44], 44)).x_ticks
    shown = {t.label: t.minor for t in ticks}
    assert shown["44"] is False and shown["40"] is True and shown["30"] is False


def test_heatmap_shades_pairs_relative_to_the_most_common_pair() -> None:
    co = Cooccurrence(("a", "b", "c"), ((5, 4, 0), (4, 4, 2), (0, 2, 2)), students=10)
    chart = heatmap_chart(co)
    cells = {
        (
            round((c.y - chart.frame.top) / chart.cell),
            round((c.x - chart.frame.left) / chart.cell),
        ): c
        for c in chart.cells
    }
    assert cells[(0, 0)].css == "diag" and cells[(0, 0)].count == 5
    assert (
        cells[(0, 1)].opacity == pytest.approx(1.0)
        and cells[(1, 2)].opacity < cells[(0, 1)].opacity
    )
    assert cells[(0, 1)].label == "a + b: 4 students"


def test_trend_leaves_gaps_where_an_assignment_has_no_value() -> None:
    chart = trend_chart(["ps1", "ps2", "ps3"], {"mean": [0.5, None, 1.0]})
    (series,) = chart.series
    assert [label for _, _, label in series.points] == ["50%", "100%"]
    assert series.points[1][1] == pytest.approx(chart.frame.top)  # 100% at the top of the plot
    assert [t.label for t in chart.x_ticks] == ["ps1", "ps2", "ps3"]


@pytest.mark.parametrize(
    ("value", "text"), [(7.0, "7"), (7.5, "7.5"), (6.333333, "6.33"), (0.1 + 0.2, "0.3")]
)
def test_numbers_as_people_write_them(value: float, text: str) -> None:
    assert number(value) == text


def test_an_empty_histogram_still_draws_an_axis() -> None:
    chart = histogram_chart(ScoreStats(0, 0.0, None, None, None, None, ()))
    assert [b.count for b in chart.bars] == [0] and chart.markers == ()
    assert chart.x_title == "score (out of 0)"


@pytest.mark.parametrize(
    "scores", [[45] * 11, [40, 45, 45, 45, 44], [0, 5, 10], [1, 2, 2, 2, 5]], ids=str
)
def test_no_bar_count_meets_a_marker_label(scores: list[float]) -> None:
    # "median 45" was drawn over the count of the bar at 45 (the tallest, under the labels).
    from graders.reports.charts import TEXT_HEIGHT

    chart = histogram_chart(stats_of(scores, max(scores) or 1))
    lowest_label = max(m.text_y for m in chart.markers) + 4  # baseline plus descent
    count_tops = [b.y - 4 - TEXT_HEIGHT for b in chart.bars if b.count]
    assert min(count_tops) >= lowest_label, (count_tops, lowest_label)
    assert all(m.line_top > m.text_y for m in chart.markers)  # a line starts under its label
