"""Benchmark: a synthetic class graded by ``graders autograde`` and by real ``nbgrader autograde``.

    .venv/bin/python benchmarks/class_batch.py --students 500            # the full run (~15 min)
    .venv/bin/python benchmarks/class_batch.py --quick              # 5 students, ps1, no nbgrader

For each assignment:

1. ``graders release`` it (truths computed cold) and let nbgrader generate the student
   notebook from the released nbgrader source;
2. fill that notebook in for N synthetic students (``synth``);
3. grade them all with ``graders autograde --workers W`` as a subprocess: wall time and
   CPU time of its whole process tree (``proctree``);
4. grade them all again while reading every process's PSS: peak memory (reading PSS
   slows the run, so this run is not the timed one);
5. grade the first ``--growth-base`` of them on their own (growth);
   for ``--scale-assignment``, also grade a class of ``--scale`` students (timed, then
   again for its peak memory): cost linear in learners, memory flat;
6. measure per-submission costs in one process (``costs``);
7. grade a subset with ``nbgrader autograde`` and check that every student of the subset
   gets the same score from both.

Then grade the whole course as an instructor would, one ``graders autograde ps1 ps2 ps3``
over one folder holding every assignment's submissions, with the hostile students and
without them, and time ``graders check`` started cold. Prints the figures and the targets
they meet; ``--json`` keeps every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nbgrader_side  # noqa: E402
import report  # noqa: E402
import synth  # noqa: E402
from proctree import Measured, run_measured  # noqa: E402

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parent.parent
COURSE_FILES = ("course.yml", "exercises", "solutions", "checkers", "samples")


@dataclass(frozen=True)
class Options:
    """What to run (see ``--help``)."""

    students: int
    assignments: tuple[str, ...]
    workers: int
    subset: int
    growth_base: int
    scale: int
    scale_assignment: str
    code_share: float
    hostile_every: int
    seed: int
    check_runs: int
    course: Path
    work: Path


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures; exit 1 when a score differs from nbgrader's."""
    opts, json_out, keep = _options(argv)
    figures: dict[str, Any] = {
        "command": " ".join(["benchmarks/class_batch.py", *(argv or sys.argv[1:])]),
        "machine": report.machine(),
        "students": opts.students,
        "workers": opts.workers,
        "code_share": opts.code_share,
        "hostile_every": opts.hostile_every,
        "assignments": {},
    }
    try:
        course = _copy_course(opts.course, opts.work / "course")
        for assignment in opts.assignments:
            _say(
                f"{assignment}: release, {opts.students} submissions, graders autograde"
                + (", nbgrader" if opts.subset else "")
            )
            figures["assignments"][assignment] = run_assignment(opts, course, assignment)
        if len(opts.assignments) > 1:
            _say(f"the whole course: graders autograde {' '.join(opts.assignments)}, twice")
            figures["course"] = run_course(opts, course)
        # The first learner's notebook (s0000: never a hostile one), the same every run; for
        # graders ci, the first who writes code (what starts the sandbox: the case to measure).
        submitted = opts.work / opts.assignments[0] / "submitted"
        first = min(submitted.glob("*/*/*.ipynb"))
        if opts.check_runs:
            figures["check"] = time_check(first, opts.check_runs)
            coder = next(
                (s for s in synth.students(opts.students, opts.seed, opts.code_share,
                                           opts.hostile_every)
                 if s.writes_code and not s.hostile),
                None,
            )  # fmt: skip
            with_code = min(submitted.glob(f"{coder.id}/*/*.ipynb")) if coder else first
            figures["one_notebook"] = time_one_notebook(
                course, with_code, opts.assignments[0], opts.check_runs
            )
        figures["torch"] = report.torch_version()
    finally:
        if not keep:
            shutil.rmtree(opts.work, ignore_errors=True)
    print(report.text(figures))
    if json_out:
        json_out.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return (
        0
        if all(
            a.get("nbgrader", {}).get("same_scores", True) for a in figures["assignments"].values()
        )
        else 1
    )


