"""`graders report`: the HTML page and CSV tables made from the gradebook, the course
summary, and the errors a user can make. The class is the one of test_report_aggregate
(tests/class_documents.py), the course is tests/data/report-course."""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from class_documents import COPIES, CSM, CUTS, class_document
from click.testing import CliRunner
from gradebook_rows import record_results

from graders.cli import main
from graders.gradebook import store as gradebook
from graders.results import QuestionResult, ResultsDocument, Status, StudentResult

COURSE = (
    Path(__file__).parent.parent / "data" / "report-course"
)  # ps1: clone-basics + detach-basics; ps2: detach-basics


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A copy of the report course, so its gradebook and reports go to a temporary folder."""
    return Path(shutil.copytree(COURSE, tmp_path / "course"))


def save(root: Path, assignment: str, doc: ResultsDocument) -> None:
    """Record every student of a results document in the course's default gradebook."""
    engine = gradebook.open_gradebook(gradebook.default_url(root))
    record_results(engine, "tiny", assignment, doc.students)


def run(*args: str) -> Any:
    return CliRunner().invoke(main, ["report", *args])


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_report_from_the_gradebook_is_one_self_contained_page(course: Path) -> None:
    save(course, "ps1", class_document())
    result = run("ps1", "--course", str(course))
    assert result.exit_code == 0, result.output
    page = (course / "autograded" / "ps1" / "report.html").read_text()
    for remote in ("http://", "https://", "<link", "src=", "@import", "url("):
        assert remote not in page
    assert "default-src 'none'" in page  # and the browser is told to fetch nothing
    assert re.findall(r'<rect class="bin"[^>]*data-count="(\d+)"', page) == [
        "0",
        "1",
        "2",
        "1",
        "1",
    ]
    assert '<dd id="kpi-mean">2.64</dd>' in page and '<dd id="kpi-median">2</dd>' in page
    assert re.findall(r'<li id="q-[^"]*" data-item="([^"]+)"', page)[:2] == [
        "clone-basics/grad-fn",
        "detach-basics/resize",
    ]
    assert (
        'href="#section-1a"' in page and 'id="section-1a"' in page
    )  # questions link to their article section
    assert (
        "Sharing memory is what <code>detach()</code> does (§2)." in page
    )  # the course's explanation
    assert "detached-resize-raises" in page  # declared, seen in nobody's answers


def test_questions_are_named_as_the_notebook_names_them(course: Path) -> None:
    """Both exercises have a question `shares`: the report tells them apart as the notebook."""
    save(course, "ps1", class_document())
    assert run("ps1", "--course", str(course)).exit_code == 0
    page = (course / "autograded" / "ps1" / "report.html").read_text()
    names = dict(re.findall(r'<span class="id" title="([^"]+)">([^<]+)</span>', page))
    assert names["clone-basics/shares"] == "Question 1.1"
    assert names["detach-basics/shares"] == "Question 2.1"
    assert len(set(names.values())) == len(names)


def test_a_section_beyond_the_article_is_shown_as_such(course: Path) -> None:
    exercise = course / "exercises" / "detach-basics.yml"
    exercise.write_text(exercise.read_text().replace('section: "§2"', "section: beyond"))
    save(course, "ps1", class_document())
    assert run("ps1", "--course", str(course)).exit_code == 0
    page = (course / "autograded" / "ps1" / "report.html").read_text()
    assert (
        '<a class="badge" href="#section-beyond" title="not in the article">beyond the article</a>'
        in page
    )
    assert '<tr id="section-beyond" data-section="beyond"><td>beyond the article</td>' in page
    assert page.index('id="section-1a"') < page.index(
        'id="section-beyond"'
    )  # after the article's sections


def test_learner_answers_are_escaped(course: Path) -> None:
    doc = ResultsDocument(
        "tiny",
        "ps1",
        "2.13.0",
        "",
        None,
        [
            StudentResult(
                "mallory",
                (
                    QuestionResult(
                        "clone-basics/shares",
                        Status.WRONG,
                        0.0,
                        1.0,
                        "<script>alert(1)</script>",
                        "False",
                    ),
                ),
            )
        ]
        * 2,
    )
    out = course / "r.html"
    path = course / "doc.json"
    path.write_text(doc.dumps())
    assert (
        run("ps1", "--course", str(course), "--results", str(path), "--out", str(out)).exit_code
        == 0
    )
    page = out.read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page


