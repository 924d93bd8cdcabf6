"""Feedback pages: one self-contained HTML file per student, everything the learner needs."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner
from gradebook_rows import record_results
from small_course import small_course

from graders.cli import main
from graders.course.load import load_course
from graders.gradebook import store as gradebook
from graders.reports.author_text import prose
from graders.reports.feedback import write_feedback
from graders.results import QuestionResult, Status, StudentResult, SubmissionStatus

Q = QuestionResult


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return small_course(tmp_path)


def save(root: Path, *results: StudentResult, section: str = "§1a") -> None:
    engine = gradebook.open_gradebook(gradebook.default_url(root))
    with_section = [
        replace(r, questions=tuple(replace(q, section=section) for q in r.questions))
        for r in results
    ]
    record_results(engine, "tiny", "ps1", with_section)


ADA = StudentResult(
    "ada",
    (
        Q(
            "clone-basics/shares",
            Status.WRONG,
            0,
            1,
            "True",
            "False",
            "Sharing memory is what `detach()` does (§2).\nclone copies.",
            "clone-shares-memory",
        ),
        Q("clone-basics/flag", Status.CORRECT, 1, 1, "True", "True", "clone keeps requires_grad."),
    ),
    late_factor=0.9,
)
EVE = StudentResult(
    "eve",
    (
        Q(
            "clone-basics/shares",
            Status.INVALID,
            0,
            1,
            "<script>alert(1)</script>",
            "False",
            "not an answer literal",
        ),
        Q("clone-basics/flag", Status.UNANSWERED, 0, 1, None, "True", "clone keeps requires_grad."),
    ),
)
BOB = StudentResult(
    "bob", (), SubmissionStatus.UNGRADABLE, "bob/ps1.ipynb: not a notebook (nbformat 3)"
)


def pages(course: Path) -> dict[str, str]:
    loaded = load_course(course / "course.yml")
    written = write_feedback(loaded, "ps1", gradebook.default_url(course), course / "fb")
    return {p.stem: p.read_text() for p in written}


def text_of(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_a_page_shows_score_answers_expected_explanation_misconception_and_section(
    course: Path,
) -> None:
    save(course, ADA)
    page = pages(course)["ada"]
    text = text_of(page)
    assert "0.9 / 2" in text and "multiplied by 0.9" in text
    assert "Your answer True Expected False" in text
    assert "not correct · 0 / 1" in text and "correct · 1 / 1" in text
    assert "clone shares memory" in text  # the misconception, in words
    assert (
        "Sharing memory is what <code>detach()</code> does (§2)." in page
    )  # the explanation, formatted
    assert "section §1a" in text and "clone() of a leaf" in text
    assert (
        '<pre><code class="language-python">b = a.clone()\n</code></pre>' in page
    )  # the prompt's code block


def test_a_question_beyond_the_article_says_so_instead_of_a_section_to_reread(course: Path) -> None:
    save(course, ADA, section="beyond")
    text = text_of(pages(course)["ada"])
    assert "beyond the article: the course teaches this, the article does not say it" in text
    assert "Reread" not in text and "section beyond" not in text


def test_pages_are_self_contained(course: Path) -> None:
    save(course, ADA, EVE, BOB)
    for html in pages(course).values():
        for remote in ("http://", "https://", "<script", "<link", "src=", "@import", "url("):
            assert remote not in html


def test_learner_text_is_escaped(course: Path) -> None:
    save(course, EVE)
    page = pages(course)["eve"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page
    assert "not answered" in text_of(page) and "(none)" in text_of(page)


def test_an_ungradable_submission_gets_a_page_with_the_reason(course: Path) -> None:
    save(course, BOB)
    assert "could not be graded: bob/ps1.ipynb: not a notebook (nbformat 3)" in text_of(
        pages(course)["bob"]
    )


def test_a_code_check_shows_its_status_and_message_but_no_empty_answer(course: Path) -> None:
    timed_out = Q(
        "independent-copy/values",
        Status.TIMEOUT,
        0,
        1,
        None,
        None,
        "The code did not finish within 3 s",
    )
    save(course, StudentResult("eve", (timed_out,)))
    text = text_of(pages(course)["eve"])
    assert "timed out · 0 / 1" in text and "did not finish within 3 s" in text
    assert "Your answer" not in text and "An independent copy" in text


def test_author_markdown_is_commonmark_with_raw_html_shown_as_text() -> None:
    assert str(prose("a `<b>` and <i>this</i>\n\n```\nx < y\n```")) == (
        "<p>a <code>&lt;b&gt;</code> and &lt;i&gt;this&lt;/i&gt;</p>\n"
        "<pre><code>x &lt; y\n</code></pre>"
    )
    assert str(prose("*x* and requires_grad_ and x * 2 * y")) == (
        "<p><em>x</em> and requires_grad_ and x * 2 * y</p>"
    )


def test_author_markdown_fetches_nothing_and_links_only_to_the_web() -> None:
    html = str(
        prose(
            "![a chart](http://example.com/x.png) [doc](https://pytorch.org) [x](javascript:alert(1))"
        )
    )
    assert "<img" not in html and "a chart" in html
    assert '<a href="https://pytorch.org" rel="noopener noreferrer nofollow">doc</a>' in html
    assert (
        "javascript" not in html.split("<a ", 1)[-1].split(">", 1)[0]
        and 'href="javascript' not in html
    )


def test_feedback_command_writes_a_page_per_student(course: Path) -> None:
    save(course, ADA, EVE)
    result = CliRunner().invoke(main, ["feedback", "ps1", "--course", str(course)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (course / "autograded" / "ps1" / "feedback").iterdir()) == [
        "ada.html",
        "eve.html",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["feedback", "ps1"], "no gradebook"),
        (["feedback", "ps9"], "no assignment 'ps9'"),
    ],
)
def test_feedback_command_usage_errors_exit_2(course: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, [*args, "--course", str(course)])
    assert result.exit_code == 2 and message in result.output


def test_nothing_graded_yet_is_a_usage_error(course: Path) -> None:
    gradebook.open_gradebook(gradebook.default_url(course))
    result = CliRunner().invoke(main, ["feedback", "ps1", "--course", str(course)])
    assert result.exit_code == 2 and "nothing graded for ps1" in result.output


def test_a_late_page_says_the_due_date_the_delay_and_what_it_cost(course: Path) -> None:
    submitted = datetime.fromisoformat("2026-10-07T02:29:00+00:00")
    late = replace(ADA, submitted_at=submitted.isoformat(), late_factor=0.5)
    engine = gradebook.open_gradebook(gradebook.default_url(course))
    graded = gradebook.Graded(late, "k", None, None, submitted, "2.13.0", "plain")
    gradebook.record(engine, "tiny", "ps1", graded)
    text = text_of(pages(course)["ada"])
    assert (
        "Submitted 1 day, 2 hours after the due date (2026-10-05 23:59 UTC), at "
        "2026-10-07 02:29 UTC: your 1 points are multiplied by 0.5." in text
    )
    assert "submitted 2026-10-07 02:29 UTC" in text


def test_every_time_of_a_page_and_a_report_is_in_the_due_date_s_zone(tmp_path: Path) -> None:
    # The course gives ps1's due date at +02:00: the gradebook's UTC times are shown there.
    yml = small_course(tmp_path) / "course.yml"
    yml.write_text(
        yml.read_text().replace("2026-10-05T23:59:00+00:00", "2026-10-05T23:59:00+02:00")
    )
    submitted = datetime.fromisoformat("2026-10-07T02:29:00+00:00")
    late = replace(ADA, submitted_at=submitted.isoformat(), late_factor=0.5)
    engine = gradebook.open_gradebook(gradebook.default_url(tmp_path))
    gradebook.record(
        engine, "tiny", "ps1", gradebook.Graded(late, "k", None, None, submitted, "2.13.0", "plain")
    )
    text = text_of(pages(tmp_path)["ada"])
    assert "(2026-10-05 23:59 UTC+02:00), at 2026-10-07 04:29 UTC+02:00" in text
    assert "submitted 2026-10-07 04:29 UTC+02:00" in text and "+00:00" not in text
    report = CliRunner().invoke(main, ["report", "ps1", "--course", str(tmp_path)])
    assert report.exit_code == 0, report.output
    html = (tmp_path / "autograded" / "ps1" / "report.html").read_text(encoding="utf-8")
    assert re.search(r"graded \d{4}-\d\d-\d\d \d\d:\d\d UTC\+02:00", unescape(html))


def test_the_summary_has_points_per_section_and_links_to_each_question_to_review(
    course: Path,
) -> None:
    save(course, ADA, EVE)
    page = pages(course)["eve"]
    summary = page.split('class="summary"')[1].split("</section>")[0]
    assert '<td>article §1a</td><td class="num">0 / 2</td>' in summary
    links = re.findall(r'<a href="#([^"]+)">([^<]+)</a> · ([^<]+)</li>', summary)
    assert links == [
        ("clone-basics/shares", "Question 1.1", "not an answer"),
        ("clone-basics/flag", "Question 1.2", "not answered"),
    ]
    assert 'id="clone-basics/shares"' in page and 'id="clone-basics/flag"' in page
    assert "Every answer is correct." in text_of(render_all_correct(course))  # nothing to review


def render_all_correct(course: Path) -> str:
    right = StudentResult(
        "ada", tuple(replace(q, status=Status.CORRECT, points=q.max_points) for q in ADA.questions)
    )
    save(course, right)
    return pages(course)["ada"]


def test_questions_are_named_as_the_notebook_names_them(course: Path) -> None:
    save(course, ADA)
    text = text_of(pages(course)["ada"])
    assert "1. clone() of a leaf" in text and "Question 1.1 not correct · 0 / 1" in text


def course_checks(course: Path) -> list[tuple[str, str]]:
    """(check id, explanation as a page shows it) of the small course's code exercise."""
    loaded = load_course(course / "course.yml")
    checks = loaded.exercises["independent-copy"].exercise.checks  # type: ignore[attr-defined]
    return [(c.id, " ".join(c.explain.replace("`", "").split())) for c in checks]


