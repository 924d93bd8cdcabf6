"""Item analysis: which questions work. Per question, how hard it is, how well it separates
learners who understand from those who do not, what the wrong answers were, whether its
variants are equally hard; and the flags a course author acts on.

- **Difficulty**: the share of read answers that are correct.
- **Discrimination**: the corrected item-total correlation, Pearson's r between the
  question's score (its points as a share of its worth) and each learner's score on the
  *other* questions of the assignment; for a right/wrong question this is the point-biserial
  correlation. Near 0: the question does not separate strong learners from weak ones;
  negative: strong learners miss it more, often a wrong key or an ambiguous prompt.
- **Variants**: the answers right in each variant of a question with parameters, and
  Pearson's chi-square test of independence (variant x right/wrong): the p-value says how
  likely a spread at least this wide is when the variants are equally hard.

Everything is a running sum fed one learner at a time (``ItemTally``), so a class of any
size is read in flat memory, as the rest of the report. The chi-square p-value needs the
regularized upper incomplete gamma function; it is a few lines here (a series and a
continued fraction, as every numerical library writes them, checked against tabulated
values in the tests) rather than SciPy, a dependency of tens of megabytes for one function.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from ..results import StudentResult
from .course_info import CourseInfo
from .variants import VariantShare

TOO_EASY = 0.95  # share correct above which a question tells nothing about the class
LOW_DISCRIMINATION = 0.1  # at most this, a question does not separate learners
MANY_INVALID = 0.2  # share of answers that could not be read: the prompt's format is unclear
VARIANTS_P = 0.05  # a variant spread less likely than this by chance is flagged
MIN_ANSWERS = 10  # fewer answers than this: figures are shown, nothing is flagged

# The flags, by kind; each is said in words with the figures that raised it.
EASY, FLAT, NEGATIVE, UNPICKED, INVALID, UNEQUAL = (
    "too-easy",
    "not-discriminating",
    "negative-discrimination",
    "misconception-unpicked",
    "many-invalid",
    "variants-differ",
)


@dataclass(frozen=True)
class Flag:
    """Something a course author should look at (``kind``), and the figures that say so;
    the report says it in words, in its reader's language."""

    kind: str
    figures: dict[str, str | int] = field(default_factory=dict)


@dataclass(frozen=True)
class ItemStats:
    """One question's item analysis."""

    item: str
    where: str  # the exercise file and line ("exercises/x.yml:12"), when the course is known
    answers: int
    difficulty: float  # share correct
    discrimination: float | None  # None: no spread in the question or in the rest
    invalid: float
    unanswered: float
    misconceptions: tuple[tuple[str, float], ...]  # name, share of answers; most picked first
    unpicked: tuple[str, ...]  # declared misconceptions nobody's answer matched
    variants: tuple[VariantShare, ...] = ()
    chi_square: float | None = None
    degrees: int = 0
    p_value: float | None = None
    flags: tuple[Flag, ...] = field(default_factory=tuple)


class ItemTally:
    """Running sums per question, fed one learner at a time."""

    def __init__(self) -> None:
        self.n: Counter[str] = Counter()
        self.sums: dict[str, list[float]] = {}  # Σx, Σx², Σr, Σr², Σxr
        self.status: dict[str, Counter[str]] = {}
        self.picked: dict[str, Counter[str]] = {}
        self.by_variant: dict[str, dict[str, list[int]]] = {}  # item -> variant -> [n, right]

    def add(self, s: StudentResult) -> None:
        if not s.read:
            return
        scored = [(q, q.points / q.max_points if q.max_points else 0.0) for q in s.questions]
        total = sum(x for _, x in scored)
        for q, x in scored:
            rest = total - x  # the learner's score on the other questions (corrected)
            sums = self.sums.setdefault(q.id, [0.0] * 5)
            for i, v in enumerate((x, x * x, rest, rest * rest, x * rest)):
                sums[i] += v
            self.n[q.id] += 1
            self.status.setdefault(q.id, Counter())[q.status.value] += 1
            if q.misconception:
                self.picked.setdefault(q.id, Counter())[q.misconception] += 1
            if q.variant:
                counts = self.by_variant.setdefault(q.id, {}).setdefault(q.variant, [0, 0])
                counts[0] += 1
                counts[1] += q.status.value == "correct"

    def stats(self, info: CourseInfo, items: list[str]) -> list[ItemStats]:
        """Each item's analysis, in ``items``' order, flags included."""
        return [self._item(info, item) for item in items if self.n[item]]

    def _item(self, info: CourseInfo, item: str) -> ItemStats:
        n = self.n[item]
        status = self.status[item]
        picked = self.picked.get(item, Counter())
        declared = [m.name for m in info.item(item).misconceptions]
        variants = tuple(
            VariantShare(v, c[0], c[1]) for v, c in sorted(self.by_variant.get(item, {}).items())
        )
        chi2, degrees, p = variant_test(variants)
        stats = ItemStats(
            item=item,
            where=info.item(item).where,
            answers=n,
            difficulty=status["correct"] / n,
            discrimination=_correlation(n, self.sums[item]),
            invalid=status["invalid"] / n,
            unanswered=status["unanswered"] / n,
            misconceptions=tuple((m, c / n) for m, c in picked.most_common()),
            unpicked=tuple(m for m in declared if not picked[m]),
            variants=variants if len(variants) > 1 else (),
            chi_square=chi2,
            degrees=degrees,
            p_value=p,
        )
        return _flagged(stats)


