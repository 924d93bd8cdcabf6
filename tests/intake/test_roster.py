"""The roster: reading roster.csv, every problem at its file:line:column, and what it says
about a batch (who is missing, who is not on it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graders.errors import SpecError, UsageError
from graders.gradebook.roster_check import MISSING_KEY, apply_roster, check_roster
from graders.intake.roster import ROSTER_FILE, RosterEntry, find_roster, load_roster
from graders.results import ResultsDocument, StudentResult, SubmissionStatus

HEADER = "student,name,email,section,sis_user_id,sis_login_id,lms_id\n"


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / ROSTER_FILE
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_a_roster_with_every_column(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "\ufeff"  # as Excel saves "CSV UTF-8"
        + HEADER
        + 'ada,"Lovelace, Ada",ada@example.org,A1,2001,alovelace,1234\n'
        + "\n"
        + "José , José García,jose@example.org,A2,,,\n",
    )
    roster = load_roster(path)
    assert roster.students == ("ada", "José")
    assert roster.get("ada") == RosterEntry(
        "ada", "Lovelace, Ada", "ada@example.org", "A1", "2001", "alovelace", "1234", line=2
    )
    assert roster.by_lms_id("1234") == roster.get("ada") and roster.by_lms_id("") is None
    assert "José" in roster and "bob" not in roster


def test_only_the_student_column_is_required(tmp_path: Path) -> None:
    roster = load_roster(write(tmp_path, "Student\nada\nbob\n"))
    assert roster.students == ("ada", "bob") and roster.get("bob") == RosterEntry("bob", line=3)


def test_trailing_empty_columns_of_a_spreadsheet_are_ignored(tmp_path: Path) -> None:
    assert load_roster(write(tmp_path, "student,name,,\nada,Ada,,\n")).students == ("ada",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "roster.csv:1:1: the roster is empty: no header row"),
        ("name,email\nAda,a@x\n", "roster.csv:1:1: no 'student' column"),
        (
            "student,emial\nada,a@x\n",
            "roster.csv:1:9: unknown column 'emial' (did you mean 'email'?)",
        ),
        ("student,name,name\nada,A,B\n", "roster.csv:1:14: column 'name' appears twice"),
        ("student,name\nada,Ada,extra\n", "roster.csv:2:9: 3 cells, but the header names 2"),
        ("student,name\n,Nobody\n", "roster.csv:2:1: no student id in this row"),
        ("student\n../etc\n", "roster.csv:2:1: student id '../etc' is not allowed"),
        (
            "student,name\nada,A\nbob,B\nada,C\n",
            "roster.csv:4:1: student 'ada' is already on line 2",
        ),
        (
            "student,email\nada,a@x.org\nbob,A@X.org\n",
            "roster.csv:3:1: email 'A@X.org' is already on line 2 (ada)",
        ),
        ("student,lms_id\nada,7\nbob,7\n", "roster.csv:3:1: lms_id '7' is already on line 2 (ada)"),
        ("student,name,email\nada,Ada,not-an-email\n", "roster.csv:2:9: not an email"),
        ('student,name\nada,"Ada\n', "roster.csv:2:1: not CSV"),
        (b"student\nJos\xe9\n", "roster.csv:2:4: byte 0xe9 is not UTF-8"),
        ('student,name\n"ada","Lovelace,\nAda",x\n', "roster.csv:3:6: 3 cells"),
    ],
    ids=[
        "empty",
        "no-student-column",
        "unknown-column",
        "column-twice",
        "too-many-cells",
        "no-id",
        "unsafe-id",
        "duplicate-student",
        "duplicate-email-any-case",
        "duplicate-lms-id",
        "bad-email",
        "unclosed-quote",
        "not-utf8",
        "multiline-cell",
    ],
)
def test_roster_problems_name_their_place(tmp_path: Path, text: str | bytes, expected: str) -> None:
    with pytest.raises(SpecError) as caught:
        load_roster(write(tmp_path, text))
    # The whole path, then line:column, as every other file problem is shown.
    assert f"{tmp_path}/{expected}" in str(caught.value)


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    text = "student,name,email\n,A,a@x\n..,B,b@x\ncy,C,oops\n"
    with pytest.raises(SpecError) as caught:
        load_roster(write(tmp_path, text))
    assert [(p.location.line, p.location.column) for p in caught.value.problems] == [
        (2, 1),
        (3, 1),
        (4, 6),
    ]


def test_the_roster_beside_the_course_is_found_and_an_explicit_one_must_exist(
    tmp_path: Path,
) -> None:
    assert find_roster(tmp_path) is None
    write(tmp_path, "student\nada\n")
    assert find_roster(tmp_path).students == ("ada",)
    other = tmp_path / "elsewhere.csv"
    other.write_text("student\nbob\n")
    assert find_roster(tmp_path, other).students == ("bob",)  # --roster wins
    with pytest.raises(UsageError, match="no roster at"):
        find_roster(tmp_path, tmp_path / "nope.csv")


def test_missing_are_those_on_the_roster_without_a_submission_or_a_grade(tmp_path: Path) -> None:
    roster = load_roster(write(tmp_path, "student\nada\nbob\ncy\ndee\n"))
    saved = {"cy": "key", "dee": MISSING_KEY}  # cy was graded before; dee was missing before
    check = check_roster(roster, ["ada", "zed"], saved)
    assert (check.missing, check.unlisted) == (("bob", "dee"), ("zed",))
    assert check_roster(None, ["ada"], {}).missing == ()


def test_apply_roster_marks_each_student_and_adds_the_missing(tmp_path: Path) -> None:
    roster = load_roster(write(tmp_path, "student\nada\nbob\n"))
    doc = ResultsDocument(
        "c", "ps1", None, None, None, (StudentResult("ada", ()), StudentResult("zed", ()))
    )
    marked = {s.student: s for s in apply_roster(doc, roster).students}
    assert [marked[s].on_roster for s in ("ada", "bob", "zed")] == [True, True, False]
    assert marked["bob"].status is SubmissionStatus.MISSING and marked["bob"].score == 0
    assert marked["bob"].to_json()["on_roster"] is True
    assert "on_roster" not in StudentResult("ada", ()).to_json()  # no roster: not written
    assert apply_roster(doc, None) is doc
