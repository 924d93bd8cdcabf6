"""``graders gradescope``: a Gradescope autograder zip for one assignment.

    setup.sh          run once by Gradescope, as root: a venv with torch (CPU) and graders'
                      dependencies, every truth computed, the course made readable by root only
    run_autograder    per submission: ``graders ci`` on /autograder/submission/, which writes
                      /autograder/results/results.json (graders' Gradescope export)
    requirements.txt  graders' own dependencies, read from its installed metadata
    lib/graders/      this very graders, so Gradescope grades exactly as the instructor does
    course/           course.yml with this assignment only, its exercises and their solutions

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
from importlib import metadata
from pathlib import Path

from ...course.load import LoadedCourse
from ...course.variants import varied_exercises
from ...errors import UsageError
from .bundle import write_course_bundle
from .templates import render

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


def build_autograder(loaded: LoadedCourse, assignment: str, out: Path) -> Autograder:
    """Write the autograder zip of ``assignment`` to ``out`` (whole or not at all)."""
    _no_variants(loaded, assignment)
    files = {script: render(f"{script}.j2", assignment=assignment).encode() for script in SCRIPTS}
    files["requirements.txt"] = "\n".join(requirements() + [""]).encode()
    files.update(_package_files())
    with tempfile.TemporaryDirectory(prefix="graders-gradescope-") as tmp:
        bundle = write_course_bundle(loaded, assignment, Path(tmp) / "course")
        files.update(
            {
                f"course/{p.relative_to(bundle.root).as_posix()}": p.read_bytes()
                for p in sorted(bundle.root.rglob("*"))
                if p.is_file()
            }
        )
    _write_zip(out, files)
    return Autograder(out, tuple(sorted(files)), tuple(f"course/{s}" for s in bundle.solutions))


def _no_variants(loaded: LoadedCourse, assignment: str) -> None:
    # A learner's variant comes from the id the course grades them by; Gradescope knows
    # them by its own ids, so the autograder could only guess whose variant to grade.
    varied = varied_exercises(loaded, assignment)
    if varied:
        raise UsageError(
            f"{assignment} gives each learner their own variant of {', '.join(varied)}, which "
            "a Gradescope autograder cannot tell apart: collect the notebooks and grade them "
            "with `graders autograde`, or set `variants: {count: 1}` for this course"
        )


def requirements() -> list[str]:
    """graders' runtime dependencies as installed, with its ``grade`` extra (grading needs
    it), without torch (installed from the CPU index)."""
    try:
        declared = metadata.requires("graders") or []
    except metadata.PackageNotFoundError as exc:
        raise UsageError(
            "graders is not installed (pip install -e .): its dependencies cannot be listed"
        ) from exc
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


def _package_files() -> dict[str, bytes]:
    package = Path(__file__).resolve().parents[2]  # graders/ itself: integrations/ci/ is two below
    return {
        f"lib/graders/{p.relative_to(package).as_posix()}": p.read_bytes()
        for p in sorted(package.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


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
