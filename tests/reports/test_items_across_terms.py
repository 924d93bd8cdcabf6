"""Each question across terms (``course.yml``'s ``term`` and ``earlier_terms``): two terms of
a synthetic class generated with known difficulties (a logistic model, 400 learners each),
one question made harder in the later term on purpose; the course summary puts every
question's figures side by side, recovers each term's difficulty, and flags exactly the
planted change. Then the same from the gradebook through ``graders report``, with the CSV,
and in Chinese."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from gradebook_rows import record_results
from term_classes import HARDER_LATER, ITEMS, LEARNERS, REPORT_COURSE, course_info, term_class

from graders.cli import main
from graders.gradebook import store as gradebook
from graders.i18n import speaking
from graders.reports.render import render_course
from graders.reports.summary import CourseSummary, course_summary
from graders.reports.terms import CHANGED
from graders.results import ClassResults, ResultsDocument, StudentResult


@pytest.fixture(scope="module")
def two_terms() -> tuple[CourseSummary, dict[str, float], dict[str, float]]:
    then, then_right = term_class("autograd-2025", 1, later=False)
    now, now_right = term_class("autograd-2026", 2, later=True)
    summary = course_summary(
        [ClassResults.of(now)], course_info(), [("2025 fall", [ClassResults.of(then)])]
    )
    return summary, then_right, now_right


def test_every_question_of_two_terms_is_side_by_side_with_each_term_s_figures(
    two_terms: tuple[CourseSummary, dict[str, float], dict[str, float]],
) -> None:
    summary, then_right, now_right = two_terms
    assert summary.terms == ("2025 fall", "2026 fall")
    assert [q.item for q in summary.across_terms] == list(ITEMS)  # course order; not ex/new
    for q in summary.across_terms:
        assert [t.term for t in q.terms] == ["2025 fall", "2026 fall"]
        assert q.where == f"exercises/ex.yml:{10 + list(ITEMS).index(q.item)}"
        then, now = (t.stats for t in q.terms)
        assert (then.answers, now.answers) == (LEARNERS, LEARNERS)
        assert then.difficulty == pytest.approx(then_right[q.item], abs=1e-12)
        assert now.difficulty == pytest.approx(now_right[q.item], abs=1e-12)
        assert then.discrimination is not None and then.discrimination > 0.2


def test_exactly_the_question_made_harder_is_flagged_with_both_terms_named(
    two_terms: tuple[CourseSummary, dict[str, float], dict[str, float]],
) -> None:
    summary, then_right, now_right = two_terms
    flagged = {q.item: q.flag for q in summary.across_terms if q.flag}
    assert set(flagged) == {HARDER_LATER}
    flag = flagged[HARDER_LATER]
    assert flag.kind == CHANGED
    assert (flag.figures["low"], flag.figures["high"]) == ("2026 fall", "2025 fall")
    assert flag.figures["low_share"] == f"{now_right[HARDER_LATER]:.0%}"
    assert flag.figures["n"] == 2 * LEARNERS
    assert flag.figures["p"] == "< 0.001"  # not "= 0.000"


def test_a_term_with_few_answers_shows_its_figures_but_flags_nothing() -> None:
    then, _ = term_class("autograd-2025", 1, later=False)
    now, _ = term_class("autograd-2026", 2, later=True)
    few = ResultsDocument("autograd-2025", "ps1", "2.13.0", "", None, then.students[:9])
    summary = course_summary(
        [ClassResults.of(now)], course_info(), [("2025 fall", [ClassResults.of(few)])]
    )
    assert summary.across_terms and not any(q.flag for q in summary.across_terms)


def test_the_page_says_it_in_the_reader_s_language(
    two_terms: tuple[CourseSummary, dict[str, float], dict[str, float]],
) -> None:
    summary, _, _ = two_terms
    english = render_course(summary)
    assert 'id="terms"' in english and "Questions across terms" in english
    assert english.count('<tbody data-item="') == len(ITEMS)
    assert english.count('class="flagged"') == 1
    assert "in 2026 fall by" not in english  # the lower share is said first
    assert "In 2026 fall it was answered correctly by" in english
    with speaking("zh"):
        chinese = render_course(summary)
    assert "各学期的题目" in chinese and "Questions across terms" not in chinese
    assert "In 2026 fall" not in chinese and "2026 fall" in chinese


def test_a_course_without_earlier_terms_has_no_terms_section() -> None:
    now, _ = term_class("autograd-2026", 2, later=True)
    summary = course_summary([ClassResults.of(now)], course_info())
    assert summary.terms == () and summary.across_terms == ()
    assert 'id="terms"' not in render_course(summary)


def _record(url: str, doc: ResultsDocument) -> None:
    record_results(gradebook.open_gradebook(url), doc.course, doc.assignment, doc.students)


def test_graders_report_compares_the_terms_the_gradebook_holds(tmp_path: Path) -> None:
    course = Path(shutil.copytree(REPORT_COURSE, tmp_path / "course"))
    yml = course / "course.yml"
    yml.write_text(
        yml.read_text(encoding="utf-8")
        + "term: 2026 fall\nearlier_terms:\n  - {id: tiny-2025, term: 2025 fall}\n",
        encoding="utf-8",
    )
    url = gradebook.default_url(course)

    def as_course(doc: ResultsDocument, course_id: str) -> ResultsDocument:
        ids = {
            item: f"clone-basics/{q}"
            for item, q in zip(ITEMS, ("shares", "flag", "grad-fn"), strict=False)
        }
        students = [
            StudentResult(
                s.student,
                tuple(
                    q.__class__(ids[q.id], q.status, q.points, q.max_points)
                    for q in s.questions
                    if q.id in ids
                ),
            )
            for s in doc.students
        ]
        return ResultsDocument(course_id, "ps1", "2.13.0", "", None, students)

    _record(url, as_course(term_class("x", 1, later=False)[0], "tiny-2025"))
    _record(url, as_course(term_class("x", 2, later=True)[0], "tiny"))
    result = CliRunner().invoke(
        main, ["report", "--course", str(course), "--csv", str(tmp_path / "csv")]
    )
    assert result.exit_code == 0, result.output
    page = (course / "autograded" / "report.html").read_text(encoding="utf-8")
    assert "2025 fall → 2026 fall" in page
    with (tmp_path / "csv" / "items_by_term.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["item"], r["term"]) for r in rows] == [
        (f"clone-basics/{q}", term)
        for q in ("shares", "flag", "grad-fn")
        for term in ("2025 fall", "2026 fall")
    ]
    assert {r["item"] for r in rows if r["flags"] == CHANGED} == {"clone-basics/grad-fn"}
    assert all(r["where"].startswith("exercises/clone-basics.yml:") for r in rows)
    # A learner who takes the course again is a row of each term, none overwritten.
    engine = gradebook.open_gradebook(url)
    for course_id in ("tiny", "tiny-2025"):
        assert gradebook.class_results(engine, course_id, "ps1").count == LEARNERS
