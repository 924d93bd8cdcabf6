"""Submission times come only from what records a hand-in, in order of trust; never an mtime."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from graders.batch.submission_times import ci_time, read_times_file, with_times
from graders.batch.submissions import find_submissions
from graders.errors import UsageError

NOW = datetime(2036, 10, 1, 12, 0, tzinfo=UTC)


def touch(path: Path, text: str = "{}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def gradescope_metadata(created_at: str) -> str:
    # The shape Gradescope documents for /autograder/submission_metadata.json (abridged).
    return json.dumps(
        {
            "id": 123456,
            "created_at": created_at,
            "assignment": {"due_date": "2036-10-05T23:59:00.000000+02:00", "title": "ps1"},
            "users": [{"email": "ada@example.com", "id": 1234, "name": "Ada"}],
        },
        indent=2,
    )


def times_file(tmp_path: Path, text: str) -> Path:
    return touch(tmp_path / "times.csv", text)


def test_gradescope_metadata_beside_the_notebook_gives_the_time(tmp_path: Path) -> None:
    touch(tmp_path / "ada" / "ps1.ipynb")
    touch(
        tmp_path / "ada" / "submission_metadata.json",
        gradescope_metadata("2036-10-06T01:30:00+02:00"),
    )
    (found,) = find_submissions(tmp_path, "ps1")
    assert found.submitted_at == datetime(2036, 10, 5, 23, 30, tzinfo=UTC)


def test_timestamp_txt_comes_before_gradescope_metadata(tmp_path: Path) -> None:
    touch(tmp_path / "ada" / "ps1" / "work.ipynb")
    touch(tmp_path / "ada" / "ps1" / "timestamp.txt", "2036-10-04 08:00:00.000000 UTC")
    touch(
        tmp_path / "ada" / "ps1" / "submission_metadata.json",
        gradescope_metadata("2036-10-09T00:00:00Z"),
    )
    (found,) = find_submissions(tmp_path, "ps1")
    assert found.submitted_at == datetime(2036, 10, 4, 8, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            '{"created_at": "2036-10-05",\n  oops}',
            "ada/submission_metadata.json:2:3: not JSON",
            id="not-json",
        ),
        pytest.param(
            '{"id": 1}', "ada/submission_metadata.json: no created_at", id="no-created-at"
        ),
        pytest.param(
            '{\n  "id": 1,\n  "created_at": "Monday"\n}',
            "ada/submission_metadata.json:3:3: created_at is not a time: 'Monday'",
            id="not-a-time",
        ),
    ],
)
def test_unreadable_gradescope_metadata_is_that_students_error(
    tmp_path: Path, text: str, message: str
) -> None:
    touch(tmp_path / "ada" / "ps1.ipynb")
    touch(tmp_path / "ada" / "submission_metadata.json", text)
    touch(tmp_path / "bob" / "ps1.ipynb")
    by = {f.student: f for f in find_submissions(tmp_path, "ps1")}
    assert by["ada"].path is None and message in (by["ada"].error or "")
    assert by["bob"].error is None


def test_a_times_file_fills_only_students_nothing_else_timed(tmp_path: Path) -> None:
    for name in ("ada", "bob", "cy"):
        nb = touch(tmp_path / "subs" / name / "ps1" / "work.ipynb")
        os.utime(nb, (0, 0))  # an mtime is never a submission time, however old
    touch(tmp_path / "subs" / "ada" / "ps1" / "timestamp.txt", "2036-10-04 08:00:00 UTC")
    times = times_file(
        tmp_path,
        "\ufeffName,Student,Section,Submitted_At\n"  # an LMS export: a BOM, more columns
        "Ada L.,ada,A,2036-10-09T00:00:00Z\n"
        "Bob B.,bob,A,2036-10-06 10:00:00 +0200\n",
    )
    found = {
        f.student: f
        for f in with_times(find_submissions(tmp_path / "subs", "ps1"), read_times_file(times))
    }
    assert found["ada"].submitted_at == datetime(
        2036, 10, 4, 8, 0, tzinfo=UTC
    )  # timestamp.txt first
    assert found["bob"].submitted_at == datetime(2036, 10, 6, 8, 0, tzinfo=UTC)
    assert found["cy"].submitted_at is None


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        pytest.param(
            "name,when\nada,x\n",
            [
                "times.csv:1:1: the times file needs the columns student,submitted_at (missing: student, submitted_at)"
            ],
            id="no-columns",
        ),
        pytest.param(
            "student,submitted_at\nada,2036-10-05 21:00\nbob,tomorrow\n,2036-10-05T21:00Z\n",
            [
                "times.csv:2:5: submitted_at: '2036-10-05 21:00' has no time zone",
                "times.csv:3:5: submitted_at: not a time: 'tomorrow'",
                "times.csv:4:1: student: empty",
            ],
            id="every-bad-row-at-once",
        ),
        pytest.param(
            "student,submitted_at\nada,2036-10-05T21:00Z\nada,2036-10-06T21:00Z\n",
            ["times.csv:3:1: ada is listed twice (first on line 2)"],
            id="listed-twice",
        ),
    ],
)
def test_a_bad_times_file_names_file_line_and_column(
    tmp_path: Path, text: str, messages: list[str]
) -> None:
    path = times_file(tmp_path, text)
    with pytest.raises(UsageError) as caught:
        read_times_file(path)
    lines = [line.removeprefix(str(tmp_path) + "/") for line in str(caught.value).splitlines()]
    assert len(lines) == len(messages)
    for line, message in zip(lines, messages, strict=True):
        assert line.startswith(message), line


def test_ci_takes_the_time_grading_runs(tmp_path: Path) -> None:
    nb = touch(tmp_path / "repo" / "ps1.ipynb")
    assert ci_time(nb, now=NOW) == NOW


def test_on_gradescope_ci_takes_gradescopes_record_not_the_learners(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "autograder"
    monkeypatch.setenv("GRADERS_AUTOGRADER_ROOT", str(root))
    nb = touch(root / "submission" / "ps1.ipynb")
    # An uploaded file of that name is the learner's and must not choose their time.
    touch(
        root / "submission" / "submission_metadata.json",
        gradescope_metadata("2000-01-01T00:00:00Z"),
    )
    assert ci_time(nb, now=NOW) == NOW
    touch(
        root / "submission_metadata.json", gradescope_metadata("2036-10-06T09:00:00.123456-07:00")
    )
    assert ci_time(nb, now=NOW) == datetime(
        2036, 10, 6, 9, 0, 0, 123456, timezone(timedelta(hours=-7))
    )
    elsewhere = touch(tmp_path / "repo" / "ps1.ipynb")
    assert ci_time(elsewhere, now=NOW) == NOW
