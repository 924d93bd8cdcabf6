"""Find each student's notebook for an assignment in a submissions folder.

Three layouts are accepted (``folder_layout`` tells which from the folder's
structure, or ``--layout`` says), and the last two may be mixed:

    SUBMISSIONS/<student>/<assignment>/<any name>.ipynb   (+ timestamp.txt: nbgrader's)
    SUBMISSIONS/<student>/<assignment>.ipynb
    SUBMISSIONS/<name>_<id>_<file id>_<file>.ipynb        (an LMS's bulk download: lms_download)

A student folder that holds neither ``<assignment>.ipynb`` nor ``<assignment>/`` but exactly
one other notebook (``ps1 (1).ipynb``, ``Untitled.ipynb``) hands in that one; notebooks
named after another assignment of the course are not candidates (``intake.notebook_choice``:
the rule ``graders ci`` and the learner's ``check()`` follow too). Every name read here
passes the door (``intake``): a name that is not UTF-8 or not an allowed id, two ids that
differ only in case, are their students' errors; ids that look alike are noted. A
submission's time comes from nbgrader's ``timestamp.txt`` in nbgrader's layout only,
never from a file a learner could have put in their folder (it is noted, not read), nor
from the notebook's modification time. Nothing here reads a notebook: a student whose
folder name is unsafe, whose notebook is missing, or who handed in several becomes a
``Found`` with an ``error`` naming what was found, and the rest of the batch goes on.
A ``Found`` is what grading takes through ``Found.handed_in`` (``handed_in.HandedIn``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from pathlib import Path, PurePosixPath

from ..errors import UsageError
from ..intake import notebook_choice
from ..intake.identity import RULE, id_problem, student_id
from ..intake.lms_download import by_student, downloaded_name, parse_lms_file, pattern_help
from ..intake.notebook_choice import IGNORED
from ..intake.roster import Roster
from ..intake.text import TextRefused, os_name, shown
from ..said import say, told
from .class_ids import one_regardless_of_case, with_lookalikes
from .folder_layout import Layout, recognise
from .found import Found
from .times import learners_time_file, recorded_time

__all__ = ["Found", "find_one", "find_submissions", "submissions_base"]


def find_submissions(
    folder: Path,
    assignment: str,
    *,
    roster: Roster | None = None,
    others: Collection[str] = (),
    layout: str = "auto",
    archive: bool = False,
    known: Collection[str] = (),
) -> list[Found]:
    """Every student under ``folder`` (or its ``submitted/``), sorted by id.

    ``others`` are the course's other assignments; ``roster`` names the student of each
    LMS user id in a bulk download, and settles two ids that differ only in case.
    ``layout``: ``--layout`` (``auto``: by the folder's structure); ``archive``: the folder
    was unpacked from a .zip; ``known``: other ids (a times file's) an id may look like.
    """
    if not folder.is_dir():
        raise UsageError(f"no submissions folder at {folder}")
    found_layout = recognise(folder, layout, archive)
    base = found_layout.base
    folders, downloaded, loose, found = _top_level(found_layout)
    found += [find_one(entry, assignment, others, found_layout.nbgrader_times) for entry in folders]
    files = [f for p in downloaded if (f := parse_lms_file(p, roster)) is not None]
    for student, group in by_student(files).items():
        found.append(
            _found(student, notebook_choice.in_download(student, group, assignment, others))
        )
    for p in loose:
        name = shown(student_id(p.name))
        found.append(Found(name, None, name, error=notebook_choice.loose_error(name)))
    if not found:
        raise UsageError(
            f"no student folders in {base} (expected {base}/<student>/{assignment}.ipynb, "
            f"or notebooks named {pattern_help()})"
        )
    merged = _one_per_student(found)
    return with_lookalikes(one_regardless_of_case(merged, roster), roster, known)


def submissions_base(folder: Path, layout: str = "auto") -> Path:
    """The folder whose subfolders are students: ``folder`` or its nbgrader ``submitted/``."""
    if not folder.is_dir():
        raise UsageError(f"no submissions folder at {folder}")
    return recognise(folder, layout).base


def _top_level(layout: Layout) -> tuple[list[Path], list[Path], list[Path], list[Found]]:
    """Student folders, files named as in an LMS download, other loose notebooks, and the
    entries whose name is not text (each its own ungradable entry)."""
    folders: list[Path] = []
    downloaded: list[Path] = []
    loose: list[Path] = []
    refused: list[Found] = []
    for p in sorted(layout.base.iterdir()):
        if p.name in IGNORED:
            continue
        try:
            os_name(p.name)
        except TextRefused as exc:
            refused.append(Found(shown(p.name), None, shown(p.name), error=told(exc)))
            continue
        is_folder = p.is_dir() and not p.is_symlink()
        if not is_folder and layout.downloads and downloaded_name(p.name):
            downloaded.append(p)
        elif layout.folders and (p.is_dir() or p.is_symlink()):
            folders.append(p)
        elif p.suffix.lower() == ".ipynb" or (is_folder and not layout.folders):
            loose.append(p)
    return folders, downloaded, loose, refused


def find_one(
    student_dir: Path, assignment: str, others: Collection[str] = (), nbgrader: bool = False
) -> Found:
    """The notebook of one student folder, with its submission time, or the reason it has
    none. ``nbgrader``: the folder is in nbgrader's layout, whose timestamp.txt is trusted."""
    name = student_dir.name
    try:
        student = student_id(os_name(name))
    except TextRefused as exc:
        return Found(shown(name), None, shown(name), error=told(exc))
    problem = id_problem(student)
    if problem is not None:
        error = say(
            "student folder name {name} is not allowed: {why} ({rule})",
            name=repr(name),
            why=problem,
            rule=RULE,
        )
        return Found(student, None, name, error=error)
    if student_dir.is_symlink():
        error = say("{name} is a symbolic link, not a folder", name=name)
        return Found(student, None, name, error=error)
    choice = notebook_choice.in_folder(student_dir, assignment, others)
    return _found(student, choice, student_dir, nbgrader)


def _found(
    student: str,
    choice: notebook_choice.Choice,
    student_dir: Path | None = None,
    nbgrader: bool = False,
) -> Found:
    """A student's entry for the notebook chosen, with its submission time."""
    found = Found(student, choice.path, choice.source, error=choice.error)
    if found.path is None:
        return found
    # A notebook of an LMS download sits with everyone's: nothing beside it is its own.
    return _with_time(found, student_dir, nbgrader)


def _one_per_student(found: list[Found]) -> list[Found]:
    """Entries sorted by student; a student found twice (a folder and a download) is an error."""
    groups: dict[str, list[Found]] = {}
    for f in found:
        groups.setdefault(f.student, []).append(f)
    merged = []
    for student in sorted(groups):
        entries = groups[student]
        if len(entries) == 1:
            merged.append(entries[0])
            continue
        sources = ", ".join(e.source for e in entries)
        error = say(
            "{count} submissions for {student}, expected one: {sources}",
            count=len(entries),
            student=student,
            sources=sources,
        )
        merged.append(Found(student, None, entries[0].source, error=error))
    return merged


def _with_time(found: Found, student_dir: Path | None, nbgrader: bool) -> Found:
    assert found.path is not None  # a regular file (``notebook_choice`` checked it)
    if student_dir is None:
        return found
    shown_dir = str(PurePosixPath(found.source).parent)
    # nbgrader's layout (a notebook in <student>/<assignment>/) has its timestamp.txt.
    if nbgrader and found.path.parent != student_dir:
        try:
            when = recorded_time(found.path, shown_dir)
        except ValueError as exc:
            return Found(found.student, None, found.source, error=told(exc))
        return replace(found, submitted_at=when)
    return replace(found, ignored_time=learners_time_file(found.path, student_dir, shown_dir))
