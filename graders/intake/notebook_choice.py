"""Which notebook in a folder is the learner's, or why none is: one rule for every door.

    in_folder     a student folder of ``graders autograde`` and ``graders serve``, and the
                  folder a learner's ``check()``/``submit()`` runs in when the kernel names
                  no notebook
    in_download   one student's files of an LMS's bulk download
    in_tree       what ``graders ci`` is given: a repository, searched into its subfolders

The rule (``pick``): one notebook named for the assignment (``ps1.ipynb``, or any notebook
in nbgrader's ``ps1/`` folder) is the learner's. Without one, the only other notebook is
(``ps1 (1).ipynb``, ``Untitled.ipynb``), unless it is named for another assignment of the
course. Several candidates are an error that lists them: guessing could grade the wrong
draft. Without an assignment (a learner's check that was not told it), the only notebook
is, whatever its name, else the same error. Hidden files and folders
(``.ipynb_checkpoints``) and a zip's ``__MACOSX`` are never looked at, and the notebook
chosen must be a regular file: a link or a FIFO could point the grader at files it must
not read, or block it. So one folder gives the same notebook, or the same refusal, to
autograde, to CI and to the learner.
"""

from __future__ import annotations

import stat
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..said import Told, say
from .identity import RULE, id_problem
from .lms_download import LmsFile, ambiguity, pattern_help
from .text import cannot_read, shown

#: Entries that are never a learner's work: an editor's copies, git's and a Mac's files.
IGNORED = {".ipynb_checkpoints", ".git", "__MACOSX", ".DS_Store"}


@dataclass(frozen=True)
class Choice:
    """The notebook chosen, where it is (for messages), or why there is none."""

    path: Path | None
    source: str
    error: Told | None = None


def in_folder(
    folder: Path,
    assignment: str | None,
    others: Collection[str] = (),
    shown_from: Path | None = None,
) -> Choice:
    """The notebook of ``folder`` (its name already checked): ``<assignment>.ipynb`` or
    ``<assignment>/<any>.ipynb``, else its only other notebook at the top.

    Messages show paths from ``shown_from``: by default the folder's parent, so that a
    student folder's notebook reads ``zoe/ps1.ipynb``."""
    base = folder.parent if shown_from is None else shown_from

    def where(path: Path) -> str:
        return shown(path.relative_to(base).as_posix()) if path != base else shown(str(path))

    named = _named(folder, assignment) if assignment else []
    return pick(
        named,
        _others(_top(folder), assignment, others),
        assignment,
        where,
        _nothing(
            assignment,
            where(folder),
            lambda a: _flat_or_nested(where(folder / f"{a}.ipynb"), where(folder / a)),
        ),
        where(folder),
    )


def in_tree(root: Path, assignment: str | None, others: Collection[str] = ()) -> Choice:
    """The notebook of a folder searched into its subfolders (a learner's repository):
    ``<assignment>.ipynb`` or a notebook in an ``<assignment>/`` folder, wherever they are,
    else the only other notebook anywhere in it."""

    def where(path: Path) -> str:
        return shown(path.relative_to(root).as_posix())

    found = list(_walk(root))
    named = [p for p in found if assignment and _named_for(p, root, assignment)]
    return pick(
        named,
        _others([p for p in found if p not in named], assignment, others),
        assignment,
        where,
        _nothing(assignment, shown(str(root)), lambda a: _flat_or_nested(f"{a}.ipynb", a)),
        shown(str(root)),
    )


def in_download(
    student: str, files: list[LmsFile], assignment: str, others: Collection[str] = ()
) -> Choice:
    """The notebook among one student's files of an LMS download."""
    first = files[0].path.name
    if (problem := id_problem(student)) is not None:
        error = say(
            "student name {name} is not allowed: {why} ({rule})",
            name=repr(student),
            why=problem,
            rule=RULE,
        )
        return Choice(None, first, error)
    if (why := ambiguity(files)) is not None:
        return Choice(None, first, why)
    own = f"{assignment}.ipynb"
    skip = {f"{a}.ipynb" for a in others}
    notebooks = [f for f in files if f.is_notebook]
    among = say("a notebook among {files}", files=", ".join(f.path.name for f in files))
    return pick(
        [f.path for f in notebooks if f.original == own],
        [f.path for f in notebooks if f.original != own and f.original not in skip],
        assignment,
        lambda p: shown(p.name),
        _nothing(assignment, first, lambda _: among),
        first,
    )


