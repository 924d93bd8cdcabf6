"""Files made from a results document: grades.csv, JUnit XML, Gradescope results.

    write_outputs(doc, out)   ->  out/results.json, out/grades.csv, out/junit.xml,
                                  out/gradescope/<student>.json

Every file is written whole or not at all (a temporary file renamed into place), so a
batch killed while exporting leaves the previous outputs readable.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..results import (
    CRASHED,
    QuestionResult,
    ResultsDocument,
    Status,
    StudentResult,
    SubmissionStatus,
)
from .submissions import safe_student

# Characters XML 1.0 cannot carry at all (a learner's answer may contain them).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# A cell starting with one of these is run as a formula by spreadsheet programs.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
GRADESCOPE_VISIBILITY = "visible"
ROSTER_MARKS = {True: "listed", False: "not on roster"}


def write_outputs(doc: ResultsDocument, out: Path) -> None:
    """Write every output file of a results document into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "results.json", doc.dumps() + "\n")
    write_atomic(out / "grades.csv", grades_csv(doc))
    write_atomic(out / "junit.xml", junit_xml(doc))
    for dropped in doc.dropped:  # a withdrawn student's earlier file must not linger
        if safe_student(dropped):
            (out / "gradescope" / f"{dropped}.json").unlink(missing_ok=True)
    for student in doc.students:
        # A missing student handed nothing in: there is no autograder result to show them.
        if safe_student(student.student) and student.status is not SubmissionStatus.MISSING:
            path = out / "gradescope" / f"{student.student}.json"
            write_atomic(path, json.dumps(gradescope_result(student), ensure_ascii=False) + "\n")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def grades_csv(doc: ResultsDocument) -> str:
    """One row per student, one column per question (points), then the late factor and total,
    the instructor's decisions (the student's own due date, the reasons of overrides), and
    with a roster a last ``roster`` column (``listed`` or ``not on roster``)."""
    qids = doc.question_ids()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    with_roster = any(s.on_roster is not None for s in doc.students)
    roster = ["roster"] if with_roster else []
    header = ["student", "status", *qids, "late_factor", "total", "max_total"]
    writer.writerow([*header, "extended_due", "overrides", *roster])
    for s in doc.students:
        points = {q.id: _round(q.points) for q in s.questions}
        writer.writerow(
            [
                _cell(s.student),
                s.status.value,
                *(points.get(q, "") for q in qids),
                s.late_factor,
                _round(s.score),
                _round(s.max_score),
                s.extension.due if s.extension else "",
                _cell("; ".join(f"{q.id}: {q.override.reason}" for q in s.questions if q.override)),
                *([ROSTER_MARKS[bool(s.on_roster)]] if with_roster else []),
            ]
        )
    return buffer.getvalue()


def _round(x: float) -> float:
    return round(x, 4)  # as the results document writes points


def _cell(text: str) -> str:
    return "'" + text if text.startswith(_FORMULA_START) else text


def junit_xml(doc: ResultsDocument) -> str:
    """JUnit XML: a test suite per student, a test case per question, points as properties."""
    root = ET.Element("testsuites", name=_xml(f"{doc.course} {doc.assignment}"))
    for s in doc.students:
        root.append(_suite(doc.assignment, s))
    _count(root, root.findall("testsuite"))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _suite(assignment: str, s: StudentResult) -> ET.Element:
    suite = ET.Element("testsuite", name=_xml(s.student))
    _properties(
        suite,
        score=_round(s.score),
        max_score=_round(s.max_score),
        status=s.status.value,
        late_factor=s.late_factor,
    )
    classname = _xml(f"{assignment}.{s.student}")
    if s.status is SubmissionStatus.UNGRADABLE:
        case = ET.SubElement(suite, "testcase", classname=classname, name="submission")
        ET.SubElement(case, "error", message=_xml(s.error or "ungradable"), type="ungradable")
    elif s.status is SubmissionStatus.MISSING:  # on the roster, nothing handed in
        case = ET.SubElement(suite, "testcase", classname=classname, name="submission")
        ET.SubElement(case, "skipped", message=_xml(s.error or "missing"))
    for q in s.questions:
        suite.append(_case(classname, q))
    _count(suite, suite.findall("testcase"))
    return suite


def _case(classname: str, q: QuestionResult) -> ET.Element:
    case = ET.Element("testcase", classname=classname, name=_xml(q.id))
    _properties(
        case,
        points=_round(q.points),
        max_points=_round(q.max_points),
        status=q.status.value,
        section=q.section,
        misconception=q.misconception,
    )
    if not q.passed:
        tag = "error" if q.status in CRASHED else "failure"
        child = ET.SubElement(case, tag, message=_xml(_verdict(q)), type=q.status.value)
        child.text = _xml(q.feedback or "")
    return case


def _properties(parent: ET.Element, **values: Any) -> None:
    props = ET.SubElement(parent, "properties")
    for name, value in values.items():
        if value is not None:
            ET.SubElement(props, "property", name=name, value=_xml(str(value)))


def _count(parent: ET.Element, children: Iterable[ET.Element]) -> None:
    children = list(children)
    if parent.tag == "testsuites":
        totals = {
            k: sum(int(c.get(k, "0")) for c in children) for k in ("tests", "failures", "errors")
        }
    else:
        totals = {
            "tests": len(children),
            "failures": sum(c.find("failure") is not None for c in children),
            "errors": sum(c.find("error") is not None for c in children),
        }
    for key, value in totals.items():
        parent.set(key, str(value))


def _verdict(q: QuestionResult) -> str:
    # A code check's answer is the learner's whole program and it has no expected value:
    # its status says it all. An answer is quoted where there is an expected one beside it.
    parts = []
    if q.answer and q.expected is not None:
        parts.append(f"answered {_short(q.answer)}")
    elif q.status is Status.UNANSWERED:
        parts.append("no answer")
    if q.expected is not None:
        parts.append(f"expected {_short(q.expected)}")
    return f"{q.status}: {', '.join(parts)}" if parts else q.status.value


def _short(text: str, limit: int = 60) -> str:
    # One line of a code answer is enough in a one-line message; the feedback has the rest.
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit and "\n" not in text.strip() else line[:limit].rstrip() + " …"


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def gradescope_result(s: StudentResult) -> dict[str, Any]:
    """One student's results in Gradescope's autograder format (``results.json``)."""
    result: dict[str, Any] = {
        "score": _round(s.score),
        "visibility": GRADESCOPE_VISIBILITY,
        "tests": [_gradescope_test(i, q) for i, q in enumerate(s.questions, 1)],
    }
    graded = s.status is SubmissionStatus.GRADED
    notes = [] if graded else [s.error or ""]
    if s.late_factor < 1 and graded:
        notes.append(f"Late penalty: the score is multiplied by {s.late_factor:g}.")
    if any(notes):
        result["output"] = "\n".join(n for n in notes if n)
    return result


def _gradescope_test(number: int, q: QuestionResult) -> dict[str, Any]:
    lines = [_verdict(q)]
    if q.misconception:
        lines.append(f"This answer matches a common misconception: {q.misconception}.")
    if q.feedback:
        lines += ["", q.feedback]
    return {
        "name": q.id,
        "number": str(number),
        "score": _round(q.points),
        "max_score": _round(q.max_points),
        "status": "passed" if q.passed else "failed",
        "output": "\n".join(lines),
        "visibility": GRADESCOPE_VISIBILITY,
        "tags": [q.section] if q.section else [],
    }
