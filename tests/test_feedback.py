"""Feedback pages: one self-contained HTML file per student, everything the learner needs."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from small_course import small_course

from graders.batch import gradebook
from graders.cli import main
from graders.course.load import load_course
from graders.reports.feedback import prose, write_feedback
from graders.results import QuestionResult, Status, StudentResult, SubmissionStatus

Q = QuestionResult


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return small_course(tmp_path)


def save(root: Path, *results: StudentResult, section: str = "§1a") -> None:
    engine = gradebook.open_gradebook(gradebook.default_url(root))
    for r in results:
        r = replace(r, questions=tuple(replace(q, section=section) for q in r.questions))
        gradebook.record(
            engine,
            "tiny",
            "ps1",
            gradebook.Graded(
                r,
                key="k",
                run_id=None,
                source=None,
                submitted_at=None,
                torch_version="2.13.0",
                isolation="plain",
            ),
        )


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
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


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
    assert "<pre><code>b = a.clone()</code></pre>" in page  # the prompt's code block


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


def test_prose_escapes_before_formatting() -> None:
    assert (
        str(prose("a `<b>` and\n\n```\nx < y\n```"))
        == "<p>a <code>&lt;b&gt;</code> and</p><pre><code>x &lt; y</code></pre>"
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
