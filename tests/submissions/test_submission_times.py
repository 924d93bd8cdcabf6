"""Submission times come only from what records a hand-in, in order of trust; never an mtime."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from graders.errors import UsageError
from graders.submissions.folder import find_submissions
from graders.submissions.times import ci_time, read_times_file, with_times

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


@pytest.mark.parametrize(
    ("where", "text"),
    [
        pytest.param("ada/submission_metadata.json", None, id="gradescope-beside-notebook"),
        pytest.param("ada/ps1/submission_metadata.json", None, id="gradescope-nested"),
        pytest.param("ada/ps1/timestamp.txt", "2036-10-01 08:00:00 UTC", id="nbgrader-in-flat"),
        pytest.param("ada/timestamp.txt", "2036-10-01 08:00:00 UTC", id="nbgrader-beside"),
        pytest.param("ada/submission_metadata.json", "{oops", id="unreadable-gradescope"),
    ],
)
def test_a_time_file_in_a_learners_own_folder_is_ignored_and_named(
    tmp_path: Path, where: str, text: str | None
) -> None:
    # Beside learners who hand in flat folders, nothing says nbgrader took ada's work in.
    notebook = "ada/ps1/work.ipynb" if "/ps1/" in where else "ada/ps1.ipynb"
    touch(tmp_path / notebook)
    touch(tmp_path / where, text or gradescope_metadata("2036-10-01T00:00:00Z"))
    touch(tmp_path / "bob" / "ps1.ipynb")
    by = {f.student: f for f in find_submissions(tmp_path, "ps1")}
    assert by["ada"].error is None and by["ada"].path == tmp_path / notebook
    assert by["ada"].submitted_at is None and by["ada"].ignored_time == where
    assert by["bob"].ignored_time is None


def test_nbgraders_own_timestamp_is_read_and_a_metadata_file_beside_it_is_not(
    tmp_path: Path,
) -> None:
    touch(tmp_path / "ada" / "ps1" / "work.ipynb")
    touch(tmp_path / "ada" / "ps1" / "timestamp.txt", "2036-10-04 08:00:00.000000 UTC")
    touch(
        tmp_path / "ada" / "ps1" / "submission_metadata.json",
        gradescope_metadata("2036-10-09T00:00:00Z"),
    )
    (found,) = find_submissions(tmp_path, "ps1")
    assert found.submitted_at == datetime(2036, 10, 4, 8, 0, tzinfo=UTC)


def test_the_times_file_comes_first_and_a_learners_timestamp_never_counts(
    tmp_path: Path,
) -> None:
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
    # bob and cy hand in no timestamp.txt: this is no folder of nbgrader's, and ada's is hers.
    assert found["ada"].submitted_at == datetime(2036, 10, 9, 0, 0, tzinfo=UTC)
    assert found["ada"].ignored_time == "ada/ps1/timestamp.txt"
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
