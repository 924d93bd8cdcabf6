"""Benchmark: a class graded with per-learner variants beside the same class without them.

    .venv/bin/python benchmarks/variants_batch.py                  # 500 learners, ps1-ps3
    .venv/bin/python benchmarks/variants_batch.py --students 20 --assignments ps2

The course is copied twice: as bundled (``variants: {count: 8}``) and with
``variants: {count: 1}``, where every learner gets the base variant. For each assignment,
every synthetic learner (``synth``) answers their own variant's questions: their key and
their variant's misconceptions, computed by torch; and a learner who writes code writes
their own variant's (the reference solution rendered with their values), so a code
exercise with parameters (safe-sgd-step in ps2, straight-through in ps3) is checked per
variant, its reference observed once per variant, each learner's code jobs still in one
job list. Then ``graders autograde`` grades the
whole class in each copy as a subprocess, from a cold truth cache, so that the time with
variants includes computing every variant's truths; the truths it computed are counted
from the cache (one file per exercise and variant).

Prints, per assignment: which exercises have parameters (predict and code), the wall time
of the whole command without and with variants, their ratio (the aim: at most 1.5x), and
how many truths (predictions' truths and code references' observations) each computed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synth  # noqa: E402
from proctree import run_measured  # noqa: E402

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parent.parent
COURSE_FILES = ("course.yml", "exercises", "solutions", "checkers", "samples")
AIM = 1.5


def main(argv: list[str] | None = None) -> int:
    args = _options(argv)
    work = Path(tempfile.mkdtemp(prefix="graders-variants-"))
    try:
        courses = {
            "without": _course(work / "without", count=1),
            "with": _course(work / "with", count=args.count),
        }
        rows = [_assignment(args, courses, work, a) for a in args.assignments.split(",") if a]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(_table(rows, args.students, args.count))
    return 0 if all(r["ratio"] <= AIM for r in rows) else 1


def _assignment(
    args: argparse.Namespace, courses: dict[str, Path], work: Path, assignment: str
) -> dict[str, Any]:
    cohort = synth.students(args.students, args.seed, args.code_share, args.hostile_every)
    row: dict[str, Any] = {"assignment": assignment, "varied": _varied(courses["with"], assignment)}
    for label, course in courses.items():
        _write_class(course, assignment, cohort, work / f"{label}-{assignment}", args.seed)
    walls: dict[str, list[float]] = {label: [] for label in courses}
    for run in range(args.runs):  # alternated, so that a busy spell of the machine hits both
        for label, course in courses.items():
            shutil.rmtree(course / ".graders-cache", ignore_errors=True)  # truths computed cold
            db = work / f"{label}-{assignment}-{run}.db"
            subs, out = work / f"{label}-{assignment}", work / "out"
            done = _graders(
                course, "autograde", assignment, str(subs),
                "--workers", str(args.workers), "--db", f"sqlite:///{db}", "--out", str(out),
            )  # fmt: skip
            walls[label].append(done.wall_s)
            _say(f"{assignment} {label} variants, run {run + 1}: {done.wall_s:.1f} s")
    for label, course in courses.items():
        # The least disturbed run: the machine is shared, and noise only ever adds time.
        row[label] = {"wall_s": min(walls[label]), "truths": _truths(course)}
    row["ratio"] = row["with"]["wall_s"] / row["without"]["wall_s"]
    return row


def _write_class(
    course: Path, assignment: str, cohort: list[synth.Student], folder: Path, seed: int
) -> None:
    """Each learner's notebook, answered in their own variant (keys computed by torch)."""
    from graders.course.variants import learner_course
    from graders.grading.pipeline import answer_key, for_learner, prepare_assignment
    from graders.notebook.release import student_notebook
    from graders.workspace import open_workspace

    with open_workspace(course) as session:
        loaded = session.loaded
        prep = prepare_assignment(loaded, assignment, session.ctx)
        released = json.loads(json.dumps(student_notebook(loaded, prep.assignment)))
        for student in cohort:
            mine = learner_course(loaded, student.id)
            wrong, entries = _facts(mine, assignment)
            key = answer_key(for_learner(prep, student.id))
            nb = synth.fill(released, student, key, wrong, entries, seed)
            synth.write_submission(nb, folder, student.id, assignment)


def _facts(loaded: Any, assignment: str) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Item id -> its misconceptions' answers; code exercise id -> its entry function."""
    wrong: dict[str, list[str]] = {}
    entries: dict[str, str] = {}
    for item in loaded.course.assignment(assignment).exercises:
        exercise = loaded.exercises[item.id].exercise
        for q in getattr(exercise, "questions", []):
            wrong[f"{exercise.id}/{q.id}"] = [m.answer for m in q.misconceptions]
        if hasattr(exercise, "entry"):
            entries[exercise.id] = exercise.entry
    return wrong, entries


def _varied(course: Path, assignment: str) -> str:
    """``2 predict + 1 code``: the assignment's exercises with parameters, by kind."""
    from graders.course.variants import varied_exercises
    from graders.workspace import load

    loaded = load(course)
    kinds = [loaded.exercises[e].kind.name for e in varied_exercises(loaded, assignment)]
    return " + ".join(f"{kinds.count(k)} {k}" for k in ("predict", "code")) or "none"


def _course(dest: Path, count: int) -> Path:
    for name in COURSE_FILES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, dest / name)
        else:
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)
    course = dest / "course.yml"
    text = course.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("variants:")]
    course.write_text("\n".join([*lines, f"variants: {{count: {count}}}", ""]), encoding="utf-8")
    return dest


def _truths(course: Path) -> int:
    return len(list((course / ".graders-cache" / "truth").glob("*.json")))


def _graders(course: Path, *args: str) -> Any:
    done = run_measured([str(BIN / "graders"), *args, "--course", str(course)], cwd=course)
    if done.returncode not in (0, 1):  # 1: some submission could not be graded, a result
        raise RuntimeError(f"graders {args[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done


def _table(rows: list[dict[str, Any]], students: int, count: int) -> str:
    lines = [
        f"{students} learners each, whole `graders autograde` command (fastest run), "
        "truths computed cold",
        f"{'':10} {'with parameters':>18} {'without variants':>18} "
        f"{f'with (count {count})':>18} {'ratio':>7} {'truths without/with':>20}",
    ]
    for r in rows:
        truths = f"{r['without']['truths']}/{r['with']['truths']}"
        without, with_ = r["without"]["wall_s"], r["with"]["wall_s"]
        lines.append(
            f"{r['assignment']:10} {r['varied']:>18} {without:>16.1f} s {with_:>16.1f} s "
            f"{r['ratio']:>6.2f}x {truths:>20}"
        )
    lines.append(f"aim: at most {AIM}x the time without variants")
    return "\n".join(lines)


def _say(text: str) -> None:
    print(f"[bench] {text}", file=sys.stderr, flush=True)


def _options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--assignments", default="ps1,ps2,ps3")
    parser.add_argument("--count", type=int, default=8, help="variants.count of the varied run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--code-share", type=float, default=0.3)
    parser.add_argument(
        "--hostile-every",
        type=int,
        default=0,
        help="one hostile learner in this many (default 0: none; each holds a worker for "
        "the time limit in both runs alike)",
    )
    parser.add_argument(
        "--runs", type=int, default=2, help="timed runs of each (the fastest counts)"
    )
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main())