def code_result(
    student: str, checks: list[tuple[str, str]], feedback: dict[str, str], status: Status
) -> StudentResult:
    code = "def independent_copy(t):\n    return t.detach()\n"
    return StudentResult(
        student,
        tuple(Q(f"independent-copy/{c}", status, 0, 1, code, None, feedback[c]) for c, _ in checks),
    )


def test_a_code_exercise_shows_the_code_once_and_each_explanation_once(tmp_path: Path) -> None:
    course = small_course(tmp_path)
    checks = course_checks(course)
    wrong = code_result(
        "ada", checks, {c: f"{e}\nYour copy shares memory." for c, e in checks}, Status.WRONG
    )
    page = code_pages(course, wrong)
    assert page.count("def independent_copy(t):") == 1 and "Your code" in page
    for _, explain in checks:
        assert squashed(text_of(page)).count(squashed(explain)) == 1, explain
    assert "Exercise 2, check values" in text_of(page)


def test_a_message_every_check_got_is_shown_once_with_each_explanation(tmp_path: Path) -> None:
    course = small_course(tmp_path)
    checks = course_checks(course)
    timed_out = code_result(
        "eve", checks, {c: "The code did not finish within 3 s." for c, _ in checks}, Status.TIMEOUT
    )
    text = text_of(code_pages(course, timed_out))
    assert text.count("did not finish within 3 s") == 1
    for _, explain in checks:
        assert squashed(text).count(squashed(explain)) == 1, explain


def squashed(text: str) -> str:
    """``text`` without whitespace: tags end words where the page has no space."""
    return "".join(text.split())


def code_pages(course: Path, result: StudentResult) -> str:
    """The ps2 page of ``result`` (the small course's ps2 holds the code exercise)."""
    engine = gradebook.open_gradebook(gradebook.default_url(course))
    gradebook.record(
        engine,
        "tiny",
        "ps2",
        gradebook.Graded(result, "k", None, None, None, "2.13.0", "plain"),
    )
    loaded = load_course(course / "course.yml")
    written = write_feedback(loaded, "ps2", gradebook.default_url(course), course / "fb")
    return written[0].read_text()
