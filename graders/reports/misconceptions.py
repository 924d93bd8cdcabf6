"""Aggregation of misconceptions: who holds which, which occur together, and the common
wrong answers no declared misconception matches yet (candidates for new ones). Each is a
tally taking the students one at a time (``aggregate.Tally``); the functions over a
results document feed one with the document's students.

A student *holds* a misconception when at least one of their answers matched it. Only
read submissions count (see ``aggregate``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

from ..answers.parse import AnswerSyntaxError, parse_answer, render_answer
from ..results import QuestionResult, ResultsDocument, StudentResult
from .aggregate import item_order, over
from .course_info import CourseInfo

MIN_UNNAMED = 2  # an unnamed wrong answer is worth naming once this many students gave it


@dataclass(frozen=True)
class MisconceptionStats:
    """One misconception over the whole assignment."""

    name: str
    holders: tuple[str, ...]  # students, sorted
    per_item: Mapping[str, int]  # item id -> answers that matched it, in course order
    explanations: Mapping[str, str]  # item id -> the course's explanation on that item
    share: float  # holders / read submissions

    @property
    def explanation(self) -> str:
        """The first explanation the course gives (items may word it for their context)."""
        return next(iter(self.explanations.values()), "")


@dataclass(frozen=True)
class Pair:
    """Two misconceptions and how many students hold both."""

    first: str
    second: str
    count: int
    lift: float  # count / what independence would give; well above 1: a shared cause?


@dataclass(frozen=True)
class Cooccurrence:
    """Students holding both of two misconceptions; ``counts[i][i]`` are the holders."""

    names: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]
    students: int  # read submissions: the population the counts are taken from

    def pairs(self) -> list[Pair]:
        """Pairs held together by at least one student, most common first."""
        found = [
            Pair(a, b, self.counts[i][j], self._lift(i, j))
            for (i, a), (j, b) in combinations(enumerate(self.names), 2)
            if self.counts[i][j]
        ]
        return sorted(found, key=lambda p: (-p.count, -p.lift, p.first, p.second))

    def head(self, n: int) -> Cooccurrence:
        """The same counts for the first ``n`` names only."""
        return Cooccurrence(
            self.names[:n], tuple(row[:n] for row in self.counts[:n]), self.students
        )

    def _lift(self, i: int, j: int) -> float:
        expected = self.counts[i][i] * self.counts[j][j] / self.students if self.students else 0.0
        return self.counts[i][j] / expected if expected else 0.0


@dataclass(frozen=True)
class UnnamedAnswer:
    """A wrong answer (normalised) that no declared misconception of its item matches."""

    item: str
    answer: str  # canonical form, as an answer literal where it parses
    students: tuple[str, ...]
    expected: str | None
    parsed: bool  # False: the text did not parse as an answer literal

    @property
    def count(self) -> int:
        return len(self.students)


class MisconceptionTally:
    """Who holds which misconception, and on which items their answers matched it."""

    def __init__(self) -> None:
        self.holders: dict[str, set[str]] = {}
        self.per_item: dict[str, Counter[str]] = {}
        self.held: dict[str, tuple[str, ...]] = {}  # read student -> their misconceptions

    def add(self, s: StudentResult) -> None:
        if not s.read:
            return
        self.held[s.student] = s.misconceptions
        for q in s.questions:
            if q.misconception:
                self.holders.setdefault(q.misconception, set()).add(s.student)
                self.per_item.setdefault(q.misconception, Counter())[q.id] += 1

    def stats(self, info: CourseInfo, items: list[str]) -> list[MisconceptionStats]:
        """Every misconception seen, most widely held first (``items``: in course order)."""
        order = {item: i for i, item in enumerate(items)}
        read = len(self.held)
        stats = [
            MisconceptionStats(
                name,
                tuple(sorted(who)),
                dict(
                    sorted(self.per_item[name].items(), key=lambda kv: order.get(kv[0], len(order)))
                ),
                _explanations(info, name, self.per_item[name]),
                len(who) / read if read else 0.0,
            )
            for name, who in self.holders.items()
        ]
        return sorted(stats, key=lambda m: (-len(m.holders), m.name))

    def unseen(self, info: CourseInfo, items: list[str]) -> list[str]:
        """Misconceptions declared on ``items`` that nobody showed."""
        return [n for n in info.declared(items) if n not in self.holders]

    def cooccurrence(self, names: list[str] | None = None) -> Cooccurrence:
        """How many students hold each pair (``names`` fixes the order)."""
        if names is None:
            total = Counter(n for ns in self.held.values() for n in ns)
            names = sorted(total, key=lambda n: (-total[n], n))
        index = {n: i for i, n in enumerate(names)}
        counts = [[0] * len(names) for _ in names]
        for ns in self.held.values():
            for a in ns:
                for b in ns:
                    if a in index and b in index:
                        counts[index[a]][index[b]] += 1
        return Cooccurrence(tuple(names), tuple(tuple(row) for row in counts), len(self.held))


def holdings(doc: ResultsDocument) -> dict[str, tuple[str, ...]]:
    """Student -> the distinct misconceptions their answers revealed, in answer order."""
    return over(doc.students, MisconceptionTally()).held


def misconception_stats(doc: ResultsDocument, info: CourseInfo) -> list[MisconceptionStats]:
    """Every misconception seen, most widely held first."""
    return over(doc.students, MisconceptionTally()).stats(info, item_order(doc, info))


def unseen_misconceptions(doc: ResultsDocument, info: CourseInfo) -> list[str]:
    """Misconceptions the assignment's questions declare that nobody showed."""
    return over(doc.students, MisconceptionTally()).unseen(info, item_order(doc, info))


