"""The report's tables as CSV files, for spreadsheets: the same rows the page shows.

Shares are fractions (0.35, not "35%") and lists are joined with "; ", so every cell
is one value a spreadsheet can sort or sum.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..exports.csv_writer import csv_lines
from ..exports.results_files import write_atomic
from .aggregate import QUESTION_STATUSES
from .model import AssignmentReport
from .summary import CourseSummary

Row = Sequence[Any]


def write_assignment_csv(report: AssignmentReport, folder: Path) -> list[Path]:
    """questions.csv, items.csv (the item analysis), misconceptions.csv,
    misconception_pairs.csv, unnamed_answers.csv and students.csv for one assignment;
    returns the paths written."""
    tables: dict[str, Iterable[Row]] = {
        "questions.csv": question_rows(report),
        "items.csv": item_rows(report),
        "misconceptions.csv": misconception_rows(report),
        "misconception_pairs.csv": pair_rows(report),
        "unnamed_answers.csv": unnamed_rows(report),
        "students.csv": student_rows(report),
    }
    return [write_csv(folder / name, rows) for name, rows in tables.items()]


def write_course_csv(summary: CourseSummary, folder: Path) -> list[Path]:
    """assignments.csv, misconceptions.csv and students.csv across assignments; with
    earlier terms, items_by_term.csv."""
    ids = [a.id for a in summary.assignments]
    tables: dict[str, Iterable[Row]] = {
        "assignments.csv": [
            (
                "assignment",
                "title",
                "submissions",
                "graded",
                "late",
                "ungradable",
                "mean_share",
                "median_share",
                "correct_share",
            )
        ]
        + [
            (
                a.id,
                a.title,
                a.submissions,
                a.graded,
                a.late,
                a.ungradable,
                _f(a.mean_share),
                _f(a.median_share),
                _f(a.correct_share),
            )
            for a in summary.assignments
        ],
        "misconceptions.csv": [("misconception", *ids)]
        + [(m.name, *map(_f, m.values)) for m in summary.misconceptions],
        "students.csv": [("student", *ids, "mean")]
        + [(s.name, *map(_f, s.values), _f(s.mean)) for s in summary.students],
    }
    if summary.terms:
        tables["items_by_term.csv"] = term_rows(summary)
    return [write_csv(folder / name, rows) for name, rows in tables.items()]


def term_rows(summary: CourseSummary) -> list[Row]:
    """One row per question and term, for the questions asked in two or more terms; the
    flag (``changed-across-terms``) on each of the question's rows."""
    head = ["assignment", "item", "where", "term", "answers", "difficulty", "discrimination"]
    head += ["flags"]
    return [head] + [
        [
            q.assignment,
            q.item,
            q.where,
            t.term,
            t.stats.answers,
            _f(t.stats.difficulty),
            _f(t.stats.discrimination),
            q.flag.kind if q.flag else "",
        ]
        for q in summary.across_terms
        for t in q.terms
    ]


def question_rows(report: AssignmentReport) -> list[Row]:
    """Per question, hardest first: status counts and the share correct."""
    header = (
        "question",
        "exercise",
        "section",
        "max_points",
        "answers",
        *QUESTION_STATUSES,
        "share_correct",
        "expected",
    )
    return [header] + [
        (
            q.id,
            q.info.exercise,
            q.info.section,
            q.max_points,
            q.total,
            *(q.counts.get(s, 0) for s in QUESTION_STATUSES),
            _f(q.share("correct")),
            q.expected or "",
        )
        for q in report.questions
    ]


def item_rows(report: AssignmentReport) -> list[Row]:
    """One row per question: the item analysis, its flags by kind (the page says them in
    words), and per variant ``variant:correct/answers``."""
    head = ["item", "where", "answers", "difficulty", "discrimination", "invalid"]
    head += ["unanswered", "misconceptions", "unpicked", "variants", "chi_square", "df"]
    head += ["p_value", "flags"]
    return [head] + [
        [
            i.item,
            i.where,
            i.answers,
            _f(i.difficulty),
            _f(i.discrimination),
            _f(i.invalid),
            _f(i.unanswered),
            "; ".join(f"{name}:{_f(share)}" for name, share in i.misconceptions),
            "; ".join(i.unpicked),
            "; ".join(f"{v.variant}:{v.correct}/{v.answers}" for v in i.variants),
            _f(i.chi_square),
            i.degrees or "",
            _f(i.p_value),
            "; ".join(f.kind for f in i.flags),
        ]
        for i in report.items
    ]


def misconception_rows(report: AssignmentReport) -> list[Row]:
    """Per misconception: holders, their share, matches per question, the explanation."""
    header = (
        "misconception",
        "students",
        "share",
        "answers",
        "per_question",
        "explanation",
        "holders",
    )
    return [header] + [
        (
            m.name,
            len(m.holders),
            _f(m.share),
            sum(m.per_item.values()),
            "; ".join(f"{item}: {n}" for item, n in m.per_item.items()),
            " ".join(m.explanation.split()),
            "; ".join(m.holders),
        )
        for m in report.misconceptions
    ]


def pair_rows(report: AssignmentReport) -> list[Row]:
    """Every pair of misconceptions held together, with the lift over chance."""
    return [("first", "second", "students", "lift")] + [
        (p.first, p.second, p.count, _f(p.lift)) for p in report.pairs
    ]


def unnamed_rows(report: AssignmentReport) -> list[Row]:
    """Every wrong answer no declared misconception matches, normalised, most common first."""
    found = [u for us in report.unnamed_by_item.values() for u in us]
    found.sort(key=lambda u: (-u.count, u.item, u.answer))
    header = ("question", "answer", "parsed", "students", "expected", "who")
    return [header] + [
        (u.item, u.answer, u.parsed, u.count, u.expected or "", "; ".join(u.students))
        for u in found
    ]


def student_rows(report: AssignmentReport) -> Iterator[Row]:
    """Per submission: status, scores, answer counts, misconceptions, why they may need help
    (read from the class as the file is written)."""
    help_reasons = {h.row.student: "; ".join(h.reasons) for h in report.help}
    header = (
        "student",
        "status",
        "score",
        "max_score",
        "share",
        "raw_score",
        "late_factor",
        *QUESTION_STATUSES,
        "misconceptions",
        "may_need_help",
        "error_message",
    )
    yield header
    yield from (
        (
            s.student,
            s.status,
            s.score,
            s.max_score,
            _f(s.share),
            s.raw_score,
            s.late_factor,
            *(s.counts.get(k, 0) for k in QUESTION_STATUSES),
            "; ".join(s.misconceptions),
            help_reasons.get(s.student, ""),
            s.error or "",
        )
        for s in report.students
    )


def write_csv(path: Path, rows: Iterable[Row]) -> Path:
    """Write rows as CSV (UTF-8, ``\n`` line ends, formulas guarded) atomically, a row at a
    time; the path."""
    write_atomic(path, csv_lines(rows))
    return path


def _f(x: float | None) -> str:
    # Four decimals: enough for a share, short enough to read.
    return "" if x is None else f"{x:.4f}".rstrip("0").rstrip(".") if x % 1 else str(int(x))
