"""The late policy: a penalty per started day late, and a hard cutoff."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from graders.course.model import LatePolicy

DUE = datetime(2026, 10, 5, 23, 59, tzinfo=timezone(timedelta(hours=2)))
POLICY = LatePolicy(penalty_per_day=0.1, cutoff_days=3)


@pytest.mark.parametrize(
    "late_by, factor",
    [
        pytest.param(timedelta(hours=-5), 1.0, id="early"),
        pytest.param(timedelta(0), 1.0, id="exactly-on-time"),
        pytest.param(timedelta(minutes=1), 0.9, id="one-minute-is-one-day"),
        pytest.param(timedelta(days=1), 0.9, id="one-full-day"),
        pytest.param(timedelta(days=1, seconds=1), 0.8, id="into-the-second-day"),
        pytest.param(timedelta(days=3), 0.7, id="at-the-cutoff"),
        pytest.param(timedelta(days=3, seconds=1), None, id="past-the-cutoff"),
    ],
)
def test_late_factor(late_by: timedelta, factor: float | None) -> None:
    got = POLICY.factor(DUE, DUE + late_by)
    assert got == (pytest.approx(factor) if factor is not None else None)


def test_time_zones_are_respected() -> None:
    # 22:30 UTC is 00:30 in UTC+2: 31 minutes after the deadline.
    submitted = datetime(2026, 10, 5, 22, 30, tzinfo=UTC)
    assert POLICY.factor(DUE, submitted) == pytest.approx(0.9)


def test_no_penalty_never_goes_negative() -> None:
    harsh = LatePolicy(penalty_per_day=0.6, cutoff_days=5)
    assert harsh.factor(DUE, DUE + timedelta(days=4)) == 0.0


GRACE = LatePolicy(penalty_per_day=0.1, cutoff_days=3, grace_minutes=15)


@pytest.mark.parametrize(
    "late_by, factor",
    [
        pytest.param(timedelta(minutes=15), 1.0, id="within-the-grace-period"),
        pytest.param(timedelta(minutes=16), 0.9, id="past-it-is-one-day"),
        pytest.param(timedelta(days=1, minutes=1), 0.8, id="days-count-from-the-due-date"),
        pytest.param(timedelta(days=3, minutes=1), None, id="the-cutoff-counts-from-the-due-date"),
    ],
)
def test_a_grace_period_keeps_the_rule_per_started_day(
    late_by: timedelta, factor: float | None
) -> None:
    got = GRACE.factor(DUE, DUE + late_by)
    assert got == (pytest.approx(factor) if factor is not None else None)