def cooccurrence(doc: ResultsDocument, names: list[str] | None = None) -> Cooccurrence:
    """How many students hold each pair of misconceptions (``names`` fixes the order)."""
    return over(doc.students, MisconceptionTally()).cooccurrence(names)


def normalise_answer(text: str) -> tuple[str, bool]:
    """The canonical rendering of an answer literal, or its whitespace-collapsed text when
    it does not parse; and whether it parsed. ``tensor(2.0)`` and ``tensor(2.)`` agree."""
    try:
        return render_answer(parse_answer(text)), True
    except AnswerSyntaxError:
        return " ".join(text.split()), False


class UnnamedTally:
    """Wrong answers without a misconception, grouped by item and canonical form. Only items
    whose kind answers with literals count (not code checks)."""

    def __init__(self, info: CourseInfo) -> None:
        self.info = info
        self.groups: dict[tuple[str, str], list[str]] = {}
        self.parsed: dict[tuple[str, str], bool] = {}
        self.expected: dict[str, str | None] = {}

    def add(self, s: StudentResult) -> None:
        if not s.read:
            return
        for q in s.questions:
            if q.status != "wrong" or q.misconception or not q.answer:
                continue
            if not _literal_item(self.info, q):
                continue
            key_text, ok = normalise_answer(q.answer)
            self.groups.setdefault((q.id, key_text), []).append(s.student)
            self.parsed[(q.id, key_text)] = ok
            self.expected[q.id] = q.expected

    def answers(self, items: list[str], min_count: int = 1) -> list[UnnamedAnswer]:
        """Those given by ``min_count`` students or more; most common first (``items``: in
        course order)."""
        order = {item: i for i, item in enumerate(items)}
        found = [
            UnnamedAnswer(
                item, text, tuple(sorted(set(who))), self.expected[item], self.parsed[(item, text)]
            )
            for (item, text), who in self.groups.items()
            if len(set(who)) >= min_count
        ]
        return sorted(found, key=lambda u: (-u.count, order.get(u.item, len(order)), u.answer))


def unnamed_wrong_answers(
    doc: ResultsDocument, info: CourseInfo, min_count: int = 1
) -> list[UnnamedAnswer]:
    """Wrong answers without a misconception, grouped by item and canonical form; most
    common first. Only items whose kind answers with literals count (not code checks)."""
    return over(doc.students, UnnamedTally(info)).answers(item_order(doc, info), min_count)


def _literal_item(info: CourseInfo, q: QuestionResult) -> bool:
    # The item's kind says whether its answers are literals; an item the course no
    # longer has is left out rather than guessed from the answer's shape.
    return info.item(q.id).literal


def _explanations(info: CourseInfo, name: str, items: Counter[str]) -> dict[str, str]:
    found = {}
    for item in items:
        explain = next((m.explain for m in info.item(item).misconceptions if m.name == name), "")
        if explain:
            found[item] = explain
    return found or ({"": info.explanation(name)} if info.explanation(name) else {})
