"""Exports of a results document: grades.csv, JUnit XML, Gradescope results per student."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from class_documents import make_doc

from graders.course.model import Shown
from graders.course.visibility import seen_by_learner
from graders.exports.junit import verdict
from graders.exports.results_files import grades_csv, gradescope_result, junit_xml, write_outputs
from graders.gradebook.adjustments import with_override
from graders.results import (
    ClassResults,
    Override,
    QuestionResult,
    ResultsDocument,
    Status,
    StudentResult,
    SubmissionStatus,
)

Q = QuestionResult


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
    props = {p.get("name"): p.get("value") for p in ada.find("properties")}
    assert {k: v for k, v in props.items() if k.endswith(":ex/b")} == {
        "points:ex/b": "0.0",
        "max_points:ex/b": "2.0",
        "status:ex/b": "wrong",
    }
    assert ada.find("testcase[@name='ex/b']/system-out").text.splitlines() == [
        "points: 0/2",
        "status: wrong",
        "section: §2",
        "misconception: clone-shares-memory",
    ]
    assert (
        ada.find("testcase[@name='ex/b']/failure").get("message").startswith("wrong: answered True")
    )
    assert ada.find("testcase[@name='code/check']/failure").get("type") == "timeout"
    assert {c.get("time") for c in root.iter("testcase")} == {"0.000"}
    assert (ada.get("tests"), ada.get("failures"), ada.get("errors")) == ("3", "1", "1")
    assert suites["=evil"].find("testcase/failure").get("message") == "not a notebook"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("7", "1", "2")


@pytest.mark.parametrize("family", ["xunit2", "legacy"])
def test_every_junit_count_is_what_its_test_cases_say(doc: ResultsDocument, family: str) -> None:
    missing = StudentResult("zed", (), SubmissionStatus.MISSING, "nothing handed in")
    root = ET.fromstring(junit_xml(replace(doc, students=(*doc.students, missing)), family))
    crashed = {"error", "timeout", "integrity", "ungradable"}

    def counted(cases: list[ET.Element]) -> tuple[str, str, str]:
        missed = [c.find("failure") if c.find("error") is None else c.find("error") for c in cases]
        errors = sum(m is not None and m.get("type") in crashed for m in missed)
        failures = sum(m is not None for m in missed) - errors
        return str(len(cases)), str(failures), str(errors)

    for suite in root.findall("testsuite"):
        assert counted(suite.findall("testcase")) == tuple(
            suite.get(k) for k in ("tests", "failures", "errors")
        )
    assert counted(list(root.iter("testcase"))) == (
        root.get("tests"),
        root.get("failures"),
        root.get("errors"),
    )
    assert root.find("testsuite[@name='zed']/testcase/skipped") is not None


def test_a_class_parsed_from_json_shares_each_repeated_text() -> None:
    # Every student's copy of an explanation is one string: a class of thousands fits in memory.
    explanation = "`clone()` copies the data into new memory, so the two never share it. " * 3
    students = [
        StudentResult(name, (Q("ex/a", Status.CORRECT, 1, 1, "False", "False", explanation),))
        for name in ("ada", "bob")
    ]
    doc = ResultsDocument("c", "ps1", None, None, None, students)
    ada, bob = ResultsDocument.parse(doc.dumps()).students
    assert str(ada.questions[0].feedback) == explanation
    (ada_text,), (bob_text,) = ada.questions[0].feedback.parts, bob.questions[0].feedback.parts
    assert ada_text.text is bob_text.text


def test_the_legacy_junit_family_keeps_properties_in_test_cases(doc: ResultsDocument) -> None:
    root = ET.fromstring(junit_xml(doc, "legacy"))
    ada = root.find("testsuite[@name='ada']")
    props = {p.get("name"): p.get("value") for p in ada.find("testcase[@name='ex/b']/properties")}
    assert props == {
        "points": "0.0",
        "max_points": "2.0",
        "status": "wrong",
        "section": "§2",
        "misconception": "clone-shares-memory",
    }
    assert ada.find("testcase[@name='code/check']/error").get("type") == "timeout"
    assert (ada.get("tests"), ada.get("failures"), ada.get("errors")) == ("3", "1", "1")


def test_gradescope_result_per_student(doc: ResultsDocument) -> None:
    bob = gradescope_result(next(s for s in doc.students if s.student == "bob"))
    assert bob["score"] == 4.8 and "Late penalty" in bob["output"]
    assert bob["output_format"] == "md" and bob["output"].startswith("**Score: 4.8 / 6**")
    scored = [t for t in bob["tests"] if "score" in t]
    assert [(t["name"], t["score"], t["max_score"], t["status"]) for t in scored] == [
        ("ex/a", 1.0, 1.0, "passed"),
        ("ex/b", 2.0, 2.0, "passed"),
        ("code/check", 3.0, 3.0, "passed"),
    ]
    ada = gradescope_result(next(s for s in doc.students if s.student == "ada"))
    wrong = next(t for t in ada["tests"] if t["name"] == "ex/b")
    assert (
        wrong["status"] == "failed"
        and "clone shares memory" in wrong["output"]
        and wrong["visibility"] == "visible"
        and wrong["output_format"] == "md"
    )
    assert all(
        set(t) >= {"name", "status", "output", "output_format", "visibility"} for t in ada["tests"]
    )


def test_an_answer_is_quoted_only_beside_the_expected_one(doc: ResultsDocument) -> None:
    ada = next(s for s in doc.students if s.student == "ada")
    assert verdict(ada.question("ex/b")).startswith("wrong: answered True")
    assert verdict(ada.question("code/check")) == "timeout"  # the learner's program: not quoted
    # Before the assignment closes the expected answer is held back, and the quote with it.
    shown = seen_by_learner(ada, Shown.CHECKS)
    assert verdict(shown.question("ex/b")) == "wrong"
    md = [t for t in gradescope_result(ada)["tests"] if t["name"] == "ex/b"][0]["output"]
    assert md.startswith("`ex/b`\n\n**wrong**\n") and "True" not in md


def test_gradescope_says_why_the_instructor_changed_the_points(doc: ResultsDocument) -> None:
    ada = next(s for s in doc.students if s.student == "ada")
    override = Override(1.5, "the prompt was ambiguous", "prof", "2026-10-08T10:00:00+00:00")
    questions = tuple(with_override(q, override if q.id == "ex/b" else None) for q in ada.questions)
    result = gradescope_result(replace(ada, questions=questions))
    test = next(t for t in result["tests"] if t["name"] == "ex/b" and "score" in t)
    assert test["score"] == 1.5
    assert "Adjusted by the instructor: the prompt was ambiguous (1.5 / 2 points)" in test["output"]
    assert result["score"] == 2.5


def test_write_outputs_writes_every_file_and_no_file_for_an_unsafe_name(
    doc: ResultsDocument, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    write_outputs(ClassResults.of(doc), out)
    assert ResultsDocument.parse((out / "results.json").read_text()) == doc
    assert sorted(p.name for p in (out / "gradescope").iterdir()) == ["ada.json", "bob.json"]
    assert {p.name for p in out.iterdir()} == {
        "results.json",
        "grades.csv",
        "junit.xml",
        "gradescope",
    }