def _correlation(n: int, sums: list[float]) -> float | None:
    """Pearson's r from running sums; None when either side does not vary."""
    sx, sxx, sr, srr, sxr = sums
    vx, vr = n * sxx - sx * sx, n * srr - sr * sr
    if vx <= 1e-12 or vr <= 1e-12:
        return None
    return (n * sxr - sx * sr) / math.sqrt(vx * vr)


def variant_test(variants: tuple[VariantShare, ...]) -> tuple[float | None, int, float | None]:
    """Pearson's chi-square test of variant x (right, wrong): the statistic, its degrees of
    freedom and p-value; None where it cannot be computed (one variant, or all right or all
    wrong)."""
    seen = [v for v in variants if v.answers]
    total = sum(v.answers for v in seen)
    right = sum(v.correct for v in seen)
    if len(seen) < 2 or right in (0, total):
        return None, 0, None
    chi2 = 0.0
    for v in seen:
        for observed, column in ((v.correct, right), (v.answers - v.correct, total - right)):
            expected = v.answers * column / total
            chi2 += (observed - expected) ** 2 / expected
    degrees = len(seen) - 1
    return chi2, degrees, chi_square_sf(chi2, degrees)


def chi_square_sf(x: float, degrees: int) -> float:
    """P(X >= x) for X chi-square distributed with ``degrees`` degrees of freedom."""
    if x <= 0:
        return 1.0
    return _upper_gamma(degrees / 2.0, x / 2.0)


def _upper_gamma(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x)."""
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:  # the series for P(a, x) converges fast here
        term = total = 1.0 / a
        k = a
        for _ in range(1000):
            k += 1.0
            term *= x / k
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Lentz's continued fraction for Q(a, x)
    tiny = 1e-300
    b = x + 1.0 - a
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def _flagged(s: ItemStats) -> ItemStats:
    """``s`` with the flags its figures raise (none below ``MIN_ANSWERS`` answers)."""
    if s.answers < MIN_ANSWERS:
        return s
    flags = []
    if s.difficulty > TOO_EASY:
        flags.append(Flag(EASY, {"share": percent_words(s.difficulty)}))
    if s.discrimination is not None and s.discrimination < 0:
        flags.append(Flag(NEGATIVE, {"r": f"{s.discrimination:.2f}"}))
    elif s.discrimination is not None and s.discrimination <= LOW_DISCRIMINATION:
        if s.difficulty <= TOO_EASY:  # near the ceiling no question separates: said above
            flags.append(Flag(FLAT, {"r": f"{s.discrimination:.2f}"}))
    flags += [Flag(UNPICKED, {"name": name}) for name in s.unpicked]
    if s.invalid >= MANY_INVALID:
        flags.append(Flag(INVALID, {"share": percent_words(s.invalid)}))
    if s.p_value is not None and s.chi_square is not None and s.p_value < VARIANTS_P:
        figures = spread_figures(s.variants, s.chi_square, s.degrees, s.p_value, s.answers)
        flags.append(Flag(UNEQUAL, figures))
    return ItemStats(**{**s.__dict__, "flags": tuple(flags)})


def spread_figures(
    shares: tuple[VariantShare, ...],
    chi2: float,
    degrees: int,
    p: float,
    answers: int,
    names: tuple[str, str] = ("hard", "easy"),
) -> dict[str, str | int]:
    """What a flag on ``variant_test``'s spread says: the lowest and highest share right,
    named ``names`` (each with ``_share``), the statistic, its df, p and the answers."""
    low = min(shares, key=lambda v: v.share)
    high = max(shares, key=lambda v: v.share)
    return {
        names[0]: low.variant,
        f"{names[0]}_share": percent_words(low.share),
        names[1]: high.variant,
        f"{names[1]}_share": percent_words(high.share),
        "chi2": f"{chi2:.1f}",
        "df": degrees,
        "p": p_words(p),
        "n": answers,
    }


def p_words(p: float) -> str:
    """A p-value as a sentence says it after "p": "= 0.012", or "< 0.001" (never "= 0.000")."""
    return "< 0.001" if p < 0.0005 else f"= {p:.3f}"


def percent_words(share: float) -> str:
    return f"{share:.0%}"
