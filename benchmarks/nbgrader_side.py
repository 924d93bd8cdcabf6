"""The same submissions through real nbgrader: its course folder, its autograde, its scores.

``graders release`` writes an nbgrader source notebook whose hidden test cells call
``graders.nbgrader.check``; nbgrader's ``generate_assignment`` turns it into the student
version, which is the notebook the synthetic class fills in (so graders and nbgrader grade
the very same files). ``nbgrader autograde`` then runs each notebook in a fresh Jupyter
kernel, as it always does.

Per-submission times come from nbgrader's own log: each line carries a timestamp, and a
student's time runs from their first line to the next student's first line.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from proctree import Measured, run_measured

BIN = Path(sys.executable).parent
CONFIG = """\
import os

c = get_config()
c.CourseDirectory.course_id = "graders-benchmark"
# Where the test cells find the graders course (the release names it by id only).
os.environ["GRADERS_COURSE"] = {course!r}
# A code test cell may start graders' sandbox and then wait out a hostile job's time limit.
c.ExecutePreprocessor.timeout = 600
c.Application.log_format = "%(created).3f [%(name)s | %(levelname)s] %(message)s"
"""
STUDENT_IN_PATH = re.compile(r"/(?:submitted|autograded)/([^/]+)/")


@dataclass(frozen=True)
class NbgraderRun:
    """One ``nbgrader autograde`` over a subset, and what it gave."""

    measured: Measured
    per_student_s: dict[str, float]  # from nbgrader's log
    scores: dict[str, float]  # student -> total auto score
    items: dict[str, dict[str, float]]  # student -> test cell id -> points


def nbgrader_env() -> dict[str, str]:
    """This interpreter's environment, with its bin first (nbgrader's kernels use it)."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("GRADERS_COURSE", None)  # the test cells must find it through nbgrader_config.py
    return env


def nbgrader(root: Path, *args: str) -> Measured:
    """Run an nbgrader command in the course folder ``root``; raise with its log if it fails."""
    done = run_measured([str(BIN / "nbgrader"), *args], cwd=root, env=nbgrader_env())
    if done.returncode != 0:
        raise RuntimeError(
            f"nbgrader {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done


def generate(root: Path, release_source: Path, assignment: str, course: Path) -> Path:
    """Make ``root`` an nbgrader course holding ``assignment``, graded with the graders
    course at ``course``; return the student notebook."""
    shutil.copytree(release_source, root / "source" / assignment, dirs_exist_ok=True)
    config = CONFIG.format(course=str(course.resolve()))
    (root / "nbgrader_config.py").write_text(config, encoding="utf-8")
    nbgrader(root, "generate_assignment", assignment, "--force")
    return root / "release" / assignment / f"{assignment}.ipynb"


def autograde(root: Path, assignment: str, students: list[Path]) -> NbgraderRun:
    """Copy the students' folders into ``root/submitted`` and autograde them with nbgrader."""
    for folder in students:
        shutil.copytree(folder, root / "submitted" / folder.name, dirs_exist_ok=True)
    measured = nbgrader(root, "autograde", assignment, "--create", "--force")
    scores, items = _gradebook_scores(root, assignment, [f.name for f in students])
    return NbgraderRun(
        measured, per_student_times(measured.stderr + measured.stdout), scores, items
    )


def per_student_times(log: str) -> dict[str, float]:
    """Student -> seconds, from the timestamps nbgrader's log lines start with."""
    first: dict[str, float] = {}
    last_stamp = 0.0
    for line in log.splitlines():
        stamp, _, rest = line.partition(" ")
        try:
            when = float(stamp)
        except ValueError:
            continue
        last_stamp = when
        found = STUDENT_IN_PATH.search(rest)
        if found and found.group(1) not in first:
            first[found.group(1)] = when
    ordered = sorted(first.items(), key=lambda item: item[1])
    ends = [when for _, when in ordered[1:]] + [last_stamp]
    return {student: end - start for (student, start), end in zip(ordered, ends, strict=True)}


def _gradebook_scores(
    root: Path, assignment: str, students: list[str]
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    from nbgrader.api import Gradebook

    scores: dict[str, float] = {}
    items: dict[str, dict[str, float]] = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for student in students:
            submission = gb.find_submission(assignment, student)
            grades = {
                g.name: float(g.auto_score or 0.0) for nb in submission.notebooks for g in nb.grades
            }
            items[student] = grades
            scores[student] = round(sum(grades.values()), 4)
    return scores, items
