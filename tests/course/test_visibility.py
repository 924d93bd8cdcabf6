"""What learners see, and when (course.yml `feedback: {before_due, after_due}`): one rule,
followed by feedback pages, `graders ci` and Gradescope. Before the assignment closes no
expected answer is in anything a learner reads."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from ci_support import KEY, write_course, write_notebook
from click.testing import CliRunner
from markupsafe import escape

from graders.cli import main
from graders.course.load import load_course
from graders.course.model import Assignment, FeedbackPolicy, Shown
from graders.course.visibility import closes, gradescope_visibility, seen_by_learner, shown_at
from graders.errors import SpecError
from graders.results import QuestionResult, Status, StudentResult

WRONG = QuestionResult(
    "ex/q",
    Status.WRONG,
    0,
    1,
    "True",
    "False",
    "It copies.\nGot True, expected False.",
    "clone-shares-memory",
    explain="It copies.",
)


def assignment(due: str = "2026-10-05T23:59:00+00:00", **extra: object) -> Assignment:
    return Assignment.model_validate(
        {"id": "ps1", "title": "t", "due": due, "exercises": ["ex"], **extra}
    )


def test_the_assignment_closes_at_its_late_cutoff() -> None:
    a = assignment(late={"penalty_per_day": 0.1, "cutoff_days": 2})
    assert closes(a) == datetime(2026, 10, 7, 23, 59, tzinfo=UTC)
    assert shown_at(a, datetime(2026, 10, 6, tzinfo=UTC)) is Shown.CHECKS  # late work still counts
    assert shown_at(a, datetime(2026, 10, 8, tzinfo=UTC)) is Shown.FULL


@pytest.mark.parametrize(
    "shown, expected, feedback, misconception",
    [
        (Shown.FULL, "False", "It copies.\nGot True, expected False.", "clone-shares-memory"),
        (Shown.CHECKS, None, "It copies.", "clone-shares-memory"),
        (Shown.SCORE, None, "", None),
    ],
)
def test_what_each_level_shows(
    shown: Shown, expected: str | None, feedback: str, misconception: str | None
) -> None:
    (q,) = seen_by_learner(StudentResult("ada", (WRONG,)), shown).questions
    assert (q.expected, str(q.feedback), q.misconception) == (expected, feedback, misconception)
    assert (q.status, q.points, q.answer) == (Status.WRONG, 0, "True")  # the grade itself stays


def test_a_result_without_explain_shows_no_feedback_before_the_due_date() -> None:
    old = QuestionResult("ex/q", Status.WRONG, 0, 1, "True", "False", "Got True, expected False.")
    (q,) = seen_by_learner(StudentResult("ada", (old,)), Shown.CHECKS).questions
    assert str(q.feedback) == "" and q.expected is None


@pytest.mark.parametrize(
    "policy, level, visibility",
    [
        ({}, Shown.CHECKS, "visible"),
        ({}, Shown.FULL, "after_due_date"),
        ({"before_due": "score", "after_due": "checks"}, Shown.CHECKS, "after_due_date"),
        ({"before_due": "score", "after_due": "checks"}, Shown.FULL, "hidden"),
        ({"before_due": "full"}, Shown.FULL, "visible"),
    ],
)
def test_gradescope_visibility(policy: dict[str, str], level: Shown, visibility: str) -> None:
    assert gradescope_visibility(FeedbackPolicy.model_validate(policy), level) == visibility


def test_a_policy_that_shows_less_after_the_due_date_is_refused(tmp_path: Path) -> None:
    course = write_course(tmp_path)
    text = (course / "course.yml").read_text()
    bad = "    feedback: {before_due: full, after_due: checks}\n    exercises:\n"
    (course / "course.yml").write_text(text.replace("    exercises:\n", bad, 1))
    with pytest.raises(SpecError, match="after_due \\(checks\\) shows less than before_due"):
        load_course(course / "course.yml")


def course_texts(course: Path) -> str:
    return "\n".join(p.read_text() for p in (course / "exercises").glob("*.yml"))


@pytest.mark.sandbox
def test_feedback_pages_hold_no_expected_answer_before_the_due_date(tmp_path: Path) -> None:
    course = write_course(tmp_path / "course")
    yml = course / "course.yml"
    yml.write_text(yml.read_text().replace("2036-10", "2099-10"))
    submissions = tmp_path / "submissions"
    # Ada answered nothing, so nothing on her page is hers.
    write_notebook(submissions / "ada" / "ci1.ipynb", dict.fromkeys(KEY, "..."))
    write_notebook(submissions / "bob" / "ci1.ipynb", {"clone-basics/grad": "tensor(2.)"})
    args = ["--course", str(course)]
    run = CliRunner().invoke(main, ["autograde", "ci1", str(submissions), *args])
    assert run.exit_code == 0, run.output
    # The answers a page could only show by giving the key away (the course's own texts
    # do not hold them).
    secret = [a for a in KEY.values() if a not in course_texts(course)]
    assert len(secret) >= 3

    def pages() -> dict[str, str]:
        run = CliRunner().invoke(main, ["feedback", "ci1", *args])
        assert run.exit_code == 0, run.output
        folder = course / "autograded" / "ci1" / "feedback"
        return {p.stem: p.read_text() for p in folder.glob("*.html")}

    before = pages()
    assert set(before) == {"ada", "bob"}
    for page in before.values():
        assert "Expected" not in page
        for answer in secret:
            assert answer not in page, answer
    results = json.loads((course / "autograded" / "ci1" / "results.json").read_text())
    assert any(q["expected"] for q in results["students"][0]["questions"])  # the instructor's

    yml.write_text(yml.read_text().replace("2099-10", "2020-10"))  # the assignment closed
    after = pages()
    assert all(str(escape(answer)) in after["ada"] for answer in secret)
