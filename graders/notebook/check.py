"""The student's pre-submit check: which answers the grader cannot read.

    $ graders check ps1.ipynb            # in a terminal
    >>> from graders import check; check()    # in a cell of the notebook itself

It reads the notebook as saved on disk, exactly as the grader will (``notebook.read``),
parses each prediction with the grader's answer parser and each code cell with ``ast``.
It never runs anything and never loads the course or its truths, so it cannot tell, and
never says, whether an answer is right.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import SubmissionError, UsageError
from .collect import duplicate_note
from .read import NotebookAnswers, answer_cells, read_notebook

SESSION_NAMES = ("__session__", "__vsc_ipynb_file__")  # set by ipykernel and by VS Code
SESSION_ENV = "JPY_SESSION_NAME"  # set by Jupyter Server for the notebook's kernel


@dataclass(frozen=True)
class Finding:
    """Something about one answer cell (``key`` is an item id or a code exercise id)."""

    key: str
    message: str


@dataclass(frozen=True)
class CheckReport:
    """What ``check`` found; ``ok`` when every answer given can be read."""

    notebook: Path
    assignment: str | None
    saved_at: datetime
    readable: tuple[str, ...]
    unreadable: tuple[Finding, ...]
    unanswered: tuple[str, ...]
    missing: tuple[str, ...]
    duplicated: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return not self.unreadable

    def text(self) -> str:
        """The report as a learner reads it."""
        what = f" (assignment {self.assignment})" if self.assignment else ""
        lines = [
            f"Checked {self.notebook.name}{what} as saved at {self.saved_at:%H:%M:%S}; save the "
            "notebook first, unsaved changes are not checked.",
        ]
        lines += _section(
            f"The grader cannot read {len(self.unreadable)} of your answers",
            [f"{f.key}: {f.message}" for f in self.unreadable],
        )
        lines += _listing(f"Not answered yet ({len(self.unanswered)})", self.unanswered)
        lines += _listing(
            f"Answer cells missing from the notebook ({len(self.missing)}); they count as "
            "unanswered",
            self.missing,
        )
        lines += _section(
            "Answered more than once", [f"{f.key}: {f.message}" for f in self.duplicated]
        )
        total = len(self.readable) + len(self.unreadable) + len(self.unanswered) + len(self.missing)
        lines += [
            "",
            f"{len(self.readable)} of {total} answers can be read. This check never tells whether "
            "an answer is right.",
        ]
        return "\n".join(lines)


def check(path: str | Path | None = None, assignment: str | None = None) -> None:
    """Print the pre-submit check of ``path``, or of the notebook this kernel runs."""
    print(check_notebook(Path(path) if path else find_notebook(), assignment).text())


def check_notebook(path: Path, assignment: str | None = None) -> CheckReport:
    """Check the notebook at ``path`` (``SubmissionError`` when it cannot be read at all)."""
    found = answer_cells(path, read_notebook(path))
    declared = (
        found.meta.get("assignment") if isinstance(found.meta.get("assignment"), str) else None
    )
    if assignment and declared and assignment != declared:
        raise SubmissionError(
            f"{path}: this notebook is for assignment '{declared}', not '{assignment}'"
        )
    if not found.cells:
        raise SubmissionError(
            f"{path}: no answer cells (cells with metadata.graders): is it the notebook released "
            "for the assignment?"
        )
    readable: list[str] = []
    unreadable: list[Finding] = []
    unanswered: list[str] = []
    for key in _keys(found):
        cell = found.last(key)
        if cell is None:
            continue
        problem = cell.kind.cell_problem(cell.source, cell.meta)
        if problem is None:
            unanswered.append(key)
        elif problem:
            unreadable.append(Finding(key, problem))
        else:
            readable.append(key)
    missing = tuple(k for k in _keys(found) if k not in found.cells)
    duplicated = tuple(Finding(k, duplicate_note(c)) for k, c in found.cells.items() if len(c) > 1)
    saved = datetime.fromtimestamp(path.stat().st_mtime)
    return CheckReport(
        path,
        assignment or declared,
        saved,
        tuple(readable),
        tuple(unreadable),
        tuple(unanswered),
        missing,
        duplicated,
    )


def find_notebook(cwd: Path | None = None) -> Path:
    """The notebook of the running kernel: as Jupyter or VS Code names it, else the only
    one here."""
    cwd = cwd or Path.cwd()
    for name in _session_names():
        for candidate in (Path(name), cwd / name, cwd / Path(name).name):
            if candidate.suffix == ".ipynb" and candidate.is_file():
                return candidate
    notebooks = sorted(cwd.glob("*.ipynb"))
    if len(notebooks) == 1:
        return notebooks[0]
    found = f"{len(notebooks)} notebooks" if notebooks else "no notebook"
    raise UsageError(
        f"cannot tell which notebook to check ({found} in {cwd}): pass its path, e.g. "
        "check('ps1.ipynb')"
    )


def _session_names() -> list[str]:
    names = [os.environ.get(SESSION_ENV, "")]
    shell = _ipython()
    if shell is not None:
        names = [str(shell.user_ns.get(n, "")) for n in SESSION_NAMES] + names
    return [n for n in names if n]


def _ipython() -> Any:
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


def _section(title: str, rows: list[str]) -> list[str]:
    return ["", f"{title}:", *(f"  - {row}" for row in rows)] if rows else []


def _listing(title: str, keys: tuple[str, ...]) -> list[str]:
    wrapped = textwrap.fill(
        ", ".join(keys),
        width=96,
        initial_indent="  ",
        subsequent_indent="  ",
        break_on_hyphens=False,
    )
    return ["", f"{title}:", wrapped] if keys else []
