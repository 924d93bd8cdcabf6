"""Finding notebooks in a submissions folder: both layouts, and every per-student problem."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graders.errors import UsageError
from graders.intake.identity import safe_student
from graders.submissions.folder import find_submissions
from graders.submissions.times import parse_timestamp

UTC = UTC


def touch(path: Path, text: str = "{}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def fifo(path: Path) -> None:
    path.parent.mkdir(parents=True)
    os.mkfifo(path)  # opening it would block the grader forever


def link(path: Path, target: Path) -> None:
    path.parent.mkdir(parents=True)
    path.symlink_to(target)


def by_student(folder: Path, assignment: str = "ps1") -> dict:
    # The course's other assignments, whose notebooks are never taken for this one's.
    return {f.student: f for f in find_submissions(folder, assignment, others=("ps2", "ps3"))}


def test_flat_layout_never_takes_the_file_time(tmp_path: Path) -> None:
    nb = touch(tmp_path / "ada" / "ps1.ipynb")
    when = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
    os.utime(nb, (when.timestamp(), when.timestamp()))
    (found,) = find_submissions(tmp_path, "ps1")
    assert (found.student, found.path, found.source, found.error) == (
        "ada",
        nb,
        "ada/ps1.ipynb",
        None,
    )
    assert found.submitted_at is None  # copying a class's files changes every mtime


@pytest.mark.parametrize(
    "root_is_course", [False, True], ids=["submitted-folder", "nbgrader-course-root"]
)
def test_nbgrader_layout_uses_timestamp_txt(tmp_path: Path, root_is_course: bool) -> None:
    submitted = tmp_path / "submitted"
    nb = touch(submitted / "ada" / "ps1" / "clone-and-detach.ipynb")
    touch(submitted / "ada" / "ps1" / "timestamp.txt", "2026-10-06 08:00:00.000000 UTC\n")
    (found,) = find_submissions(tmp_path if root_is_course else submitted, "ps1")
    assert found.path == nb and found.error is None
    assert found.submitted_at == datetime(2026, 10, 6, 8, 0, tzinfo=UTC)


def test_an_unreadable_nbgrader_timestamp_is_that_students_error(tmp_path: Path) -> None:
    touch(tmp_path / "ada" / "ps1" / "a.ipynb")
    touch(tmp_path / "ada" / "ps1" / "timestamp.txt", "yesterday")
    touch(tmp_path / "bob" / "ps1" / "b.ipynb")
    touch(tmp_path / "bob" / "ps1" / "timestamp.txt", "2026-10-06 08:00:00 UTC")
    found = by_student(tmp_path)
    assert "ada/ps1/timestamp.txt:1:1: not a time" in str(found["ada"].error)
    assert found["ada"].path is None and found["bob"].error is None


def test_nbgrader_layout_without_timestamp_has_no_time(tmp_path: Path) -> None:
    nb = touch(tmp_path / "ada" / "ps1" / "work.ipynb")
    os.utime(nb, (1_000_000_000, 1_000_000_000))
    (found,) = find_submissions(tmp_path, "ps1")
    assert found.path == nb and found.submitted_at is None


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: touch(d / "ada" / "ps2.ipynb"), "no notebook for ps1"),
        (
            lambda d: (touch(d / "ada" / "ps1" / "a.ipynb"), touch(d / "ada" / "ps1" / "b.ipynb")),
            "2 notebooks for ps1",
        ),
        (
            lambda d: (touch(d / "ada" / "ps1.ipynb"), touch(d / "ada" / "ps1" / "b.ipynb")),
            "2 notebooks for ps1",
        ),
        (lambda d: fifo(d / "ada" / "ps1.ipynb"), "not a regular file"),
        (lambda d: link(d / "ada" / "ps1.ipynb", Path("/etc/passwd")), "not a regular file"),
    ],
    ids=["missing", "two-in-folder", "flat-and-folder", "fifo", "symlink"],
)
def test_problems_of_one_student_are_that_students_error(
    tmp_path: Path, make, message: str
) -> None:
    make(tmp_path)
    touch(tmp_path / "bob" / "ps1.ipynb")
    found = by_student(tmp_path)
    assert message in str(found["ada"].error) and found["ada"].path is None
    assert found["bob"].error is None


@pytest.mark.parametrize(
    "name",
    [
        "..evil",
        "a..b",
        "-rf",
        "has space",
        "x" * 101,
        "=cmd()",
        "semi;colon",
        "ada\u202etxt.exe",  # a right-to-left override disguises the name
        "ada\u200bx",  # a zero-width space: two ids that look the same
        "a\uff0fb",  # a fullwidth solidus looks like a path separator
        "\u0301a",  # a combining accent cannot start a name
        "tab\tname",
    ],
)
def test_unsafe_student_folder_names_are_rejected(tmp_path: Path, name: str) -> None:
    touch(tmp_path / name / "ps1.ipynb")
    touch(tmp_path / "bob" / "ps1.ipynb")
    found = by_student(tmp_path)
    assert "is not allowed" in str(found[name].error) and found[name].path is None
    assert found["bob"].error is None


def test_a_student_folder_that_is_a_symlink_is_rejected(tmp_path: Path) -> None:
    touch(tmp_path / "elsewhere" / "ada" / "ps1.ipynb")
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "ada").symlink_to(tmp_path / "elsewhere" / "ada")
    assert "symbolic link" in str(by_student(tmp_path / "class")["ada"].error)


@pytest.mark.parametrize("name", ["ada", "ada.lovelace", "ada_l-1", "ada@example.org", "a+b", "A1"])
def test_ordinary_student_ids_are_safe(name: str) -> None:
    assert safe_student(name)


def test_checkpoints_and_loose_files_are_ignored(tmp_path: Path) -> None:
    touch(tmp_path / ".ipynb_checkpoints" / "ps1.ipynb")
    touch(tmp_path / "README.txt")
    touch(tmp_path / "ada" / "ps1.ipynb")
    assert list(by_student(tmp_path)) == ["ada"]


def test_an_empty_or_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no student folders"):
        find_submissions(tmp_path, "ps1")
    with pytest.raises(UsageError, match="no submissions folder"):
        find_submissions(tmp_path / "nope", "ps1")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-10-05 20:00:00.000000 UTC", datetime(2026, 10, 5, 20, 0, tzinfo=UTC)),
        ("2026-10-05 20:00:00.500000", datetime(2026, 10, 5, 20, 0, 0, 500000, tzinfo=UTC)),
        ("2026-10-05 20:00:00.000000 +0200", datetime(2026, 10, 5, 18, 0, tzinfo=UTC)),
        ("2026-10-05 20:00:00 -03:30", datetime(2026, 10, 5, 23, 30, tzinfo=UTC)),
        ("2026-10-05T20:00:00+02:00", datetime(2026, 10, 5, 18, 0, tzinfo=UTC)),
    ],
)
def test_nbgrader_timestamps(text: str, expected: datetime) -> None:
    assert parse_timestamp(text) == expected


@pytest.mark.parametrize(
    "text", ["", "tomorrow", "2026-10-05 20:00:00 CEST", "2026-10-05T20:00:00+02:00 +0100"]
)
def test_unreadable_timestamps_say_so(text: str) -> None:
    with pytest.raises(ValueError):
        parse_timestamp(text)


def test_timestamps_compare_across_zones() -> None:
    assert parse_timestamp("2026-10-05 23:59:00 +0200") - parse_timestamp(
        "2026-10-05 21:59:00 UTC"
    ) == timedelta(0)