def test_csv_tables(course: Path, tmp_path: Path) -> None:
    save(course, "ps1", class_document())
    result = run("ps1", "--course", str(course), "--csv", str(tmp_path / "csv"))
    assert result.exit_code == 0, result.output
    questions = read_csv(tmp_path / "csv" / "questions.csv")
    assert [q["question"] for q in questions][:2] == [
        "clone-basics/grad-fn",
        "detach-basics/resize",
    ]
    resize = questions[1]
    assert (
        resize["correct"],
        resize["wrong"],
        resize["invalid"],
        resize["unanswered"],
        resize["share_correct"],
    ) == ("3", "1", "1", "1", "0.5")
    misconceptions = {
        m["misconception"]: m for m in read_csv(tmp_path / "csv" / "misconceptions.csv")
    }
    assert misconceptions[CUTS]["per_question"] == "clone-basics/flag: 1; clone-basics/grad-fn: 1"
    assert misconceptions[CSM]["holders"] == "bob; cy" and misconceptions[CSM][
        "explanation"
    ].startswith("Sharing memory")
    students = {s["student"]: s for s in read_csv(tmp_path / "csv" / "students.csv")}
    assert students["bob"]["may_need_help"] == "20% of the points; 3 misconceptions"
    assert students["fay"]["status"] == "ungradable" and students["gus"]["late_factor"] == "0.8"
    unnamed = read_csv(tmp_path / "csv" / "unnamed_answers.csv")
    assert (unnamed[0]["answer"], unnamed[0]["students"], unnamed[0]["who"]) == (
        "AddBackward0",
        "2",
        "cy; dee",
    )
    assert len(read_csv(tmp_path / "csv" / "misconception_pairs.csv")) == 3


def test_course_summary_over_every_graded_assignment(course: Path, tmp_path: Path) -> None:
    save(course, "ps1", class_document())
    ps2 = ResultsDocument(
        "tiny",
        "ps2",
        "2.13.0",
        "",
        None,
        [
            StudentResult(
                "ada",
                (QuestionResult("detach-basics/shares", Status.CORRECT, 1.0, 1.0, "True", "True"),),
            ),
            StudentResult(
                "bob",
                (
                    QuestionResult(
                        "detach-basics/shares", Status.WRONG, 0.0, 1.0, "False", "True", "", COPIES
                    ),
                ),
            ),
        ],
    )
    save(course, "ps2", ps2)
    assert run("ps1", "--course", str(course)).exit_code == 0
    result = run("--course", str(course), "--csv", str(tmp_path / "csv"))
    assert result.exit_code == 0, result.output
    page = (course / "autograded" / "report.html").read_text()
    assert "ps1 → ps2" in page
    assert (
        'href="ps1/report.html"' in page and 'href="ps2/report.html"' not in page
    )  # only reports that exist
    assignments = read_csv(tmp_path / "csv" / "assignments.csv")
    assert [(a["assignment"], a["graded"], a["mean_share"]) for a in assignments] == [
        ("ps1", "5", "0.528"),
        ("ps2", "2", "0.5"),
    ]
    students = {s["student"]: s for s in read_csv(tmp_path / "csv" / "students.csv")}
    assert (students["bob"]["ps1"], students["bob"]["ps2"]) == (
        "0.2",
        "0",
    )  # under half twice: may need help
    assert (students["cy"]["ps2"], students["fay"]["ps1"]) == (
        "",
        "",
    )  # nothing handed in / ungradable
    misconceptions = {
        m["misconception"]: m for m in read_csv(tmp_path / "csv" / "misconceptions.csv")
    }
    assert (misconceptions[COPIES]["ps1"], misconceptions[COPIES]["ps2"]) == ("0.3333", "0.5")
    assert misconceptions[CSM]["ps2"] == ""  # ps2 does not ask about it
    assert 'href="#s-bob"' in page


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ps1"], "no gradebook"),
        (["ps9"], "no assignment 'ps9'"),
    ],
    ids=["no-gradebook", "unknown-assignment"],
)
def test_usage_errors_exit_2(course: Path, args: list[str], message: str) -> None:
    result = run(*args, "--course", str(course))
    assert result.exit_code == 2 and message in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ps1"], "nothing graded for ps1"),
        ([], "no assignment has been graded yet"),
    ],
    ids=["assignment", "course"],
)
def test_nothing_graded_yet_is_a_usage_error(course: Path, args: list[str], message: str) -> None:
    gradebook.open_gradebook(gradebook.default_url(course))
    result = run(*args, "--course", str(course))
    assert result.exit_code == 2 and message in result.output


def test_results_of_another_course_are_refused(course: Path) -> None:
    path = course / "other.json"
    path.write_text(ResultsDocument("other", "ps1", "2.13.0", "", None, []).dumps())
    result = run("ps1", "--course", str(course), "--results", str(path))
    assert result.exit_code == 2 and "results of course 'other'" in result.output


def test_every_scroll_region_of_every_page_is_reached_by_keyboard() -> None:
    """A table that may scroll sideways sits in a ``div.scroll``, which a keyboard reaches
    only with ``tabindex="0"`` (axe-core: scrollable-region-focusable). Checked on the
    templates' sources, so that a new table of any page, report or service, is covered."""
    templates = Path(__file__).resolve().parents[2] / "graders"
    found = [
        (path.name, tag)
        for path in sorted(templates.rglob("*.j2"))
        for tag in re.findall(r"<div\b[^>]*\bclass=\"scroll\"[^>]*>", path.read_text("utf-8"))
    ]
    assert found, "no scroll region found: the check no longer reads the templates"
    assert [(name, tag) for name, tag in found if 'tabindex="0"' not in tag] == []
