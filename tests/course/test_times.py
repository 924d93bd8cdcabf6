"""One way to write a time, on every page and output: in the due date's zone, the offset
written out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from graders.course.times import time_text

PARIS_SUMMER = timezone(timedelta(hours=2))


@pytest.mark.parametrize(
    ("moment", "zone", "shown"),
    [
        pytest.param(
            datetime(2036, 10, 5, 21, 59, tzinfo=UTC),
            PARIS_SUMMER,
            "2036-10-05 23:59 UTC+02:00",
            id="utc-in-the-course-zone",
        ),
        pytest.param(
            "2036-10-05T21:59:00+00:00", PARIS_SUMMER, "2036-10-05 23:59 UTC+02:00", id="iso-text"
        ),
        pytest.param(
            "2036-10-05T23:59:00+02:00", None, "2036-10-05 23:59 UTC+02:00", id="its-own-zone"
        ),
        pytest.param("2036-10-05T23:59:00+00:00", None, "2036-10-05 23:59 UTC", id="utc"),
        pytest.param(
            "2036-10-05T23:59:00-05:30", None, "2036-10-05 23:59 UTC-05:30", id="negative"
        ),
        pytest.param(
            "2036-10-05T23:59:00", PARIS_SUMMER, "2036-10-05 23:59", id="no-zone-stays-so"
        ),
        pytest.param("soon", None, "soon", id="not-a-time"),
        pytest.param(None, None, "", id="none"),
    ],
)
def test_a_time_is_written_one_way(moment: object, zone: timezone | None, shown: str) -> None:
    assert time_text(moment, zone) == shown  # type: ignore[arg-type]


def test_a_learner_s_own_due_date_is_in_the_course_s_zone() -> None:
    from graders.course.model import Assignment

    course = Assignment(
        id="ps1",
        title="ps1",
        due=datetime(2036, 10, 5, 23, 59, tzinfo=PARIS_SUMMER),
        exercises=["x"],
    )
    extended = course.due_on(datetime(2036, 10, 7, 21, 59, tzinfo=UTC))  # as the gradebook keeps it
    assert time_text(extended.due) == "2036-10-07 23:59 UTC+02:00"
    assert course.due_on(None) is course
    assert course.due_on(datetime(2036, 10, 5, 21, 59, tzinfo=UTC)) is course  # the same moment
