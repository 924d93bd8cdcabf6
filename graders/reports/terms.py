"""Each question across terms: its item analysis in every term the gradebook holds grades
of (``course.yml``'s ``term`` and ``earlier_terms``), and whether the share right moved
more than chance allows.

A term is the course under the id its grades are kept by: each term's course has its own
id, as each term's LMS course is its own, so a learner who takes the course again is a new
row, never an overwritten one. The course summary reads each earlier term's results of the
same assignments, one learner at a time like the rest of the report, and this module puts
each question's figures side by side.

Whether the terms differ is Pearson's chi-square test of term x (right, wrong), the test
the variants of one question get (``items.variant_test``), with each term in the place of
a variant: a question easier one term than another is a change in the question, in its
teaching, or in the class, and a course author wants to know which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..results import ClassResults
from .aggregate import QuestionTally
from .course_info import CourseInfo
from .items import (
    MIN_ANSWERS,
    VARIANTS_P,
    Flag,
    ItemStats,
    ItemTally,
    spread_figures,
    variant_test,
)
from .variants import VariantShare

CHANGED = "changed-across-terms"


@dataclass(frozen=True)
class TermFigures:
    """One question's item analysis in one term."""

    term: str
    stats: ItemStats


@dataclass(frozen=True)
class ItemAcrossTerms:
    """One question in every term that asked it (two or more), in the course's order of
    terms, and the flag when the share right differs between them more than chance allows."""

    assignment: str
    item: str
    where: str
    terms: tuple[TermFigures, ...]
    flag: Flag | None = None


def term_items(
    classes: Sequence[ClassResults], info: CourseInfo
) -> dict[tuple[str, str], ItemStats]:
    """(assignment, question) -> its item analysis over ``classes``, one term's results."""
    found: dict[tuple[str, str], ItemStats] = {}
    for results in classes:
        items, questions = ItemTally(), QuestionTally()
        for s in results.students():
            items.add(s)
            questions.add(s)
        for stats in items.stats(info, questions.order(info, results.assignment)):
            found[results.assignment, stats.item] = stats
    return found


def across_terms(
    terms: Sequence[tuple[str, dict[tuple[str, str], ItemStats]]], info: CourseInfo
) -> tuple[ItemAcrossTerms, ...]:
    """Each question asked in two or more of ``terms`` (name -> its ``term_items``, in the
    order to show), in course order: assignment by assignment, question by question."""
    keys = list(dict.fromkeys(key for _, found in terms for key in found))
    positions = {a.id: (n, a.items) for n, a in enumerate(info.assignments)}

    def course_order(key: tuple[str, str]) -> tuple[int, int, str, str]:
        n, items = positions.get(key[0], (len(positions), ()))
        return (n, items.index(key[1]) if key[1] in items else len(items), *key)

    rows = []
    for key in sorted(keys, key=course_order):
        figures = tuple(TermFigures(name, found[key]) for name, found in terms if key in found)
        if len(figures) > 1:
            rows.append(
                ItemAcrossTerms(key[0], key[1], info.item(key[1]).where, figures, _changed(figures))
            )
    return tuple(rows)


def _changed(figures: tuple[TermFigures, ...]) -> Flag | None:
    """The flag when the terms' shares right differ more than chance allows; none while a
    term has fewer than ``MIN_ANSWERS`` answers (as no question is flagged on so few)."""
    if any(f.stats.answers < MIN_ANSWERS for f in figures):
        return None
    shares = tuple(
        VariantShare(f.term, f.stats.answers, round(f.stats.difficulty * f.stats.answers))
        for f in figures
    )
    chi2, degrees, p = variant_test(shares)
    if chi2 is None or p is None or p >= VARIANTS_P:
        return None
    answers = sum(s.answers for s in shares)
    return Flag(CHANGED, spread_figures(shares, chi2, degrees, p, answers, ("low", "high")))
