"""Two terms of one synthetic class (a logistic model of 400 learners each, the same names
each term), one question made harder in the later term on purpose: the item analysis across
terms must find it (tests/reports/test_items_across_terms.py, test_terms_browser.py)."""

from __future__ import annotations

import math
import random
from pathlib import Path

from graders.reports.course_info import AssignmentInfo, CourseInfo, ItemInfo
from graders.results import QuestionResult, ResultsDocument, Status, StudentResult

LEARNERS = 400
ITEMS = {f"ex/q{i}": b for i, b in enumerate((-1.0, -0.3, 0.0, 0.4, 1.0))}
HARDER_LATER = "ex/q2"  # its difficulty moves from 0.0 to 1.5 in the later term
ONLY_NOW = "ex/new"  # asked in the later term only: nothing to compare
REPORT_COURSE = Path(__file__).parent / "data" / "report-course"


def term_class(
    course: str, seed: int, later: bool, learners: int = LEARNERS
) -> tuple[ResultsDocument, dict[str, float]]:
    """One term's results of ps1, and each question's share right as generated."""
    rng = random.Random(seed)
    right: dict[str, int] = {}
    students = []
    for n in range(learners):
        theta = rng.gauss(0.0, 1.0)
        questions = []
        for item, b in {**ITEMS, **({ONLY_NOW: 0.0} if later else {})}.items():
            b += 1.5 if later and item == HARDER_LATER else 0.0
            ok = rng.random() < 1.0 / (1.0 + math.exp(-1.8 * (theta - b)))
            right[item] = right.get(item, 0) + ok
            status = Status.CORRECT if ok else Status.WRONG
            questions.append(QuestionResult(item, status, float(ok), 1.0))
        students.append(StudentResult(f"s{n:03d}", tuple(questions)))  # the same names each term
    doc = ResultsDocument(course, "ps1", "2.13.0", "", None, students)
    return doc, {item: r / learners for item, r in right.items()}


def course_info() -> CourseInfo:
    """What the report knows of the course: ps1 asks every question, this term is 2026 fall."""
    items = {
        item: ItemInfo(item, "ex", "ex", "beyond", "", where=f"exercises/ex.yml:{10 + i}")
        for i, item in enumerate([*ITEMS, ONLY_NOW])
    }
    ps1 = AssignmentInfo("ps1", "ps1", tuple(items), {}, None)
    return CourseInfo("autograd-2026", "c", items, (ps1,), term="2026 fall")
