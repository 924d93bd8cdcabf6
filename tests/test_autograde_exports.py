"""Exports of a results document: grades.csv, JUnit XML, Gradescope results per student."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from graders.batch import gradebook
from graders.batch.exports import grades_csv, gradescope_result, junit_xml, write_outputs
from graders.results import QuestionResult, ResultsDocument, Status, StudentResult, SubmissionStatus

Q = QuestionResult
SECTIONS = {"ex/a": "§1a", "ex/b": "§2", "code/check": "§4"}


def with_sections(result: StudentResult) -> StudentResult:
    return replace(
        result, questions=tuple(replace(q, section=SECTIONS[q.id]) for q in result.questions)
    )


def make_doc(tmp_path: Path) -> ResultsDocument:
    engine = gradebook.open_gradebook(f"sqlite:///{tmp_path / 'g.db'}")
    results = [
        StudentResult(
            "ada",
            (
                Q("ex/a", Status.CORRECT, 1, 1, "False", "False", "ok"),
                Q(
                    "ex/b",
                    Status.WRONG,
                    0,
                    2,
                    "True\x07<b>",
                    "False",
                    "shares memory",
                    "clone-shares-memory",
                ),
                Q(
                    "code/check",
                    Status.TIMEOUT,
                    0,
                    3,
                    "while True:\n    pass",
                    None,
                    "took longer than 10 s",
                ),
            ),
        ),
        StudentResult(
            "bob",
            (
                Q("ex/a", Status.CORRECT, 1, 1, "False", "False", "ok"),
                Q("ex/b", Status.CORRECT, 2, 2, "False", "False", "ok"),
                Q("code/check", Status.CORRECT, 3, 3, "def f(): ...", None, ""),
            ),
            late_factor=0.8,
        ),
        StudentResult("=evil", (), SubmissionStatus.UNGRADABLE, "not a notebook"),
    ]
    for r in results:
        gradebook.record(
            engine,
            "c",
            "ps1",
            gradebook.Graded(
                with_sections(r),
                key="k",
                run_id=None,
                source=None,
                submitted_at=None,
                torch_version="2.13.0",
                isolation="plain",
            ),
        )
    return gradebook.results_document(engine, "c", "ps1")


@pytest.fixture
def doc(tmp_path: Path) -> ResultsDocument:
    return make_doc(tmp_path)


def test_grades_csv_has_a_row_per_student_and_a_column_per_question(doc: ResultsDocument) -> None:
    rows = list(csv.DictReader(io.StringIO(grades_csv(doc))))
    assert list(rows[0]) == [
        "student",
        "status",
        "ex/a",
        "ex/b",
        "code/check",
        "late_factor",
        "total",
        "max_total",
        "extended_due",
        "overrides",
    ]
    by = {r["student"]: r for r in rows}
    assert (by["ada"]["ex/a"], by["ada"]["ex/b"], by["ada"]["total"], by["ada"]["max_total"]) == (
        "1.0",
        "0.0",
        "1.0",
        "6.0",
    )
    assert (by["bob"]["total"], by["bob"]["late_factor"]) == ("4.8", "0.8")
    # A name a spreadsheet would run as a formula is quoted; an ungradable row has no points.
    assert by["'=evil"]["status"] == "ungradable" and by["'=evil"]["ex/a"] == ""


def test_junit_has_a_testcase_per_question_with_points(doc: ResultsDocument) -> None:
    root = ET.fromstring(junit_xml(doc))  # parses: control characters in answers were replaced
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    ada = suites["ada"]
    assert [c.get("name") for c in ada.findall("testcase")] == ["ex/a", "ex/b", "code/check"]
    props = {p.get("name"): p.get("value") for p in ada.find("testcase[@name='ex/b']/properties")}
    assert props == {
        "points": "0.0",
        "max_points": "2.0",
        "status": "wrong",
        "section": "§2",
        "misconception": "clone-shares-memory",
    }
    assert (
        ada.find("testcase[@name='ex/b']/failure").get("message").startswith("wrong: answered True")
    )
    assert ada.find("testcase[@name='code/check']/error").get("type") == "timeout"
    assert (ada.get("tests"), ada.get("failures"), ada.get("errors")) == ("3", "1", "1")
    assert suites["=evil"].find("testcase/error").get("message") == "not a notebook"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("7", "1", "2")


def test_gradescope_result_per_student(doc: ResultsDocument) -> None:
    bob = gradescope_result(next(s for s in doc.students if s.student == "bob"))
    assert bob["score"] == 4.8 and "Late penalty" in bob["output"]
    assert [(t["name"], t["score"], t["max_score"], t["status"]) for t in bob["tests"]] == [
        ("ex/a", 1.0, 1.0, "passed"),
        ("ex/b", 2.0, 2.0, "passed"),
        ("code/check", 3.0, 3.0, "passed"),
    ]
    ada = gradescope_result(next(s for s in doc.students if s.student == "ada"))
    wrong = ada["tests"][1]
    assert (
        wrong["status"] == "failed"
        and "clone-shares-memory" in wrong["output"]
        and wrong["visibility"] == "visible"
    )
    assert all(
        set(t) >= {"name", "score", "max_score", "output", "visibility"} for t in ada["tests"]
    )


def test_write_outputs_writes_every_file_and_no_file_for_an_unsafe_name(
    doc: ResultsDocument, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    write_outputs(doc, out)
    assert ResultsDocument.parse((out / "results.json").read_text()) == doc
    assert sorted(p.name for p in (out / "gradescope").iterdir()) == ["ada.json", "bob.json"]
    assert {p.name for p in out.iterdir()} == {
        "results.json",
        "grades.csv",
        "junit.xml",
        "gradescope",
    }
