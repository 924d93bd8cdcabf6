"""``graders gradescope``: a Gradescope autograder zip for one assignment.

    setup.sh          run once by Gradescope, as root: a venv with torch (CPU) and graders'
                      dependencies, every truth computed, the course made readable by root only
    run_autograder    per submission: ``graders ci`` on /autograder/submission/, which writes
                      /autograder/results/results.json (``exports.gradescope_results``:
                      Markdown, the visibility of each view from the assignment's feedback
                      policy), the learner named by Gradescope's metadata
                      (``--student-from gradescope-*``)
    requirements.txt  graders' own dependencies, read from its installed metadata
    lib/graders/      this very graders, so Gradescope grades exactly as the instructor does
    course/           course.yml with this assignment only, its exercises and their solutions
                      (and roster.csv, with ``--roster``: Gradescope's email or SID -> student)

Learners never see the zip; their code runs in the sandbox, which hides the course folder.
``GRADERS_AUTOGRADER_ROOT`` moves ``/autograder`` elsewhere (tests run the scripts in a
temporary folder laid out the same way).
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ...course.loaded import LoadedCourse
from ...errors import UsageError
from ...intake.roster import ROSTER_FILE, find_roster
from .bundle import write_course_bundle
from .learner import ROSTER_COLUMNS
from .templates import render
from .wheel import installed, package_files

ROOT_ENV = "GRADERS_AUTOGRADER_ROOT"
SCRIPTS = ("setup.sh", "run_autograder")
# A fixed time for every entry: the same course and graders give the same zip.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Autograder:
    """The zip written, and what is in it."""

    path: Path
    names: tuple[str, ...]
    solutions: tuple[str, ...]


def default_zip(assignment: str) -> Path:
    """``gradescope-<assignment>.zip`` in the current folder."""
    return Path(f"gradescope-{assignment}.zip")


def build_autograder(
    loaded: LoadedCourse,
    assignment: str,
    out: Path,
    *,
    learner_id: str = "email",
    roster: Path | None = None,
) -> Autograder:
    """Write the autograder zip of ``assignment`` to ``out`` (whole or not at all).

    Each submission is graded as the learner Gradescope's metadata names (``users[0]``'s
    ``learner_id``: ``email`` or ``sid``), in their own variant of every exercise with
    parameters; with ``roster``, that value is looked up in the roster (``ci/learner.py``).
    """
    if learner_id not in ROSTER_COLUMNS:
        raise UsageError(f"--learner-id: one of {', '.join(ROSTER_COLUMNS)}, not {learner_id!r}")
    source = f"gradescope-{learner_id}"
    files = {
        script: render(f"{script}.j2", assignment=assignment, student_from=source).encode()
        for script in SCRIPTS
    }
    files["requirements.txt"] = "\n".join(requirements() + [""]).encode()
    files.update({f"lib/{name}": data for name, data in package_files().items()})
    with tempfile.TemporaryDirectory(prefix="graders-gradescope-") as tmp:
        bundle = write_course_bundle(loaded, assignment, Path(tmp) / "course")
        files.update(
            {
                f"course/{p.relative_to(bundle.root).as_posix()}": p.read_bytes()
                for p in sorted(bundle.root.rglob("*"))
                if p.is_file()
            }
        )
    if roster is not None:
        files[f"course/{ROSTER_FILE}"] = _roster_bytes(roster, learner_id)
    _write_zip(out, files)
    return Autograder(out, tuple(sorted(files)), tuple(f"course/{s}" for s in bundle.solutions))


def _roster_bytes(path: Path, learner_id: str) -> bytes:
    """The roster, checked (every problem at its line), that maps Gradescope's values."""
    roster = find_roster(path.parent, path)
    assert roster is not None  # an explicit roster is found or refused
    column = ROSTER_COLUMNS[learner_id]
    if not any(getattr(e, column) for e in roster.entries):
        raise UsageError(
            f"{path}: no student has a {column}, which Gradescope's {learner_id} is looked up "
            "in: fill that column, or choose the other --learner-id"
        )
    return path.read_bytes()


def requirements() -> list[str]:
    """graders' runtime dependencies as installed, with its ``grade`` extra (grading needs
    it), without torch (installed from the CPU index)."""
    declared = installed().requires or []
    kept = []
    for requirement in declared:
        requirement = _GRADE_EXTRA.sub("", requirement).rstrip().rstrip(";")
        name = re.match(r"[A-Za-z0-9._-]+", requirement)
        marker = requirement.partition(";")[2]
        if name and name.group().lower() != "torch" and "extra" not in marker:
            kept.append(requirement)
    return kept


# How installed metadata marks a requirement of the `grade` extra, to be kept as a plain one.
_GRADE_EXTRA = re.compile(r"""\s*(?:and\s+)?extra\s*==\s*["']grade["'](?:\s+and\s+)?""")


def _write_zip(out: Path, files: dict[str, bytes]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            mode = 0o755 if name in SCRIPTS else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    os.replace(tmp, out)
