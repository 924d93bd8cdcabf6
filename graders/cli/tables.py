"""Terminal tables of results documents and answer keys (rich)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from ..results import format_points

if TYPE_CHECKING:
    from ..results import ResultsDocument, StudentResult

MARKS = {
    "correct": "[green]✓[/]",
    "wrong": "[red]✗[/]",
    "unanswered": "[dim]–[/]",
    "invalid": "[yellow]?[/]",
    "error": "[magenta]![/]",
    "timeout": "[magenta]⏱[/]",
    "integrity": "[bold red]⚠[/]",
}


def results_table(doc: ResultsDocument) -> Table:
    """Question × student, each cell a status mark and points; totals at the bottom, with
    the late factor a late submission's total carries."""
    students = doc.students
    table = Table(
        title=f"{doc.course} · {doc.assignment} · torch {doc.torch_version}", show_lines=False
    )
    table.add_column("question", style="bold")
    for s in students:
        table.add_column(s.student, justify="right")
    for qid in doc.question_ids():
        table.add_row(qid, *(_cell(s, qid) for s in students))
    table.add_section()
    table.add_row("score", *(_score(s) for s in students))
    return table


def key_table(key: Mapping[str, str]) -> Table:
    """Item id -> expected answer."""
    table = Table(title="answer key (computed by torch)")
    table.add_column("question", style="bold")
    table.add_column("answer")
    for item, answer in key.items():
        table.add_row(item, answer if "\n" not in answer else "(solution code)")
    return table


VERDICT_STYLE = {"same": "green", "renamed": "cyan", "new warning": "yellow", "changed": "bold red"}


def contents_table(contents: Any) -> Table:
    """What the course holds, per problem set (``course.contents``)."""
    kinds = contents.kinds()
    table = Table(
        title=(
            f"the course: {contents.exercises()} exercises, {contents.items()} questions and "
            f"checks, texts in {', '.join(contents.languages)}"
        )
    )
    for name in ("set", "title", "sections", *kinds, "questions and checks", "with parameters"):
        table.add_column(name, overflow="fold")
    for a in contents.assignments:
        table.add_row(
            a.id,
            a.title,
            ", ".join(a.sections),
            *(str(len(a.exercises.get(k, ()))) for k in kinds),
            str(sum(a.items.values())),
            ", ".join(a.varied),
        )
    return table


def drift_table(drifts: Sequence[Any], torch_version: str) -> Table:
    """The audit: what the article printed, what torch gives today, and a verdict."""
    table = Table(title=f"article vs torch {torch_version}")
    for name in ("question", "§", "article printed", "torch today", "verdict", "note"):
        table.add_column(name, overflow="fold")
    for d in drifts:
        style = VERDICT_STYLE.get(d.verdict, "")
        table.add_row(
            d.question,
            d.section,
            d.article,
            d.torch,
            f"[{style}]{d.verdict}[/]",
            _first_sentence(d.note),
        )
    return table


def print_table(table: Table) -> None:
    """Print to stdout; wide when piped, so tables in logs are not folded to 80 columns."""
    import sys

    Console(soft_wrap=False, width=None if sys.stdout.isatty() else 200).print(table)


def _first_sentence(text: str) -> str:
    head, dot, _ = text.partition(". ")
    return (head + dot).strip()[:120]


def _cell(student: StudentResult, qid: str) -> str:
    q = student.question(qid)
    if q is None:
        return ""
    return (
        f"{MARKS.get(q.status, q.status)} {format_points(q.points)}/{format_points(q.max_points)}"
    )


def _score(student: StudentResult) -> str:
    if student.status != "graded":
        return f"[red]{student.status}[/]"
    score = f"{format_points(student.score)}/{format_points(student.max_score)}"
    if student.late_factor < 1:  # the points earned, and what lateness made of them
        late = f"{format_points(student.raw_score)} × {format_points(student.late_factor)}"
        return f"{score} [yellow](late: {late})[/]"
    return score
