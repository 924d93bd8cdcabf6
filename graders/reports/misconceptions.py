"""Pure aggregation of misconceptions: who holds which, which occur together, and the
common wrong answers no declared misconception matches yet (candidates for new ones).

A student *holds* a misconception when at least one of their answers matched it. Only
read submissions count (see ``aggregate``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

from ..answers.parse import AnswerSyntaxError, parse_answer, render_answer
from ..results import QuestionResult, ResultsDocument
from .aggregate import item_order, question_results
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


def holdings(doc: ResultsDocument) -> dict[str, tuple[str, ...]]:
    """Student -> the distinct misconceptions their answers revealed, in answer order."""
    return {s.student: s.misconceptions for s in doc.read_students()}


def misconception_stats(doc: ResultsDocument, info: CourseInfo) -> list[MisconceptionStats]:
    """Every misconception seen, most widely held first."""
    holders: dict[str, set[str]] = {}
    per_item: dict[str, Counter[str]] = {}
    for s, q in question_results(doc):
        name = q.misconception
        if name:
            holders.setdefault(name, set()).add(s.student)
            per_item.setdefault(name, Counter())[q.id] += 1
    order = {item: i for i, item in enumerate(item_order(doc, info))}
    read = len(doc.read_students())
    stats = [
        MisconceptionStats(
            name,
            tuple(sorted(who)),
            dict(sorted(per_item[name].items(), key=lambda kv: order.get(kv[0], len(order)))),
            _explanations(info, name, per_item[name]),
            len(who) / read if read else 0.0,
        )
        for name, who in holders.items()
    ]
    return sorted(stats, key=lambda m: (-len(m.holders), m.name))


def unseen_misconceptions(doc: ResultsDocument, info: CourseInfo) -> list[str]:
    """Misconceptions the assignment's questions declare that nobody showed."""
    seen = {q.misconception for _, q in question_results(doc)}
    return [n for n in info.declared(item_order(doc, info)) if n not in seen]


def cooccurrence(doc: ResultsDocument, names: list[str] | None = None) -> Cooccurrence:
    """How many students hold each pair of misconceptions (``names`` fixes the order)."""
    held = holdings(doc)
    if names is None:
        total = Counter(n for ns in held.values() for n in ns)
        names = sorted(total, key=lambda n: (-total[n], n))
    index = {n: i for i, n in enumerate(names)}
    counts = [[0] * len(names) for _ in names]
    for ns in held.values():
        for a in ns:
            for b in ns:
                if a in index and b in index:
                    counts[index[a]][index[b]] += 1
    return Cooccurrence(tuple(names), tuple(tuple(row) for row in counts), len(held))


def normalise_answer(text: str) -> tuple[str, bool]:
    """The canonical rendering of an answer literal, or its whitespace-collapsed text when
    it does not parse; and whether it parsed. ``tensor(2.0)`` and ``tensor(2.)`` agree."""
    try:
        return render_answer(parse_answer(text)), True
    except AnswerSyntaxError:
        return " ".join(text.split()), False


def unnamed_wrong_answers(
    doc: ResultsDocument, info: CourseInfo, min_count: int = 1
) -> list[UnnamedAnswer]:
    """Wrong answers without a misconception, grouped by item and canonical form; most
    common first. Only items whose kind answers with literals count (not code checks)."""
    groups: dict[tuple[str, str], list[str]] = {}
    parsed: dict[tuple[str, str], bool] = {}
    expected: dict[str, str | None] = {}
    for s, q in question_results(doc):
        if q.status != "wrong" or q.misconception or not q.answer or not _literal_item(info, q):
            continue
        key_text, ok = normalise_answer(q.answer)
        groups.setdefault((q.id, key_text), []).append(s.student)
        parsed[(q.id, key_text)] = ok
        expected[q.id] = q.expected
    order = {item: i for i, item in enumerate(item_order(doc, info))}
    found = [
        UnnamedAnswer(item, text, tuple(sorted(set(who))), expected[item], parsed[(item, text)])
        for (item, text), who in groups.items()
        if len(set(who)) >= min_count
    ]
    return sorted(found, key=lambda u: (-u.count, order.get(u.item, len(order)), u.answer))


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
