"""An nbgrader course set up by ``graders release ASSIGNMENT --nbgrader DIR``.

    DIR/source/<assignment>/                  the nbgrader source notebook and its pointer
    DIR/graders-course-folder.json            where this graders course is, for the test cells
    DIR/handouts/<assignment>/<student>/<assignment>.ipynb
                                              with --roster, once ``nbgrader generate_assignment``
                                              has run: nbgrader's student version in each
                                              learner's own variant

The test cells nbgrader runs in ``DIR/autograded/<student>/<assignment>/`` find the
course through the link file above them (``graders.nbgrader.course_file``): nothing to
set in ``nbgrader_config.py``. The link stays in the nbgrader course's own folder, which
nbgrader never hands out (it releases ``release/<assignment>/`` only); the pointer that
is handed out names the course by its id alone.

nbgrader releases one notebook for everyone: the base variant. A learner answering it
would be graded in their own variant, so each learner's handout is nbgrader's student
version with the setup cells and texts of their variant (the cells graders wrote carry
the same ids in both), everything else nbgrader made (its metadata, its cells for grading)
as it is. nbgrader restores the setup cells it locked before it runs a notebook: that
changes nothing, since the test cells read the answers from the saved notebook.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..notebook import META_KEY

if TYPE_CHECKING:
    # nbformat (and the jsonschema it imports: seconds where Jupyter installed its format
    # extras) only where handouts are written: a test cell finds its course through
    # ``linked_course`` in every kernel nbgrader starts.
    from nbformat import NotebookNode

    from ..course.loaded import LoadedCourse
    from ..notebook.release import Released

LINK_FILE = "graders-course-folder.json"
HANDOUTS = "handouts"


def install(written: Released, loaded: LoadedCourse, root: Path) -> Path:
    """Put the release's nbgrader source folder into the nbgrader course ``root`` (replacing
    an earlier one) and link ``root`` to this course; the folder written."""
    if not root.is_dir():
        raise UsageError(f"--nbgrader {root}: no such folder (the nbgrader course's folder)")
    assignment = written.source.parent.name
    target = root / "source" / assignment
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(written.source.parent, target)
    link = {"course_id": loaded.course.id, "folder": str(loaded.root.resolve())}
    (root / LINK_FILE).write_text(json.dumps(link, indent=1) + "\n", encoding="utf-8")
    return target


def linked_course(folder: Path, course_id: str) -> Path | None:
    """The course folder the link file in ``folder`` names, when it names ``course_id``."""
    try:
        link = json.loads((folder / LINK_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(link, dict) or link.get("course_id") != course_id:
        return None
    named = link.get("folder")
    return Path(named) if isinstance(named, str) else None


def nbgrader_release(root: Path, assignment: str) -> Path:
    """nbgrader's student version of ``assignment`` (``release/<assignment>/``)."""
    return root / "release" / assignment / f"{assignment}.ipynb"


def write_handouts(
    root: Path, assignment: str, learners: Sequence[tuple[str, NotebookNode]]
) -> list[Path]:
    """Each learner's handout: nbgrader's student version with the cells of ``learners``'
    own notebooks (``graders release --roster``'s), written under ``root/handouts``."""
    import nbformat

    released = nbgrader_release(root, assignment)
    if not released.is_file():
        raise UsageError(
            f"no {released} yet: run `nbgrader generate_assignment {assignment}` in {root}, "
            "then this command again to write each learner's handout"
        )
    written = []
    for student, own in learners:
        nb = handout(nbformat.read(released, as_version=4), own)
        path = root / HANDOUTS / assignment / student / f"{assignment}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.validate(nb)
        path.write_text(nbformat.writes(nb), encoding="utf-8")
        written.append(path)
    return written


def handout(released: NotebookNode, own: NotebookNode) -> NotebookNode:
    """``released`` with the texts and setup cells of the learner's ``own`` notebook."""
    theirs = {cell.get("id"): cell for cell in own.cells}
    for cell in released.cells:
        mine = theirs.get(cell.get("id"))
        if mine is None or _answer(cell) or mine.cell_type != cell.cell_type:
            continue
        cell.source = mine.source
    for name in ("student", "variants"):  # for people to read; grading never trusts them
        if name in own.metadata.get(META_KEY, {}):
            released.metadata.setdefault(META_KEY, {})[name] = own.metadata[META_KEY][name]
    return released


def _answer(cell: NotebookNode) -> bool:
    tag = cell.get("metadata", {}).get(META_KEY, {})
    return bool(tag.get("question") or tag.get("exercise"))
