"""Class report aggregation over a results document whose every number can be counted by eye.

The class (5 questions, 1 point each):

    student  status        clone/shares  clone/flag  clone/grad-fn     detach/shares  detach/resize
    ada      graded        ✓             ✓           ✓                 ✓              ✓
    bob      graded        ✗ True (csm)  ✗ False (c) ✗ None (c)        ✗ False (dc)   ✓
    cy       graded        ✗ True (csm)  ✓           ✗ <AddBackward0>  ✓              ? tensor(2.
    dee      graded        ✓             ✓           ✗ AddBackward0    ✗ False (dc)   – (unanswered)
    eve      late-cutoff   ✓             ✓           ✓                 ✓              ✓
    fay      ungradable    (no answers)
    gus      graded ×0.8   ✓             ✓           ✓                 ✓              ✗ ValueError

    csm = clone-shares-memory, c = clone-cuts-graph, dc = detach-copies-memory
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from class_documents import COPIES, CSM, CUTS, ITEMS, class_document

from graders.course.load import load_course
from graders.reports.aggregate import (
    StudentRow,
    hardest_first,
    histogram,
    late_or_ungradable,
    many_misconceptions,
    needs_help,
    question_stats,
    score_stats,
    student_rows,
)
from graders.reports.course_info import CourseInfo, course_info
from graders.reports.misconceptions import (
    cooccurrence,
    holdings,
    misconception_stats,
    normalise_answer,
    unnamed_wrong_answers,
    unseen_misconceptions,
)
from graders.results import QuestionResult, ResultsDocument, Status, StudentResult

COURSE = Path(__file__).parent.parent / "data" / "report-course" / "course.yml"


def course() -> CourseInfo:
    """What the report course (tests/data/report-course) says about these items."""
    return course_info(load_course(COURSE))


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return class_document()


def test_score_statistics_count_graded_submissions_only(doc: ResultsDocument) -> None:
    stats = score_stats(doc)
    # ada 5, bob 1, cy 2, dee 2, gus 4 × 0.8; eve (late-cutoff) and fay (ungradable) are out
    assert (stats.count, stats.max_score) == (5, 5.0)
    assert stats.mean == pytest.approx((5 + 1 + 2 + 2 + 3.2) / 5)
    assert (stats.median, stats.highest, stats.lowest) == (2.0, 5.0, 1.0)
    assert [b.count for b in stats.bins] == [0, 1, 2, 1, 1]  # full marks fall in the last bar


@pytest.mark.parametrize(
    ("scores", "top", "counts"),
    [
        ([0.0, 10.0, 10.0], 10.0, [1, 0, 0, 0, 0, 0, 0, 0, 0, 2]),
        ([0.0, 12.5, 24.9, 25.0], 25.0, [1, 0, 0, 0, 0, 1, 0, 0, 0, 2]),  # bars of 2.5
        ([0.0, 43.0, 44.0], 44.0, [1, 0, 0, 0, 0, 0, 0, 0, 2]),  # bars of 5; the last one is 40-44
        ([], 3.0, [0, 0, 0]),
        ([1.5], 2.5, [0, 0, 0, 0, 0, 0, 1, 0, 0, 0]),  # bars of 0.25
    ],
    ids=["one-bar-per-point", "round-width", "last-bar-shorter", "nobody", "fractional-total"],
)
def test_histogram_bars(scores: list[float], top: float, counts: list[int]) -> None:
    bins = histogram(scores, top)
    assert [b.count for b in bins] == counts
    assert bins[0].lo == 0 and bins[-1].hi == pytest.approx(top)


def test_question_counts_include_late_cutoff_answers(doc: ResultsDocument) -> None:
    stats = {q.id: q for q in question_stats(doc, course())}
    assert stats["clone-basics/shares"].counts == {"correct": 4, "wrong": 2}
    assert stats["detach-basics/resize"].counts == {
        "correct": 3,
        "invalid": 1,
        "unanswered": 1,
        "wrong": 1,
    }
    assert stats["detach-basics/resize"].total == 6  # every read submission: fay has no answers
    assert stats["clone-basics/grad-fn"].info.section == "§1a"


def test_questions_sorted_hardest_first(doc: ResultsDocument) -> None:
    order = [q.id for q in hardest_first(question_stats(doc, course()))]
    # grad-fn and resize: 3 of 6 correct, grad-fn has more wrong answers; then the 4-of-6 pair by
    # id; flag last
    assert order == [
        "clone-basics/grad-fn",
        "detach-basics/resize",
        "clone-basics/shares",
        "detach-basics/shares",
        "clone-basics/flag",
    ]


def test_misconception_holders_and_matches_per_question(doc: ResultsDocument) -> None:
    stats = {m.name: m for m in misconception_stats(doc, course())}
    assert list(stats) == [CSM, COPIES, CUTS]  # most held first, then by name
    assert stats[CSM].holders == ("bob", "cy")
    assert stats[CUTS].holders == ("bob",)
    assert stats[CUTS].per_item == {"clone-basics/flag": 1, "clone-basics/grad-fn": 1}
    assert stats[CUTS].explanations == {
        "clone-basics/flag": "clone() stays in the graph.",
        "clone-basics/grad-fn": "autograd records clone().",
    }
    assert stats[COPIES].share == pytest.approx(2 / 6)


def test_misconceptions_declared_but_never_seen(doc: ResultsDocument) -> None:
    assert unseen_misconceptions(doc, course()) == ["detached-resize-raises"]


def test_cooccurrence_counts_students_holding_both(doc: ResultsDocument) -> None:
    assert holdings(doc)["bob"] == (CSM, CUTS, COPIES)
    co = cooccurrence(doc, [CSM, COPIES, CUTS])
    assert co.counts == ((2, 1, 1), (1, 2, 1), (1, 1, 1))
    pairs = {(p.first, p.second): p for p in co.pairs()}
    assert set(pairs) == {(CSM, COPIES), (CSM, CUTS), (COPIES, CUTS)}
    assert pairs[(CSM, COPIES)].lift == pytest.approx(
        1 / (2 * 2 / 6)
    )  # 1 student where chance gives 2/3


def test_unnamed_wrong_answers_are_normalised_before_counting(doc: ResultsDocument) -> None:
    found = unnamed_wrong_answers(doc, course())
    assert [(u.item, u.answer, u.students) for u in found] == [
        (
            "clone-basics/grad-fn",
            "AddBackward0",
            ("cy", "dee"),
        ),  # <AddBackward0> and ' AddBackward0 '
        ("detach-basics/resize", "ValueError", ("gus",)),
    ]
    assert found[0].expected == "<CloneBackward0>"  # what the results say torch gave
    assert unnamed_wrong_answers(doc, course(), min_count=2)[0].count == 2


@pytest.mark.parametrize(
    ("text", "canonical", "parsed"),
    [
        ("tensor(2.0)", "tensor(2.)", True),
        ("  tensor(2.)  ", "tensor(2.)", True),
        ("(True,False)", "(True, False)", True),
        ("<MulBackward0>", "MulBackward0", True),
        ("tensor(2.", "tensor(2.", False),
        ("same   as\n a", "same as a", False),
    ],
    ids=[
        "float-spelling",
        "spaces",
        "tuple-spacing",
        "grad-fn-brackets",
        "unparsed-kept",
        "unparsed-whitespace",
    ],
)
def test_normalise_answer(text: str, canonical: str, parsed: bool) -> None:
    assert normalise_answer(text) == (canonical, parsed)


def test_code_answers_are_not_counted_as_unnamed_literals() -> None:
    doc = ResultsDocument(
        "tiny",
        "ps1",
        "2.13.0",
        "",
        None,
        [
            StudentResult(
                s,
                (
                    QuestionResult(
                        "copy/independent", Status.WRONG, 0.0, 1.0, "def f(t):\n    return t"
                    ),
                ),
            )
            for s in ("ada", "bob")
        ],
    )
    assert unnamed_wrong_answers(doc, CourseInfo()) == []


def test_students_who_may_need_help(doc: ResultsDocument) -> None:
    found = needs_help(student_rows(doc))
    assert [(h.row.student, h.reasons) for h in found] == [
        ("bob", ("20% of the points", "3 misconceptions")),
        ("cy", ("40% of the points",)),
        ("dee", ("40% of the points",)),
    ]


def test_late_and_ungradable_submissions(doc: ResultsDocument) -> None:
    rows = {r.student: r for r in late_or_ungradable(student_rows(doc))}
    assert set(rows) == {"eve", "fay", "gus"}
    assert rows["gus"].late_factor == 0.8 and rows["gus"].score == pytest.approx(3.2)
    assert rows["fay"].error == "the notebook is not valid JSON"


def test_student_rows_keep_answers_for_the_drill_down(doc: ResultsDocument) -> None:
    bob = next(r for r in student_rows(doc) if r.student == "bob")
    assert bob.counts == {"wrong": 4, "correct": 1}
    assert bob.misconceptions == (CSM, CUTS, COPIES)
    assert [q.id for q in bob.questions] == list(ITEMS)


def test_course_info_reads_the_course_files() -> None:
    info = course()
    assert info.assignment("ps1").items == ITEMS and info.assignment("ps2").items == ITEMS[3:]
    flag = info.item("clone-basics/flag")
    assert (flag.section, flag.literal, flag.prompt) == ("§1a", True, "What is `b.requires_grad`?")
    assert [m.name for m in flag.misconceptions] == [CUTS]
    assert info.item("gone/question").section == ""  # an item the course no longer has


@pytest.mark.parametrize(
    ("counts", "many"),
    [
        ([0, 0, 0, 1, 1, 3], 2),  # the class above: never fewer than two
        ([5, 6, 7, 8, 9, 10, 11, 14], 11),  # a long assignment: more than three quarters hold
        ([], 2),
    ],
    ids=["small-class", "long-assignment", "nobody"],
)
def test_several_misconceptions_is_relative_to_the_class(counts: list[int], many: int) -> None:
    rows = [
        StudentRow(
            f"s{i}", "graded", 0.0, 1.0, 1.0, 1.0, None, {}, tuple(f"m{j}" for j in range(n))
        )
        for i, n in enumerate(counts)
    ]
    assert many_misconceptions(rows) == many
    assert sorted(h.row.student for h in needs_help(rows)) == sorted(
        f"s{i}" for i, n in enumerate(counts) if n >= many
    )