def run_assignment(opts: Options, course: Path, assignment: str) -> dict[str, Any]:
    """Every figure of one assignment (see the module docstring)."""
    work = opts.work / assignment
    release = graders_cli(course, "release", assignment, "--out", str(work / "release"))
    key = json.loads(graders_cli(course, "key", assignment, "--json").stdout)
    nb_root = work / "nbgrader"
    if opts.subset:
        template = nbgrader_side.generate(
            nb_root, work / "release" / "source" / assignment, assignment, course
        )
    else:
        template = work / "release" / assignment / f"{assignment}.ipynb"
    cohort, subs, batch, memory = graded_class(
        opts, course, assignment, template, key, work, opts.students
    )
    figures: dict[str, Any] = {
        "release": report.measured(release),
        "batch": report.measured(batch),
        "memory": report.measured(memory),
        "mix": report.mix(cohort),
    }
    if 0 < opts.growth_base < opts.students:
        base = copy_students(
            subs, work / f"first-{opts.growth_base}", [s.id for s in cohort[: opts.growth_base]]
        )
        figures["growth"] = {
            "base": opts.growth_base,
            "batch": report.measured(
                autograde(course, assignment, base, work, "base", opts.workers)
            ),
        }
    if opts.scale > opts.students and assignment == opts.scale_assignment:
        figures["scale"] = run_scale(opts, course, assignment, template, key)
    figures["costs"] = costs(course, assignment, subs)
    if opts.subset:
        figures["nbgrader"] = compare_with_nbgrader(
            nb_root,
            assignment,
            subs,
            pick_subset(cohort, opts.subset),
            work / "out-all" / "results.json",
        )
    return figures


def run_scale(
    opts: Options, course: Path, assignment: str, template: Path, key: dict[str, str]
) -> dict[str, Any]:
    """A class of ``opts.scale`` students of one assignment, graded like the main batch:
    its time (to compare with the batch's) and its peak memory (in a run of its own)."""
    work = opts.work / assignment / f"scale-{opts.scale}"
    cohort, _, batch, memory = graded_class(
        opts, course, assignment, template, key, work, opts.scale
    )
    return {
        "students": opts.scale,
        "hostile": sum(1 for s in cohort if s.hostile),
        "batch": report.measured(batch),
        "memory": report.measured(memory),
    }


def graded_class(
    opts: Options,
    course: Path,
    assignment: str,
    template: Path,
    key: dict[str, str],
    work: Path,
    students: int,
) -> tuple[list[synth.Student], Path, Measured, Measured]:
    """A class of ``students`` written into ``work`` and graded twice: timed, then again
    for its peak memory (reading PSS slows the run it measures)."""
    cohort = synth.students(students, opts.seed, opts.code_share, opts.hostile_every)
    subs = write_class(
        course,
        assignment,
        json.loads(template.read_text(encoding="utf-8")),
        cohort,
        key,
        work / "submitted",
        opts.seed,
    )
    batch = autograde(course, assignment, subs, work, "all", opts.workers)
    memory = autograde(course, assignment, subs, work, "memory", opts.workers, pss=True)
    return cohort, subs, batch, memory


def run_course(opts: Options, course: Path) -> dict[str, Any]:
    """The whole course in one command, over every assignment's submissions at once, with
    the hostile students and without them."""
    cohort = synth.students(opts.students, opts.seed, opts.code_share, opts.hostile_every)
    hostile = {s.id for s in cohort if s.hostile}
    every = link_course(opts, opts.work / "course-all", skip=set())
    tame = link_course(opts, opts.work / "course-tame", skip=hostile)
    figures: dict[str, Any] = {}
    for label, subs in (("batch", every), ("without_hostile", tame)):
        done = autograde(course, " ".join(opts.assignments), subs, opts.work, label, opts.workers)
        figures[label] = report.measured(done)
    figures["submissions"] = opts.students * len(opts.assignments)
    figures["hostile"] = len(hostile) * len(opts.assignments)
    return figures


def link_course(opts: Options, dest: Path, skip: set[str]) -> Path:
    """One submissions folder holding every assignment's (nbgrader's layout,
    ``<student>/<assignment>/``), hard links to the files each assignment was graded from."""
    for assignment in opts.assignments:
        submitted = opts.work / assignment / "submitted"
        for path in submitted.rglob("*"):
            rel = path.relative_to(submitted)
            if not path.is_file() or rel.parts[0] in skip:
                continue
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            if not (dest / rel).exists():
                os.link(path, dest / rel)
    return dest


def write_class(
    course: Path,
    assignment: str,
    template: dict[str, Any],
    cohort: list[synth.Student],
    key: dict[str, str],
    folder: Path,
    seed: int,
) -> Path:
    """Fill ``template`` for every student; nbgrader's ``submitted`` layout."""
    wrong, entries = course_facts(course, assignment)
    for student in cohort:
        synth.write_submission(
            synth.fill(template, student, key, wrong, entries, seed), folder, student.id, assignment
        )
    return folder


