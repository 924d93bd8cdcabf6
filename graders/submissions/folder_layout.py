"""How a submissions folder is laid out, decided by its structure, never by a learner's name.

    nbgrader   nbgrader's ``submitted/`` folder (or the course root that holds it): every
               student folder holds only assignment folders, each with the
               ``timestamp.txt`` nbgrader wrote when it took the submission in
    flat       ``<student>/<assignment>.ipynb``, ``<student>/<assignment>/<any>.ipynb`` or
               a student folder's only notebook: folders that learners (or a script of
               the instructor's) filled
    lms        an LMS's bulk download: one flat folder, the student in each file's name
               (as any registered LMS names it: ``lms/``, ``intake.lms_download``)

Without ``--layout``, a folder is nbgrader's when it is laid out as above, or when it
holds a ``submitted/`` folder laid out so and nothing beside it is a submission; anything
else is read as ``flat`` and ``lms`` together (folders are students, files named as in a
download are theirs). A learner named ``submitted`` is therefore a learner: their folder
holds notebooks, not student folders. A ``.zip``'s lone top folder is opened unless it is
one learner's folder (it holds a notebook, or ``<assignment>/`` does, or it is laid out
as one of nbgrader's student folders).

Only nbgrader's layout has trusted times: nbgrader's exchange writes ``timestamp.txt``
when it takes the work in, and copies it into ``submitted/``. A time file anywhere else
sits in a folder a learner filled, so it is never read (``times``); nor is
one inside a ``.zip``, which holds what its maker put there, unless ``--layout nbgrader``
says that the archive is nbgrader's folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..intake.lms_download import downloaded_name
from ..intake.notebook_choice import IGNORED
from .times import TIMESTAMP_FILE

LAYOUTS = ("auto", "nbgrader", "flat", "lms")
NBGRADER_ROOT = "submitted"  # the folder of an nbgrader course root that holds submissions


@dataclass(frozen=True)
class Layout:
    """Where the students are in a submissions folder, and what is read there."""

    base: Path  # the folder whose entries are students (folders) or their files (LMS)
    folders: bool  # its folders are students
    downloads: bool  # its files named as in an LMS download are students' files
    nbgrader_times: bool  # a timestamp.txt in <student>/<assignment>/ is nbgrader's


def recognise(folder: Path, forced: str = "auto", archive: bool = False) -> Layout:
    """The layout of ``folder``: ``forced`` by ``--layout``, else by its structure.

    ``archive``: the folder was unpacked from a .zip (its times are not nbgrader's unless
    ``--layout nbgrader`` says so).
    """
    if forced == "nbgrader":
        inner = folder / NBGRADER_ROOT
        base = inner if _real_dir(inner) and not nbgrader_submitted(folder) else folder
        return Layout(base, folders=True, downloads=False, nbgrader_times=True)
    if forced == "flat":
        return Layout(folder, folders=True, downloads=False, nbgrader_times=False)
    if forced == "lms":
        return Layout(folder, folders=False, downloads=True, nbgrader_times=False)
    if nbgrader_submitted(folder):
        return Layout(folder, folders=True, downloads=False, nbgrader_times=not archive)
    if _nbgrader_course_root(folder):
        inner = folder / NBGRADER_ROOT
        return Layout(inner, folders=True, downloads=False, nbgrader_times=not archive)
    return Layout(folder, folders=True, downloads=True, nbgrader_times=False)


def nbgrader_submitted(folder: Path) -> bool:
    """Is ``folder`` laid out as nbgrader's ``submitted/``: student folders of assignment
    folders, each with its ``timestamp.txt``, and nothing else?"""
    students = entries(folder)
    return bool(students) and all(nbgrader_student(s) for s in students)


def nbgrader_student(folder: Path) -> bool:
    """Is ``folder`` one of nbgrader's student folders: assignment folders, each timed?"""
    if not _real_dir(folder):
        return False
    inside = entries(folder)
    return bool(inside) and all(_real_dir(a) and _regular(a / TIMESTAMP_FILE) for a in inside)


def one_learner(folder: Path, assignment: str | None) -> bool:
    """Is ``folder`` one learner's folder (rather than a folder of learners)?"""
    if any(_notebook(p) for p in entries(folder)) or nbgrader_student(folder):
        return True
    if assignment is None:
        return False
    named = folder / assignment
    others = [p for p in entries(folder) if p.name != assignment and _real_dir(p)]
    return _holds_notebooks(named) and not any(_holds_notebooks(p) for p in others)


def entries(folder: Path) -> list[Path]:
    """The entries of ``folder`` that may be submissions: not hidden, not a tool's own."""
    try:
        found = sorted(folder.iterdir())
    except OSError:
        return []
    return [p for p in found if p.name not in IGNORED and not p.name.startswith(".")]


def _nbgrader_course_root(folder: Path) -> bool:
    # nbgrader's course root holds source/, release/, autograded/... beside submitted/, but
    # never a submission: a notebook, a download's file, or a folder holding a notebook.
    inner = folder / NBGRADER_ROOT
    if not (_real_dir(inner) and nbgrader_submitted(inner)):
        return False
    beside = [p for p in entries(folder) if p.name != NBGRADER_ROOT]
    return not any(
        _notebook(p) or (p.is_file() and downloaded_name(p.name)) or _holds_notebooks(p)
        for p in beside
    )


def _holds_notebooks(folder: Path) -> bool:
    return _real_dir(folder) and any(_notebook(p) for p in entries(folder))


def _notebook(path: Path) -> bool:
    return path.suffix.lower() == ".ipynb" and not path.is_dir()


def _real_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def _regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()
