"""Terminal tables of results documents and answer keys (rich)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from rich.console import Console
from rich.table import Table

MARKS = {"correct": "[green]✓[/]", "wrong": "[red]✗[/]", "unanswered": "[dim]–[/]", "invalid": "[yellow]?[/]",
         "error": "[magenta]![/]", "timeout": "[magenta]⏱[/]", "integrity": "[bold red]⚠[/]"}


def results_table(doc: Mapping[str, Any]) -> Table:
    """Question × student, each cell a status mark and points; totals at the bottom."""
    students = doc["students"]
    table = Table(title=f"{doc['course']} · {doc['assignment']} · torch {doc['torch_version']}", show_lines=False)
    table.add_column("question", style="bold")
    for s in students:
        table.add_column(s["student"], justify="right")
    for qid in _question_ids(students):
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


def drift_table(drifts: Sequence[Any], torch_version: str) -> Table:
    """The audit: what the article printed, what torch gives today, and a verdict."""
    table = Table(title=f"article vs torch {torch_version}")
    for name in ("question", "§", "article printed", "torch today", "verdict", "note"):
        table.add_column(name, overflow="fold")
    for d in drifts:
        style = VERDICT_STYLE.get(d.verdict, "")
        table.add_row(d.question, d.section, d.article, d.torch, f"[{style}]{d.verdict}[/]", _first_sentence(d.note))
    return table


def print_table(table: Table) -> None:
    """Print to stdout; wide when piped, so tables in logs are not folded to 80 columns."""
    import sys

    Console(soft_wrap=False, width=None if sys.stdout.isatty() else 200).print(table)


def _first_sentence(text: str) -> str:
    head, dot, _ = text.partition(". ")
    return (head + dot).strip()[:120]


def _question_ids(students: list[dict[str, Any]]) -> list[str]:
    ids: dict[str, None] = {}
    for s in students:
        ids.update((q["id"], None) for q in s["questions"])
    return list(ids)


def _cell(student: Mapping[str, Any], qid: str) -> str:
    q = next((q for q in student["questions"] if q["id"] == qid), None)
    if q is None:
        return ""
    return f"{MARKS.get(q['status'], q['status'])} {_num(q['points'])}/{_num(q['max_points'])}"


def _score(student: Mapping[str, Any]) -> str:
    if student["status"] != "graded":
        return f"[red]{student['status']}[/]"
    return f"{_num(student['score'])}/{_num(student['max_score'])}"


def _num(x: float) -> str:
    return f"{x:g}" if abs(x - round(x)) > 1e-9 else str(int(round(x)))