def loose_error(name: str) -> Told:
    """Why a notebook lying in the submissions folder itself is nobody's."""
    return say(
        "{name} is not in a student folder, and its name is not an LMS download's ({pattern})",
        name=name,
        pattern=pattern_help(),
    )


def pick(
    named: list[Path],
    unnamed: list[Path],
    assignment: str | None,
    shown: Callable[[Path], str],
    nothing: Told,
    nowhere: str,
) -> Choice:
    """The one notebook named for the assignment, else the only other one, else why not.

    ``nothing`` says that there is none; ``nowhere`` is the source shown when there is no
    single notebook to point at. The notebook chosen is refused unless it is a regular file.
    """
    if len(named) == 1 or (not named and len(unnamed) == 1):
        chosen = (named or unnamed)[0]
        source = shown(chosen)
        refused = irregular(chosen, source)
        return Choice(None, source, refused) if refused else Choice(chosen, source)
    error: Told
    if named:
        error = say(
            "{count} notebooks for {assignment}, expected one: {listed}",
            count=len(named),
            assignment=assignment,
            listed=_listed(named, shown),
        )
    elif unnamed and assignment:
        error = say(
            "{count} notebooks for {assignment}, none named {assignment}.ipynb: {listed}",
            count=len(unnamed),
            assignment=assignment,
            listed=_listed(unnamed, shown),
        )
    elif unnamed:
        error = say(
            "{count} notebooks, expected one: {listed}",
            count=len(unnamed),
            listed=_listed(unnamed, shown),
        )
    else:
        error = nothing
    return Choice(None, nowhere, error)


def irregular(path: Path, source: str) -> Told | None:
    """Why the file at ``path`` (``source`` in messages) is not read: it cannot be, or it is
    not a regular file; None when it may be read."""
    try:
        mode = path.lstat().st_mode
    except OSError as exc:
        return cannot_read(source, exc)
    if not stat.S_ISREG(mode):
        # A link or a FIFO could point the grader at files it must not read, or block it.
        return say("{path} is not a regular file", path=source)
    return None


def _nothing(assignment: str | None, folder: str, expected: Callable[[str], str | Told]) -> Told:
    """Why there is no notebook: none in ``folder``, or none for ``assignment`` where
    ``expected(assignment)`` says it would be."""
    if assignment is None:
        return say("no notebook (.ipynb file) in {path}", path=folder)
    return say(
        "no notebook for {assignment}: expected {expected}",
        assignment=assignment,
        expected=expected(assignment),
    )


def _flat_or_nested(flat: str, nested: str) -> Told:
    """``ps1.ipynb or ps1/<notebook>.ipynb``, as a message says where they would be."""
    inside = nested + "/<notebook>.ipynb"
    return say("{flat} or {nested}", flat=flat, nested=inside)


def _candidate(path: Path) -> bool:
    """A notebook that may be the learner's: not hidden, not an editor's copy."""
    return path.suffix.lower() == ".ipynb" and not _hidden(path.name)


def _hidden(name: str) -> bool:
    return name.startswith(".") or name in IGNORED


def _top(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if _candidate(p))


def _named(folder: Path, assignment: str) -> list[Path]:
    flat = folder / f"{assignment}.ipynb"
    found = [flat] if flat.exists() or flat.is_symlink() else []
    nested = folder / assignment
    if nested.is_dir() and not nested.is_symlink():
        found += _top(nested)
    return found


def _named_for(path: Path, root: Path, assignment: str) -> bool:
    return path.name == f"{assignment}.ipynb" or (
        path.parent != root and path.parent.name == assignment
    )


def _others(found: Iterable[Path], assignment: str | None, others: Collection[str]) -> list[Path]:
    """The notebooks named neither for this assignment nor for another one (without an
    assignment, every notebook: the only one may be named for any)."""
    skip = {f"{a}.ipynb" for a in (assignment, *others)} if assignment else set()
    return sorted(p for p in found if p.name not in skip)


def _walk(folder: Path) -> Iterator[Path]:
    """The candidate notebooks under ``folder``, never through a link nor into a hidden or
    ignored folder, nor into one that cannot be listed."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        if _hidden(entry.name):
            continue
        if entry.is_dir() and not entry.is_symlink():
            yield from _walk(entry)
        elif _candidate(entry):
            yield entry


def _listed(paths: Iterable[Path], shown: Callable[[Path], str]) -> str:
    return ", ".join(shown(p) for p in paths)
