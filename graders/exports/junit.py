"""JUnit XML of a results document: a test suite per student, a test case per question.

    junit_xml(doc)                     # the xunit2 family (pytest's default, and its schema)
    junit_xml(doc, family="legacy")    # properties inside each test case, as xunit1 readers want

The xunit2 schema allows ``<properties>`` only on a test suite and knows no ``<error>``
inside a test case, so in that family a question's points are suite properties
(``points:<id>``, ``max_points:<id>``, ``status:<id>``) and its test case's ``system-out``
(``points: 0/2``); a code check that crashed or timed out is a ``<failure>`` whose ``type``
says so, counted in the suite's ``errors``. graders does not time single questions: every
test case has ``time="0.000"`` so that reporters show a duration rather than none.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..i18n import _
from ..results import (
    CRASHED,
    NOT_GRADED,
    ClassResults,
    QuestionResult,
    ResultsDocument,
    Status,
    StudentResult,
    SubmissionStatus,
    file_pieces,
    format_points,
)
from .status_names import status_name

if TYPE_CHECKING:
    from .contract import ExportContext

Family = Literal["xunit2", "legacy"]
FAMILIES: tuple[Family, ...] = ("xunit2", "legacy")
NO_TIME = "0.000"
UNGRADABLE = "ungradable"
# Characters XML 1.0 cannot carry at all (a learner's answer may contain them).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def junit_xml(doc: ResultsDocument, family: Family = "xunit2") -> str:
    """The document as JUnit XML of ``family``."""
    return "".join(junit_pieces(ClassResults.of(doc), family))


def junit_pieces(results: ClassResults, family: Family = "xunit2") -> Iterator[str]:
    """``junit_xml`` of a class a test suite at a time: a class of thousands is never one XML
    tree. Two passes: the counts the root carries, then the suites."""
    counts = class_counts(results.students())
    return file_pieces(JunitFile(results, counts, family), results.students())


def junit_file(results: ClassResults, context: ExportContext) -> JunitFile:
    """junit.xml (xunit2) of a class, its root's counts from the outline read before, else
    counted now."""
    outline = context.outline
    counts = outline.junit_counts if outline else class_counts(results.students())
    return JunitFile(results, counts)


@dataclass
class Counts:
    """The test cases, failures and errors of a class, counted a student at a time."""

    tests: int = 0
    failures: int = 0
    errors: int = 0

    def add(self, s: StudentResult) -> None:
        tests, failures, errors = _counts(s)
        self.tests, self.failures, self.errors = (
            self.tests + tests,
            self.failures + failures,
            self.errors + errors,
        )

    def totals(self) -> tuple[int, int, int]:
        return self.tests, self.failures, self.errors


def class_counts(students: Iterable[StudentResult]) -> tuple[int, int, int]:
    """The test cases, failures and errors of a whole class."""
    counts = Counts()
    for s in students:
        counts.add(s)
    return counts.totals()


@dataclass
class JunitFile:
    """The class's JUnit XML a test suite at a time (``results.ClassFile``), its root
    carrying ``counts`` (``class_counts``)."""

    results: ClassResults
    counts: tuple[int, int, int]
    family: Family = "xunit2"
    written: int = 0

    def head(self) -> str:
        name = xml_text(f"{self.results.course} {self.results.assignment}")
        root = ET.Element("testsuites", name=name)
        _set_counts(root, self.counts)
        root.set("time", NO_TIME)
        if not self.results.count:
            return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
        # The suites are indented as ET.indent would indent the whole tree: one level in.
        root.text = "\n  "
        whole = ET.tostring(root, encoding="unicode", xml_declaration=True)
        return whole.removesuffix("</testsuites>")  # the declaration and the opening tag

    def student(self, s: StudentResult) -> str:
        suite = _suite(self.results.assignment, s, self.family)
        ET.indent(suite, level=1)
        self.written += 1
        return ("" if self.written == 1 else "\n  ") + ET.tostring(suite, encoding="unicode")

    def tail(self) -> str:
        return "\n</testsuites>\n" if self.results.count else ""


def _suite(assignment: str, s: StudentResult, family: Family) -> ET.Element:
    suite = ET.Element("testsuite", name=xml_text(s.student), time=NO_TIME)
    values: dict[str, Any] = {
        "score": _round(s.score),
        "max_score": _round(s.max_score),
        "status": s.status.value,
        "late_factor": s.late_factor,
    }
    if family == "xunit2":
        for q in s.questions:
            values |= {
                f"points:{q.id}": _round(q.points),
                f"max_points:{q.id}": _round(q.max_points),
                f"status:{q.id}": q.status.value,
            }
    _properties(suite, values)
    classname = xml_text(f"{assignment}.{s.student}")
    if s.status in NOT_GRADED:  # "ungradable", or "internal": graders failed on it
        case = ET.SubElement(
            suite, "testcase", classname=classname, name="submission", time=NO_TIME
        )
        tag = "error" if family == "legacy" else "failure"
        kind = s.status.value
        ET.SubElement(case, tag, message=xml_text(str(s.error or kind)), type=kind)
    elif s.status is SubmissionStatus.MISSING:  # on the roster, nothing handed in
        case = ET.SubElement(
            suite, "testcase", classname=classname, name="submission", time=NO_TIME
        )
        ET.SubElement(case, "skipped", message=xml_text(str(s.error or "missing")))
    _set_counts(suite, _counts(s))
    for q in s.questions:
        suite.append(_case(classname, q, family))
    return suite


def _case(classname: str, q: QuestionResult, family: Family) -> ET.Element:
    case = ET.Element("testcase", classname=classname, name=xml_text(q.id), time=NO_TIME)
    about = {
        "points": _round(q.points),
        "max_points": _round(q.max_points),
        "status": q.status.value,
        "section": q.section,
        "misconception": q.misconception,
    }
    if family == "legacy":
        _properties(case, about)
    if not q.passed:
        crashed = q.status in CRASHED
        tag = "error" if crashed and family == "legacy" else "failure"
        child = ET.SubElement(case, tag, message=xml_text(verdict(q)), type=q.status.value)
        child.text = xml_text(str(q.feedback))
    if family == "xunit2":
        out = ET.SubElement(case, "system-out")
        out.text = _about_text(q)
    return case


def _about_text(q: QuestionResult) -> str:
    lines = [
        f"points: {format_points(q.points)}/{format_points(q.max_points)}",
        f"status: {q.status.value}",
    ]
    lines += [f"section: {q.section}"] if q.section else []
    lines += [f"misconception: {q.misconception}"] if q.misconception else []
    return xml_text("\n".join(lines))


def _properties(parent: ET.Element, values: dict[str, Any]) -> None:
    props = ET.SubElement(parent, "properties")
    for name, value in values.items():
        if value is not None:
            ET.SubElement(props, "property", name=xml_text(name), value=xml_text(str(value)))


def _counts(s: StudentResult) -> tuple[int, int, int]:
    """A student's test cases, failures and errors (a crash, a timeout, tampering or an
    unreadable submission: not the learner being wrong)."""
    missed = sum(not q.passed for q in s.questions)
    errors = sum(q.status in CRASHED for q in s.questions)
    if s.status in NOT_GRADED:  # the "submission" case, an error
        return len(s.questions) + 1, missed - errors, errors + 1
    if s.status is SubmissionStatus.MISSING:  # the "submission" case, skipped
        return len(s.questions) + 1, missed - errors, errors
    return len(s.questions), missed - errors, errors


def _set_counts(element: ET.Element, counts: tuple[int, int, int]) -> None:
    for key, total in zip(("tests", "failures", "errors"), counts, strict=True):
        element.set(key, str(total))


def verdict(
    q: QuestionResult,
    quote: Callable[[str], str] = str,
    stress: Callable[[str], str] = str,
) -> str:
    """One line about a missed question: ``wrong: answered True, expected False``; each
    answer's first line written by ``quote`` and the status by ``stress`` (Gradescope's
    Markdown: a code span, bold)."""
    # A code check's answer is the learner's whole program and it has no expected value:
    # its status says it all. An answer is quoted where there is an expected one beside it
    # (so not in a learner's view that holds the expected answer back either).
    parts = []
    if q.answer and q.expected is not None:
        parts.append(_("answered {answer}").format(answer=quote(_short(q.answer))))
    elif q.status is Status.UNANSWERED:
        parts.append(_("no answer"))
    if q.expected is not None:
        parts.append(_("expected {answer}").format(answer=quote(_short(q.expected))))
    status = stress(status_name(q.status.value))
    return f"{status}: {', '.join(parts)}" if parts else status


def _short(text: str, limit: int = 60) -> str:
    # One line of a code answer is enough in a one-line message; the feedback has the rest.
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit and "\n" not in text.strip() else line[:limit].rstrip() + " …"


def xml_text(text: str) -> str:
    """``text`` with the characters XML cannot carry replaced."""
    return _NOT_XML.sub("\ufffd", text)


def _round(x: float) -> float:
    return round(x, 4)  # as the results document writes points
