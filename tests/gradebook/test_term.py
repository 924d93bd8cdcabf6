"""An instructor's term: extensions, overrides, drops, regrades and their audit trail.

Each decision must survive a full ``--force`` regrade and show in results.json, grades.csv
and the student's feedback page. The class is graded once with the in-process runner (its
truths cached in the course), then the commands run as a user types them.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from small_course import RIGHT, WRONG, hand_in, notebook, open_small_course, students

from graders.batch.autograde import Summary, autograde
from graders.cli import main
from graders.workspace import Workspace

# The small course's ps1 is due 2026-10-05T23:59Z: 0.25 off per started day, 0 after 2 days.
TIMES = (
    "student,submitted_at\n"
    "ada,2026-10-05T20:00:00Z\n"
    "bob,2026-10-05T21:00:00Z\n"
    "cy,2026-10-06T10:00:00Z\n"  # 10 hours late: one started day, x0.75
)


@dataclass
class Term:
    """The small course, a graded class of three, and the files the commands write."""

    session: Workspace
    subs: Path
    times: Path

    @property
    def root(self) -> Path:
        return self.session.loaded.root

    @property
    def out(self) -> Path:
        return self.root / "autograded" / "ps1"

    def autograde(self, **options: Any) -> Summary:
        return autograde(self.session, "ps1", self.subs, times=self.times, **options)

    def cli(self, *args: str) -> Result:
        return CliRunner().invoke(main, [*args, "--course", str(self.root)])

    def results(self) -> dict[str, dict[str, Any]]:
        return students(self.document())

    def document(self) -> dict[str, Any]:
        return json.loads((self.out / "results.json").read_text(encoding="utf-8"))

    def csv_rows(self) -> dict[str, dict[str, str]]:
        text = (self.out / "grades.csv").read_text(encoding="utf-8")
        return {r["student"]: r for r in csv.DictReader(io.StringIO(text))}

    def feedback(self, student: str) -> str:
        result = self.cli("feedback", "ps1")
        assert result.exit_code == 0, result.output
        return (self.out / "feedback" / f"{student}.html").read_text(encoding="utf-8")

    def history(self, student: str) -> str:
        result = self.cli("history", student)
        assert result.exit_code == 0, result.output
        return result.output


@pytest.fixture
def term(tmp_path: Path) -> Iterator[Term]:
    subs = tmp_path / "subs"
    for name, answers in (("ada", RIGHT), ("bob", WRONG), ("cy", RIGHT)):
        hand_in(subs, name, notebook(answers))
    times = tmp_path / "times.csv"
    times.write_text(TIMES, encoding="utf-8")
    with open_small_course(tmp_path / "course") as session:
        t = Term(session, subs, times)
        t.autograde()
        yield t


def ok(result: Result) -> str:
    assert result.exit_code == 0, result.output
    return result.output


def question(student: dict[str, Any], item: str) -> dict[str, Any]:
    return next(q for q in student["questions"] if q["id"] == item)


def test_an_extension_survives_a_forced_regrade_and_shows_everywhere(term: Term) -> None:
    assert term.results()["cy"]["late_factor"] == 0.75
    said = ok(term.cli("extend", "cy", "ps1", "--days", "1", "--reason", "ill", "--by", "prof"))
    assert "cy: ps1 due 2026-10-06 23:59 UTC" in said
    term.autograde(force=True)
    cy = term.results()["cy"]
    assert (cy["late_factor"], cy["score"]) == (1.0, 6.0)
    assert cy["extension"]["due"] == "2026-10-06T23:59:00+00:00"
    assert (cy["extension"]["reason"], cy["extension"]["by"]) == ("ill", "prof")
    row = term.csv_rows()["cy"]
    assert (row["total"], row["extended_due"]) == ("6.0", "2026-10-06T23:59:00+00:00")
    page = term.feedback("cy")
    assert "Your due date was extended to 2026-10-06 23:59 UTC." in page
    assert "ill" not in page  # the reason of an extension is the instructor's, not the page's
    assert "extend" in term.history("cy") and "by prof" in term.history("cy")


def test_an_extension_keeps_the_key_off_every_page_until_it_closes(term: Term) -> None:
    assert "<dt>Expected</dt>" in term.feedback("bob")  # ps1 closed in 2026: the key is shown
    # cy may hand in until 2099: a key on bob's page could reach her.
    ok(term.cli("extend", "cy", "ps1", "--until", "2099-10-05T23:59"))
    page = term.feedback("bob")
    assert "<dt>Expected</dt>" not in page and "Your answer" in page
    ok(term.cli("extend", "cy", "ps1", "--clear"))
    assert "<dt>Expected</dt>" in term.feedback("bob")


def test_an_extension_applies_to_the_saved_grade_at_once_and_can_be_cleared(term: Term) -> None:
    ok(term.cli("extend", "cy", "ps1", "--until", "2026-10-06T12:00"))  # the due date's zone
    assert term.results()["cy"]["late_factor"] == 1.0  # no regrade needed: the time is saved
    ok(term.cli("extend", "cy", "ps1", "--clear"))
    cy = term.results()["cy"]
    assert cy["late_factor"] == 0.75 and "extension" not in cy
    assert "extend-clear" in term.history("cy")


def test_an_override_survives_a_forced_regrade_and_shows_everywhere(term: Term) -> None:
    reason = "the prompt was ambiguous"
    args = [
        "override",
        "bob",
        "ps1",
        "clone-basics/shares",
        "1",
        "--reason",
        reason,
        "--by",
        "prof",
    ]
    ok(term.cli(*args))
    term.autograde(force=True)
    bob = term.results()["bob"]
    shares = question(bob, "clone-basics/shares")
    assert (shares["points"], shares["status"], bob["score"]) == (1, "wrong", 2.0)
    assert {k: shares["override"][k] for k in ("points", "reason", "by")} == {
        "points": 1,
        "reason": reason,
        "by": "prof",
    }
    assert shares["override"]["at"]
    row = term.csv_rows()["bob"]
    assert (row["clone-basics/shares"], row["total"]) == ("1.0", "2.0")
    assert row["overrides"] == f"clone-basics/shares: {reason}"
    page = term.feedback("bob")
    assert f"Adjusted by the instructor: {reason}" in page
    # Full points set by hand: shown as the instructor's, and nothing left to review there.
    shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert "To review (1)" in shown and "Question 2.1 · not correct" in shown
    assert "adjusted by the instructor · 1 / 1" in shown and "not correct · 1 / 1" not in shown
    gradescope = json.loads((term.out / "gradescope" / "bob.json").read_text(encoding="utf-8"))
    shares_test = next(t for t in gradescope["tests"] if "`clone-basics/shares`" in t["output"])
    assert shares_test["status"] == "passed" and reason in shares_test["output"]
    with sqlite3.connect(term.root / "gradebook.db") as db:  # what SQL queries see agrees
        assert db.execute("select score from submissions where student='bob'").fetchall() == [
            (2.0,)
        ]


def test_a_cleared_override_gives_back_the_graded_points(term: Term) -> None:
    ok(term.cli("override", "bob", "ps1", "clone-basics/shares", "1", "--reason", "typo"))
    ok(term.cli("override", "bob", "ps1", "clone-basics/shares", "--clear"))
    shares = question(term.results()["bob"], "clone-basics/shares")
    assert shares["points"] == 0 and "override" not in shares
    assert "Adjusted by the instructor" not in term.feedback("bob")
    history = term.history("bob")
    assert "clone-basics/shares: 0 -> 1 of 1" in history and "override-clear" in history


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["clone-basics/shares", "2", "--reason", "x"],
            "clone-basics/shares is worth 1 points: give 0 to 1, not 2",
            id="more-than-the-question-is-worth",
        ),
        pytest.param(
            ["clone-basics/share", "1", "--reason", "x"],
            "did you mean 'clone-basics/shares'?",
            id="unknown-question",
        ),
        pytest.param(["clone-basics/shares", "1"], "give POINTS and --reason", id="no-reason"),
        pytest.param(
            ["clone-basics/shares", "--clear"], "bob has no override for", id="nothing-to-clear"
        ),
    ],
)
def test_a_wrong_override_is_refused_with_a_reason(
    term: Term, args: list[str], message: str
) -> None:
    result = term.cli("override", "bob", "ps1", *args)
    assert result.exit_code == 2 and message in result.output


def test_a_drop_survives_a_forced_regrade_and_leaves_every_output(term: Term) -> None:
    term.feedback("bob")  # a page from before the drop
    said = ok(term.cli("drop", "bob", "ps1", "--reason", "withdrew", "--by", "registrar"))
    assert "kept in the audit trail" in said
    summary = term.autograde(force=True)
    assert summary.dropped == ("bob",) and summary.found == 3
    assert "bob" not in term.results() and term.document()["dropped"] == ["bob"]
    assert "bob" not in term.csv_rows()
    assert not (term.out / "gradescope" / "bob.json").exists()
    term.feedback("ada")
    assert not (term.out / "feedback" / "bob.html").exists()
    history = term.history("bob")
    assert "drop" in history and "grade 1/6 kept in the audit trail" in history
    assert "withdrew" in history and "by registrar" in history
    for fmt in ("canvas", "moodle", "csv"):  # every export says whom it left out, and why
        exported = ok(term.cli("export", "ps1", "--format", fmt, "-o", str(term.out / "x.csv")))
        assert "left out bob: dropped (graders drop)" in exported, exported


def test_undoing_a_drop_restores_the_grade(term: Term) -> None:
    ok(term.cli("drop", "bob", "ps1"))
    assert "restored" in ok(term.cli("drop", "bob", "ps1", "--undo"))
    assert term.results()["bob"]["score"] == 1.0
    summary = term.autograde()
    assert (summary.graded, summary.dropped) == (0, ())  # the restored grade is up to date


def test_regrade_grades_one_student_again_from_the_last_folder(term: Term) -> None:
    said = ok(term.cli("regrade", "cy", "ps1", "--by", "prof"))
    assert "graded 1, skipped 0 unchanged (of 1 in the folder); 1 late" in said
    assert term.results()["cy"]["late_factor"] == 0.75  # the times file of the last run
    assert "regrade" in term.history("cy") and "4.5/6 (graded) -> 4.5/6 (graded)" in term.history(
        "cy"
    )
    ok(term.cli("drop", "cy", "ps1"))
    refused = term.cli("regrade", "cy", "ps1")
    assert refused.exit_code == 2 and "cy is dropped from ps1" in refused.output


def test_extensions_yml_lists_extensions_audited_by_the_file(term: Term) -> None:
    listed = "- student: cy\n  assignment: ps1\n  days: 1\n  reason: fieldwork\n"
    (term.root / "extensions.yml").write_text(listed, encoding="utf-8")
    term.autograde()
    assert term.results()["cy"]["late_factor"] == 1.0
    history = term.history("cy")
    assert "(extensions.yml:1:3)" in history and "by extensions.yml" in history
    (term.root / "extensions.yml").write_text("[]\n", encoding="utf-8")
    term.autograde()
    assert term.results()["cy"]["late_factor"] == 0.75
    assert "no longer in extensions.yml" in term.history("cy")


def test_a_broken_extensions_yml_names_every_problem(term: Term) -> None:
    (term.root / "extensions.yml").write_text(
        "- {student: cy, assignment: ps11, days: 1}\n"
        "- {student: cy, assignment: ps1, days: 1, until: '2026-10-09T00:00:00Z'}\n"
        "- {students: [ok, '../x'], assignment: ps1, days: 1}\n",
        encoding="utf-8",
    )
    result = term.cli("autograde", "ps1", str(term.subs))
    assert result.exit_code == 2
    assert "extensions.yml:1:17: no assignment 'ps11' (did you mean 'ps1'?)" in result.output
    assert "extensions.yml:2:3: give one of days or until" in result.output
    assert "extensions.yml:3:4: not a student id: '../x'" in result.output


def test_autograde_says_once_that_without_times_no_late_policy_applies(term: Term) -> None:
    said = ok(term.cli("autograde", "ps1", str(term.subs), "--force"))
    assert said.count("no submission times for 3 of 3: late policy not applied; see --times") == 1
    partial = term.times.parent / "partial.csv"
    partial.write_text("student,submitted_at\nada,2026-10-05T20:00:00Z\n", encoding="utf-8")
    said = ok(term.cli("autograde", "ps1", str(term.subs), "--times", str(partial)))
    assert "no submission times for 2 of 3 (bob, cy): late policy not applied to them" in said


def test_a_bug_while_grading_exits_3_and_asks_for_a_report(
    term: Term, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import graders.grading.pipeline as grading

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(grading, "apply_late_policy", broken)
    result = term.cli("autograde", "ps1", str(term.subs), "--force")
    assert result.exit_code == 3, result.output
    assert "3 could not be graded because of an internal error in graders" in result.stderr
    assert "this is a bug in graders" in result.stderr and "please report it" in result.stderr
    logged = [r for r in caplog.records if r.exc_info]
    assert logged and "KeyError: 'a bug'" in caplog.text  # the traceback, for the report


def test_the_results_document_carries_the_decisions_through_json() -> None:
    from graders.results import (
        Extension,
        Override,
        QuestionResult,
        ResultsDocument,
        Status,
        StudentResult,
    )

    at = "2036-10-06T08:00:00+00:00"
    adjusted = QuestionResult(
        "ex/q", Status.WRONG, 1.0, 1.0, override=Override(1.0, "typo", "me", at)
    )
    ada = StudentResult(
        "ada", (adjusted,), extension=Extension("2036-10-07T21:59:00+00:00", None, "me", at)
    )
    doc = ResultsDocument("c", "ps1", None, None, None, (ada,), dropped=("bob",))
    assert ResultsDocument.parse(doc.dumps()) == doc
    data = json.loads(doc.dumps())
    assert data["students"][0]["questions"][0]["override"] == {
        "points": 1.0,
        "reason": "typo",
        "by": "me",
        "at": at,
    }
    assert data["dropped"] == ["bob"] and ada.score == 1.0


def test_a_dropped_student_on_the_roster_is_not_missing(term: Term) -> None:
    (term.root / "roster.csv").write_text("student\nada\nbob\ncy\ndan\n", encoding="utf-8")
    ok(term.cli("drop", "bob", "ps1", "--reason", "withdrew"))
    said = ok(term.cli("autograde", "ps1", str(term.subs), "--times", str(term.times)))
    assert "1 on the roster handed nothing in (missing, 0 points):\n  dan" in said
    got = {name: s["status"] for name, s in term.results().items()}
    assert got == {"ada": "graded", "cy": "graded", "dan": "missing"}
    ok(term.cli("override", "ada", "ps1", "clone-basics/shares", "0", "--reason", "copied"))
    assert term.results()["dan"]["status"] == "missing"  # outputs rewritten with the roster


@pytest.mark.sandbox
def test_a_student_dropped_from_the_course_is_in_no_assignment(term: Term) -> None:
    (term.root / "roster.csv").write_text("student\nada\nbob\ncy\ndan\n", encoding="utf-8")
    said = ok(term.cli("drop", "bob", "--reason", "withdrew", "--by", "registrar"))
    assert "bob: dropped from the course, every assignment" in said
    assert "their grades of ps1 are kept in the audit trail" in said
    assert "bob" not in term.results() and term.document()["dropped"] == ["bob"]
    # The next assignment: bob is neither graded, nor missing, nor exported as 0.
    ps2 = term.subs.parent / "ps2"
    for name in ("ada", "bob"):
        hand_in(ps2, name, notebook({"clone-basics/shares": "False"}), name="ps2.ipynb")
    said = ok(term.cli("autograde", "ps2", str(ps2)))
    assert "missing, 0 points):\n  cy, dan\n" in said and "1 dropped, not graded: bob" in said
    exported = term.cli("export", "ps2", "--format", "csv", "-o", "-")
    assert exported.exit_code == 0, exported.output
    assert "ada" in exported.stdout and "dan" in exported.stdout and "bob" not in exported.stdout
    assert "left out bob: dropped (graders drop)" in exported.stderr  # said, not exported
    refused = term.cli("drop", "bob", "ps1", "--undo")
    assert refused.exit_code == 2 and "`graders drop bob --undo`" in refused.output
    refused = term.cli("regrade", "bob", "ps2")
    assert refused.exit_code == 2 and "bob is dropped from the course" in refused.output
    history = term.history("bob")
    assert "drop-course" in history and "grade 1/6 kept in the audit trail" in history

    said = ok(term.cli("drop", "bob", "--undo"))
    assert "bob: back in the course (grades restored: ps1)" in said
    assert term.results()["bob"]["score"] == 1.0
    summary = term.autograde()
    assert (summary.graded, summary.dropped) == (0, ())  # the restored grade is up to date
    assert term.cli("drop", "bob", "--undo").exit_code == 2  # not dropped any more


def test_a_drop_from_one_assignment_outlasts_a_return_to_the_course(term: Term) -> None:
    ok(term.cli("drop", "bob", "ps1"))
    ok(term.cli("drop", "bob"))
    assert "already dropped from the course" in term.cli("drop", "bob", "ps1").output
    assert "grades restored" not in ok(term.cli("drop", "bob", "--undo"))
    assert "bob" not in term.results() and term.document()["dropped"] == ["bob"]
    assert "grade restored" in ok(term.cli("drop", "bob", "ps1", "--undo"))
    assert term.results()["bob"]["score"] == 1.0
