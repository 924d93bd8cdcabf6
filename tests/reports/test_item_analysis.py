"""Item analysis on a synthetic class whose answers are generated with known difficulties
and discriminations (a two-parameter logistic model of 600 learners): the figures are
recovered, and exactly the planted problems are flagged — a question keyed wrong on
purpose, one variant made harder, a question everyone gets right, one that does not
separate learners, one whose answers cannot be read, and a misconception nobody holds."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from graders.kinds.base import DeclaredMisconception
from graders.reports.course_info import CourseInfo, ItemInfo
from graders.reports.items import (
    EASY,
    FLAT,
    INVALID,
    NEGATIVE,
    UNEQUAL,
    UNPICKED,
    ItemTally,
    chi_square_sf,
    p_words,
)
from graders.results import QuestionResult, Status, StudentResult

LEARNERS = 600
# item -> (discrimination a, difficulty b) of the logistic model P(right) = 1/(1+e^(-a(θ-b)))
GOOD = {f"ex/good-{i}": (1.8, b) for i, b in enumerate((-1.0, -0.5, 0.0, 0.5, 1.0))}
PLANTED = {
    "ex/keyed-wrong": (1.8, 0.0),  # its key is the wrong answer: right means misunderstood
    "ex/varies": (1.8, 0.0),  # variant floor is 1.5 harder than ceil
    "ex/too-easy": (4.0, -3.2),
    "ex/flat": (0.0, 0.0),  # a coin toss: nothing to do with understanding
    "ex/unreadable": (1.8, -0.5),  # a third of its answers could not be read
    "ex/unpicked": (1.8, 0.2),  # declares a misconception nobody's answer matches
}
EXPECTED_FLAGS = {
    ("ex/keyed-wrong", NEGATIVE),
    ("ex/varies", UNEQUAL),
    ("ex/too-easy", EASY),
    ("ex/flat", FLAT),
    ("ex/unreadable", INVALID),
    ("ex/unpicked", UNPICKED),
}


def _p(a: float, b: float, theta: float) -> float:
    return 1.0 / (1.0 + math.exp(-a * (theta - b)))


def synthetic_class(seed: int = 7) -> tuple[list[StudentResult], dict[str, list[float]]]:
    """The class's results, and each item's scores (0/1) learner by learner."""
    rng = random.Random(seed)
    scores: dict[str, list[float]] = {item: [] for item in {**GOOD, **PLANTED}}
    students = []
    for n in range(LEARNERS):
        theta = rng.gauss(0.0, 1.0)
        questions = []
        for item, (a, b) in {**GOOD, **PLANTED}.items():
            variant = None
            if item == "ex/varies":
                variant = "op=floor" if n % 2 else "op=ceil"
                b += 1.5 if variant == "op=floor" else 0.0
            right = rng.random() < _p(a, b, theta)
            if item == "ex/keyed-wrong":
                right = not right
            status = Status.CORRECT if right else Status.WRONG
            misconception = "holds-it" if item.startswith("ex/good") and not right else None
            if item == "ex/flat" and rng.random() < 0.5:  # a coin, whatever the learner knows
                status = Status.CORRECT if rng.random() < 0.55 else Status.WRONG
            if item == "ex/unreadable" and rng.random() < 1 / 3:
                status = Status.INVALID
            x = 1.0 if status is Status.CORRECT else 0.0
            scores[item].append(x)
            questions.append(
                QuestionResult(item, status, x, 1.0, misconception=misconception, variant=variant)
            )
        students.append(StudentResult(f"s{n:03d}", tuple(questions)))
    return students, scores


def _info() -> CourseInfo:
    items = {
        item: ItemInfo(
            item,
            "ex",
            "ex",
            "beyond",
            "",
            misconceptions=(DeclaredMisconception("nobody-thinks-so", "42", ""),)
            if item == "ex/unpicked"
            else (),
            where=f"exercises/ex.yml:{10 + i}",
        )
        for i, item in enumerate({**GOOD, **PLANTED})
    }
    return CourseInfo("c", "c", items)


@pytest.fixture(scope="module")
def analysed() -> tuple[dict[str, object], dict[str, list[float]]]:
    students, scores = synthetic_class()
    tally = ItemTally()
    for s in students:
        tally.add(s)
    stats = tally.stats(_info(), list(scores))
    return {s.item: s for s in stats}, scores


def test_exactly_the_planted_problems_are_flagged(analysed: tuple) -> None:  # type: ignore[type-arg]
    stats, _ = analysed
    flagged = {(item, f.kind) for item, s in stats.items() for f in s.flags}
    assert flagged == EXPECTED_FLAGS


def test_difficulty_and_discrimination_are_the_textbook_figures(analysed: tuple) -> None:  # type: ignore[type-arg]
    stats, scores = analysed
    matrix = np.array([scores[item] for item in scores])
    totals = matrix.sum(axis=0)
    for row, item in zip(matrix, scores, strict=True):
        s = stats[item]
        assert s.difficulty == pytest.approx(row.mean(), abs=1e-12)
        rest = totals - row  # the corrected item-total correlation
        assert s.discrimination == pytest.approx(np.corrcoef(row, rest)[0, 1], abs=1e-9)
    # The model's parameters show through: a discriminating item correlates well with the rest.
    assert all(stats[item].discrimination > 0.3 for item in GOOD)
    assert stats["ex/keyed-wrong"].discrimination < -0.3
    assert abs(stats["ex/flat"].discrimination) <= 0.1


def test_the_harder_variant_is_named_with_the_test_and_the_class_size(analysed: tuple) -> None:  # type: ignore[type-arg]
    stats, _ = analysed
    varies = stats["ex/varies"]
    floor, ceil = (
        next(v for v in varies.variants if v.variant == n) for n in ("op=floor", "op=ceil")
    )
    assert floor.share < ceil.share - 0.2 and floor.answers + ceil.answers == LEARNERS
    (flag,) = varies.flags
    assert flag.figures["hard"] == "op=floor" and flag.figures["n"] == LEARNERS
    assert flag.figures["p"] == "< 0.001" and flag.figures["df"] == 1
    assert varies.where == "exercises/ex.yml:16"


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [(3.841, 1, 0.05), (5.991, 2, 0.05), (11.070, 5, 0.05), (0.455, 1, 0.5), (23.209, 10, 0.01)],
)
def test_the_chi_square_tail_matches_the_tables(x: float, df: int, p: float) -> None:
    assert chi_square_sf(x, df) == pytest.approx(p, rel=2e-3)


def test_too_few_answers_are_shown_but_never_flagged() -> None:
    students, scores = synthetic_class()
    tally = ItemTally()
    for s in students[:9]:
        tally.add(s)
    assert all(not s.flags for s in tally.stats(_info(), list(scores)))


def test_the_course_summary_lists_each_assignment_s_flagged_questions() -> None:
    from graders.reports.render import render_course
    from graders.reports.summary import course_summary
    from graders.results import ClassResults, ResultsDocument

    students, _ = synthetic_class()
    doc = ResultsDocument("c", "ps1", "2.13.0", None, None, tuple(students))
    summary = course_summary([ClassResults.of(doc)], _info())
    assert {(a, i.item) for a, i in summary.flagged} == {
        ("ps1", item) for item, _ in EXPECTED_FLAGS
    }
    page = render_course(summary, {"ps1": "ps1/report.html"})
    assert 'href="ps1/report.html#q-ex--keyed-wrong"' in page
    assert "learners who do well elsewhere miss it more often" in page


@pytest.mark.parametrize(
    ("p", "said"),
    [
        (0.0, "< 0.001"),
        (0.0004, "< 0.001"),
        (0.0005, "= 0.001"),
        (0.0123, "= 0.012"),
        (1, "= 1.000"),
    ],
)
def test_a_p_value_is_never_said_to_be_zero(p: float, said: str) -> None:
    assert p_words(p) == said