def course_facts(course: Path, assignment: str) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Item id -> its misconceptions' answers; code exercise id -> its entry function."""
    from graders.workspace import load

    loaded = load(course)
    wrong: dict[str, list[str]] = {}
    entries: dict[str, str] = {}
    for item in loaded.course.assignment(assignment).exercises:
        exercise = loaded.exercises[item.id].exercise
        for q in getattr(exercise, "questions", []):
            wrong[f"{exercise.id}/{q.id}"] = [m.answer for m in q.misconceptions]
        if hasattr(exercise, "entry"):
            entries[exercise.id] = exercise.entry
    return wrong, entries


def autograde(
    course: Path,
    assignments: str,
    subs: Path,
    work: Path,
    label: str,
    workers: int,
    pss: bool = False,
) -> Measured:
    """``graders autograde`` of ``assignments`` (one, or several separated by spaces) into a
    fresh gradebook, measured as a whole (``pss``: see ``proctree``)."""
    db = work / f"gradebook-{label}.db"
    for stale in work.glob(f"gradebook-{label}.db*"):
        stale.unlink()
    done = graders_cli(
        course,
        "autograde",
        *assignments.split(),
        str(subs),
        "--workers",
        str(workers),
        "--db",
        f"sqlite:///{db}",
        "--out",
        str(work / f"out-{label}"),
        check=False,
        pss=pss,
    )
    if done.returncode not in (0, 1):  # 1: some submission could not be graded, which is a result
        raise RuntimeError(f"graders autograde failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done


def graders_cli(course: Path, *args: str, check: bool = True, pss: bool = False) -> Measured:
    """Run ``graders ARGS --course COURSE`` as its own process, measured."""
    done = run_measured(
        [str(BIN / "graders"), *args, "--course", str(course)],
        cwd=course,
        pss=pss,
        interval=0.1 if pss else 0.05,
    )
    if check and done.returncode != 0:
        raise RuntimeError(
            f"graders {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    return done


def costs(course: Path, assignment: str, subs: Path) -> dict[str, Any]:
    """Per-submission costs, from ``costs.py`` in a process of its own."""
    script = Path(__file__).resolve().parent / "costs.py"
    done = run_measured(
        [
            sys.executable,
            str(script),
            "--course",
            str(course),
            "--assignment",
            assignment,
            "--submissions",
            str(subs),
        ]
    )
    if done.returncode != 0:
        raise RuntimeError(f"costs.py failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def pick_subset(cohort: list[synth.Student], size: int) -> list[synth.Student]:
    """A subset that holds every kind of student: two hostile, code writers, then the rest
    in order."""
    hostile = [s for s in cohort if s.hostile][:2]
    coders = [s for s in cohort if s.code in ("solution", "wrong")][: max(0, size // 4)]
    chosen = {s.id: s for s in hostile + coders}
    for student in cohort:
        if len(chosen) >= size:
            break
        chosen.setdefault(student.id, student)
    return sorted(list(chosen.values())[:size], key=lambda s: s.id)


def compare_with_nbgrader(
    root: Path, assignment: str, subs: Path, subset: list[synth.Student], results: Path
) -> dict[str, Any]:
    """nbgrader's scores of the subset next to graders' (from the full batch's results.json)."""
    run = nbgrader_side.autograde(root, assignment, [subs / s.id for s in subset])
    ours = {s["student"]: s for s in json.loads(results.read_text(encoding="utf-8"))["students"]}
    differ = {
        sid: {"graders": ours[sid]["score"], "nbgrader": run.scores[sid]}
        for sid in run.scores
        if abs(ours[sid]["score"] - run.scores[sid]) > 1e-3
    }
    return {
        "subset": [s.id for s in subset],
        "batch": report.measured(run.measured),
        "per_submission_s": run.per_student_s,
        "scores": run.scores,
        "same_scores": not differ,
        "differ": differ,
    }


def copy_students(subs: Path, dest: Path, students: list[str]) -> Path:
    """A submissions folder holding only ``students`` (copies: graders refuses symlinked
    folders)."""
    for student in students:
        shutil.copytree(subs / student, dest / student, dirs_exist_ok=True)
    return dest


def time_check(notebook: Path, runs: int) -> dict[str, Any]:
    """``graders check`` of one submitted notebook, each run a fresh interpreter (cold start)."""
    walls = [
        run_measured([str(BIN / "graders"), "check", str(notebook)]).wall_s for _ in range(runs)
    ]
    return {"runs": runs, "first_s": walls[0], "median_s": sorted(walls)[len(walls) // 2]}


def time_one_notebook(course: Path, notebook: Path, assignment: str, runs: int) -> dict[str, Any]:
    """``graders ci`` of one notebook (what a learner's CI run or a Gradescope container pays)
    against ``python -c "import torch"``, the one cost grading cannot avoid, alternated in
    the same minutes so that the machine's load weighs on both alike; medians of ``runs``."""
    ci, torch_only = [], []
    for _ in range(runs):
        torch_only.append(run_measured([sys.executable, "-c", "import torch"]).wall_s)
        command = [str(BIN / "graders"), "ci", str(notebook), "--assignment", assignment]
        ci.append(run_measured([*command, "--course", str(course)]).wall_s)
    median = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731 - two uses, one line
    return {
        "runs": runs,
        "ci_median_s": median(ci),
        "import_torch_median_s": median(torch_only),
        "ratio": median(ci) / median(torch_only),
    }


def _copy_course(source: Path, dest: Path) -> Path:
    for name in COURSE_FILES:
        if (source / name).is_dir():
            shutil.copytree(source / name, dest / name, dirs_exist_ok=True)  # a kept --workdir
        elif (source / name).is_file():
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, dest / name)
    # nbgrader releases one notebook to everyone and grades it in the base variant, so the
    # scores it is compared on are those of a course without variants (variants_batch.py
    # measures what variants cost).
    course = dest / "course.yml"
    lines = course.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if not line.startswith("variants:")]
    course.write_text("\n".join([*kept, "variants: {count: 1}", ""]), encoding="utf-8")
    return dest


def _say(text: str) -> None:
    print(f"[bench] {text}", file=sys.stderr, flush=True)


def _options(argv: list[str] | None) -> tuple[Options, Path | None, bool]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--students", type=int, default=500, help="submissions per assignment (default 500)"
    )
    parser.add_argument(
        "--assignments", default="ps1,ps2,ps3", help="comma-separated (default ps1,ps2,ps3)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="graders autograde --workers (default: CPUs)",
    )
    parser.add_argument(
        "--nbgrader-subset",
        type=int,
        default=20,
        help="submissions nbgrader grades per assignment; 0: none (default 20)",
    )
    parser.add_argument(
        "--growth-base",
        type=int,
        default=100,
        help="the smaller batch of the growth ratio (default 100)",
    )
    parser.add_argument(
        "--scale",
        type=int,
        default=2000,
        help="a class this large of --scale-assignment, beside the main batch; 0: none "
        "(default 2000)",
    )
    parser.add_argument(
        "--scale-assignment", default="ps3", help="the assignment of --scale (default ps3)"
    )
    parser.add_argument(
        "--code-share",
        type=float,
        default=0.3,
        help="share of students who write code (default 0.3)",
    )
    parser.add_argument(
        "--hostile-every",
        type=int,
        default=synth.HOSTILE_EVERY,
        help=f"one hostile student in this many; 0: none (default {synth.HOSTILE_EVERY})",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--check-runs", type=int, default=5, help="cold starts of graders check (default 5)"
    )
    parser.add_argument(
        "--course", type=Path, default=REPO, help="the course folder (default: the repository's)"
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="keep every file here (default: a temporary folder, removed)",
    )
    parser.add_argument(
        "--json", type=Path, default=None, help="also write every figure to this file"
    )
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 5 students, ps1, no nbgrader, no growth"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.students, args.assignments, args.nbgrader_subset, args.growth_base, args.check_runs = (
            5,
            "ps1",
            0,
            0,
            1,
        )
        args.scale = 0
    work = args.workdir or Path(tempfile.mkdtemp(prefix="graders-bench-"))
    opts = Options(
        args.students,
        tuple(a for a in args.assignments.split(",") if a),
        args.workers,
        args.nbgrader_subset,
        args.growth_base,
        args.scale,
        args.scale_assignment,
        args.code_share,
        args.hostile_every,
        args.seed,
        args.check_runs,
        args.course.resolve(),
        work.resolve(),
    )
    return opts, args.json, args.workdir is not None


if __name__ == "__main__":
    sys.exit(main())
