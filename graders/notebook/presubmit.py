"""The student's pre-submit check: which answers the grader cannot read.

    $ graders check ps1.ipynb            # in a terminal
    >>> from graders import check; check()    # in a cell of the notebook itself

It reads the notebook as saved on disk, exactly as the grader will (``notebook.read``),
picks the cell that counts for each question as the grader does (``counted``), parses
each prediction with the grader's answer parser and each code cell with ``ast``, and
warns about answer cells that would stop Run All (``runall``). It never runs anything
and never loads the course or its truths, so it cannot tell, and never says, whether an
answer is right.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import SubmissionError, UsageError
from ..i18n import SOURCE_LANGUAGE, _, speaking
from ..intake import notebook_choice
from ..said import Told, render, say, told
from .counted import counted_cell, ordinal
from .presubmit_report import CheckReport, Finding
from .read import (
    AnswerCell,
    NotebookAnswers,
    answer_cells,
    cell_source,
    read_notebook,
    released_for,
)
from .runall import run_all_stops

__all__ = ["CheckReport", "Finding", "check", "check_notebook", "find_notebook"]

SESSION_NAMES = ("__session__", "__vsc_ipynb_file__")  # set by ipykernel and by VS Code
SESSION_ENV = "JPY_SESSION_NAME"  # set by Jupyter Server for the notebook's kernel


def check(
    path: str | Path | None = None, assignment: str | None = None, lang: str | None = None
) -> None:
    """Print the pre-submit check of ``path``, or of the notebook this kernel runs."""
    notebook = Path(path) if path else find_notebook(assignment=assignment)
    print(check_notebook(notebook, assignment, lang).text())


def in_ci() -> bool:
    """Is this a CI job (``CI`` set, as GitHub Actions, GitLab and others set it), checking
    a notebook as it was handed in, where no one can save it first?"""
    return os.environ.get("CI", "").lower() in ("true", "1") or "GITHUB_ACTIONS" in os.environ


def check_notebook(
    path: Path, assignment: str | None = None, lang: str | None = None
) -> CheckReport:
    """Check the notebook at ``path`` (``SubmissionError`` when it cannot be read at all).

    The report speaks ``lang``, else the language the notebook was released in.
    """
    language = lang or SOURCE_LANGUAGE  # before the notebook can say its own
    try:
        with speaking(language):
            data = read_notebook(path)
            found = answer_cells(path, data)
        released_in = found.meta.get("language")
        language = lang or (released_in if isinstance(released_in, str) else SOURCE_LANGUAGE)
        with speaking(language):
            declared = released_for(path, found, assignment)
            return _report(path, data, found, assignment or declared, language)
    except SubmissionError as exc:
        # Why it cannot be checked is a message: written here, in the language the check
        # speaks, since the command line prints it after this function has returned.
        raise SubmissionError(render(told(exc), language), exc.language) from exc


def _report(
    path: Path,
    data: dict[str, Any],
    found: NotebookAnswers,
    assignment: str | None,
    language: str,
) -> CheckReport:
    stops = run_all_stops(_code_sources(path, data))
    keys = _keys(found)
    checked = [_check_key(found, key, stops) for key in keys if found.cells.get(key)]
    return CheckReport(
        path,
        assignment,
        None if in_ci() else datetime.fromtimestamp(path.stat().st_mtime),
        readable=tuple(c.key for c in checked if c.problem == ""),
        unreadable=tuple(Finding(c.key, c.problem, c.label) for c in checked if c.problem),
        unanswered=tuple(c.key for c in checked if c.problem is None),
        missing=tuple(k for k in keys if k not in found.cells),
        duplicated=tuple(c.duplicate for c in checked if c.duplicate is not None),
        stops=tuple(f for c in checked for f in c.stops),
        notes=tuple(f for c in checked for f in c.notes),
        labels={k: found.label(k) for k in keys},
        language=language,
    )


@dataclass(frozen=True)
class _KeyCheck:
    """What the check found about one answer key's cells."""

    key: str
    label: str
    problem: Told | None  # as ``Kind.cell_problem`` says of the cell that counts
    stops: tuple[Finding, ...]
    notes: tuple[Finding, ...]
    duplicate: Finding | None


def _check_key(found: NotebookAnswers, key: str, stops: dict[int, Told]) -> _KeyCheck:
    cells, label = found.cells[key], found.label(key)
    counted = counted_cell(cells)
    cell = counted.cell
    problem = cell.reader.cell_problem(cell.source, cell.meta)
    notes: tuple[Finding, ...] = ()
    if problem == "" and cell.index not in stops:
        reading = cell.reader.read_cell(cell.source, cell.meta)
        notes = tuple(Finding(key, note, label) for note in reading.notes)
    # A cell that cannot be read is reported once, as unreadable: fixing it fixes both.
    stopped = tuple(
        _stop(key, label, cells, i, c, stops[c.index])
        for i, c in enumerate(cells)
        if c.index in stops and not (c is cell and problem)
    )
    duplicate = Finding(key, counted.note, label) if counted.note else None
    return _KeyCheck(key, label, problem, stopped, notes, duplicate)


def _stop(
    key: str, label: str, cells: list[AnswerCell], position: int, cell: AnswerCell, reason: Told
) -> Finding:
    """A cell that stops Run All, and how to write it so it does not (when the kind says)."""
    which = _("its {nth} answer cell: ").format(nth=ordinal(position + 1)) if len(cells) > 1 else ""
    rewrite = cell.reader.read_cell(cell.source, cell.meta).rewrite
    fix = _("; write it as `{rewrite}`").format(rewrite=rewrite) if rewrite else ""
    return Finding(key, f"{which}{reason}{fix}", label)


def _code_sources(path: Path, data: dict[str, Any]) -> list[tuple[int, str]]:
    return [
        (index, cell_source(path, index, cell))
        for index, cell in enumerate(data["cells"])
        if isinstance(cell, dict) and cell.get("cell_type") == "code"
    ]


def find_notebook(
    cwd: Path | None = None,
    call: str = "check",
    assignment: str | None = None,
    others: Collection[str] = (),
) -> Path:
    """The notebook of the running kernel: as Jupyter or VS Code names it, else the one
    autograde and ``graders ci`` would take from the folder (``intake.notebook_choice``:
    ``<assignment>.ipynb`` when ``assignment`` is known, else the only notebook there);
    ``call``: the function the learner called, for the example in the error."""
    cwd = cwd or Path.cwd()
    for name in _session_names():
        for candidate in (Path(name), cwd / name, cwd / Path(name).name):
            if candidate.suffix == ".ipynb" and candidate.is_file():
                return candidate
    choice = notebook_choice.in_folder(cwd, assignment, others, shown_from=cwd)
    if choice.path is not None:
        return choice.path
    example = f"{call}('{assignment or 'ps1'}.ipynb')"
    raise UsageError(
        say(
            "cannot tell which notebook to {call} in {folder}: {why}; pass its path, e.g. "
            "{example}",
            call=call,
            folder=str(cwd),
            why=choice.error,
            example=example,
        )
    )


def _session_names() -> list[str]:
    names = [os.environ.get(SESSION_ENV, "")]
    shell = running_shell()
    if shell is not None:
        names = [str(shell.user_ns.get(n, "")) for n in SESSION_NAMES] + names
    return [n for n in names if n]


def running_shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _keys(found: NotebookAnswers) -> list[str]:
    """The answer keys the released notebook had, then any other found (in notebook order)."""
    released = found.meta.get("answers")
    keys = [k for k in released if isinstance(k, str)] if isinstance(released, list) else []
    return list(dict.fromkeys(keys + list(found.cells)))
