"""Code exercises through the real sandbox: solutions, the named corpus, hostile code, batches.

Corpus files are named ``<exercise>__<outcome>__<what>.py``; ``any`` files are graded as
``independent-copy``. The outcome is the one when the course allows every module the file
imports (``code_imports``): an attack must fail at the layers behind the allowlist too.
With the default list, a file that imports anything else is an ``error`` naming the line
and the module, and never ``integrity`` (refusing is not accusing). ``pass`` means full marks; ``partial``/``fail`` files say each
check's status in an ``# expect:`` line (a check scores its points exactly when
``correct``); ``invalid``/``error``/``timeout``/``integrity`` give every check of the
exercise that status and zero. An ``# expect-message:`` line names what every check's
feedback must say.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from what_starts import starts

from graders.course.load import load_course
from graders.course.loaded import LoadedCourse
from graders.course.model import CourseLimits
from graders.grading.answers_files import grade_answer_files
from graders.grading.pipeline import (
    PreparedAssignment,
    PreparedExercise,
    Submission,
    grade_submission,
    prepare_assignment,
)
from graders.grading.prepare import prepare_exercises
from graders.kinds.base import Context, ExerciseAnswers
from graders.kinds.code.child.allowlist import DEFAULT_IMPORTS
from graders.kinds.code.child.learner import reachable
from graders.kinds.code.reference import Reference
from graders.kinds.registry import sandbox_modules, task_modules
from graders.results import QuestionResult
from graders.sandbox import SandboxError, open_runner

CORPUS = Path(__file__).parent.parent / "corpus" / "code"
REPO = Path(__file__).resolve().parent.parent.parent
# Every code exercise of the bundled course, found from course.yml, not from a list here.
CODE_EXERCISES = tuple(
    sorted(
        e.exercise.id
        for e in load_course(REPO / "course.yml").exercises.values()
        if e.kind.name == "code"
    )
)
TIMEOUT_S = 3  # per job here; the course's own limit (10 s) would only make the suite slower
INTERNALS = re.compile(r"Traceback|/graders/|File \"")


@pytest.fixture(scope="module")
@starts("sandbox")
def env(
    course_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[LoadedCourse, Context]]:
    # Everyone in the base variant: the corpus is about the sandbox and the checkers; each
    # learner's own variant is test_code_variants.py's.
    loaded = base_variants_only(load_course(course_file))
    course = loaded.course.model_copy(
        update={"limits": CourseLimits(timeout_s=TIMEOUT_S, memory_mib=2048)}
    )
    runner = open_runner(
        "auto",
        workers=2,
        hide=(str(loaded.root.resolve()),),
        modules=modules_of(loaded),
        preload=task_modules(),
    )
    try:
        yield loaded, Context(course, loaded.root, runner, tmp_path_factory.mktemp("cache"))
    finally:
        runner.close()


@pytest.fixture(scope="module")
def prepared(env: tuple[LoadedCourse, Context]) -> dict[str, Reference]:
    loaded, ctx = env
    return prepare_exercises(loaded, CODE_EXERCISES, ctx)


def base_variants_only(loaded: LoadedCourse) -> LoadedCourse:
    """``loaded`` with every exercise in its base variant alone, for every learner."""
    exercises = {i: replace(e, variants=()) for i, e in loaded.exercises.items()}
    return replace(loaded, exercises=exercises)


def modules_of(loaded: LoadedCourse) -> dict[str, tuple[str, str]]:
    return sandbox_modules(loaded.exercises.values(), loaded.root)


def grade_code(
    env: tuple[LoadedCourse, Context],
    prepared: dict[str, Reference],
    exercise_id: str,
    source: str,
    imports: tuple[str, ...] = (),
) -> list[QuestionResult]:
    """``source`` graded as ``exercise_id``, the course allowing ``imports`` besides its list."""
    loaded, ctx = env
    if imports:
        course = ctx.course.model_copy(update={"code_imports": [*DEFAULT_IMPORTS, *imports]})
        ctx = replace(ctx, course=course)
    ex = loaded.exercises[exercise_id]
    return ex.kind.grade(ex.exercise, prepared[exercise_id], ExerciseAnswers({}, code=source), ctx)


def outside_imports(path: Path) -> tuple[str, ...]:
    """The modules ``path`` imports that the default list does not allow."""
    found: list[str] = []
    try:
        tree = ast.parse(path.read_text())
    except SyntaxError:
        return ()  # the syntax-error case imports nothing
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
    # A listed module imports whether or not its parent packages are listed.
    return tuple(sorted(m for m in set(found) if not reachable(frozenset(DEFAULT_IMPORTS), m)))


@pytest.fixture(scope="module")
def corpus_results(
    env: tuple[LoadedCourse, Context], prepared: dict[str, Reference]
) -> dict[str, list[QuestionResult]]:
    """Every corpus file graded once, two at a time (the runner has two warm servers)."""
    files = sorted(CORPUS.glob("*.py"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        graded = pool.map(
            lambda f: grade_code(env, prepared, target(f), f.read_text(), outside_imports(f)),
            files,
        )
        return dict(zip((f.stem for f in files), graded, strict=True))


def target(path: Path) -> str:
    exercise = path.stem.split("__")[0]
    return "independent-copy" if exercise == "any" else exercise


def expected_statuses(path: Path, check_ids: list[str]) -> dict[str, str]:
    """Check id -> expected status, from the file name or its ``# expect:`` line."""
    outcome = path.stem.split("__")[1]
    if outcome == "pass":
        return dict.fromkeys(check_ids, "correct")
    if outcome in ("partial", "fail"):
        line = next(x for x in path.read_text().splitlines() if x.startswith("# expect:"))
        return dict(pair.split("=") for pair in line.removeprefix("# expect:").split())
    return dict.fromkeys(check_ids, outcome)


@pytest.mark.parametrize("exercise_id", CODE_EXERCISES)
def test_every_solution_earns_full_marks(
    env: Any, prepared: dict[str, Reference], exercise_id: str
) -> None:
    results = grade_code(env, prepared, exercise_id, prepared[exercise_id].solution)
    assert [r.status.value for r in results] == ["correct"] * len(results)
    assert sum(r.points for r in results) == sum(r.max_points for r in results) > 0


@pytest.mark.parametrize("exercise_id", CODE_EXERCISES)
def test_reference_observations_pass_their_own_checks(
    env: Any, prepared: dict[str, Reference], exercise_id: str
) -> None:
    loaded, _ = env
    ex = loaded.exercises[exercise_id]
    assert prepared[exercise_id].error is None
    assert ex.kind.problems(ex.exercise, prepared[exercise_id], ex.marks) == []


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.py")), ids=lambda p: p.stem)
def test_corpus(env: Any, corpus_results: dict[str, list[QuestionResult]], path: Path) -> None:
    loaded, _ = env
    checks = loaded.exercises[target(path)].exercise.checks
    expected = expected_statuses(path, [c.id for c in checks])
    results = {r.id.split("/", 1)[1]: r for r in corpus_results[path.stem]}
    assert {c: r.status.value for c, r in results.items()} == expected
    for check in checks:
        result = results[check.id]
        assert result.points == (check.points if expected[check.id] == "correct" else 0.0)
        if result.status.value != "correct":
            assert str(result.feedback) and not INTERNALS.search(str(result.feedback)), str(
                result.feedback
            )
    said = expected_message(path)
    assert all(said in str(r.feedback) for r in results.values()), [
        str(r.feedback) for r in results.values()
    ]


REFUSED = sorted(p for p in CORPUS.glob("*.py") if outside_imports(p))


@pytest.mark.parametrize("path", REFUSED, ids=lambda p: p.stem)
def test_an_import_the_course_does_not_allow_is_an_error_that_names_it(
    env: Any, prepared: dict[str, Reference], path: Path
) -> None:
    results = grade_code(env, prepared, target(path), path.read_text())

    assert {r.status.value for r in results} == {"error"}, [str(r.feedback) for r in results]
    for r in results:
        assert r.points == 0
        assert "interfered" not in str(r.feedback)
        assert re.search(r"Line \d+: the module `[\w.]+` is not available", str(r.feedback)), str(
            r.feedback
        )
        assert "code_imports" in str(r.feedback)


def test_every_module_the_default_list_allows_imports_in_learner_code(
    env: Any, prepared: dict[str, Reference]
) -> None:
    # Each entry as a learner writes it (a `package.*` entry: the package and one module in
    # it), with no parent package listed for it: `concurrent.futures`, `torch.utils.data`.
    entries = [e.removesuffix(".*") for e in DEFAULT_IMPORTS]
    inside = {
        "torch.nn.modules": "torch.nn.modules.linear",
        "concurrent.futures": "concurrent.futures.thread",
    }
    lines = [f"import {e}" for e in entries] + [
        f"import {inside[e.removesuffix('.*')]}" for e in DEFAULT_IMPORTS if e.endswith(".*")
    ]
    lines += [
        "from concurrent.futures import ThreadPoolExecutor",
        "from torch.utils.data import default_collate",
        "",
        "def independent_copy(t):",
        "    with ThreadPoolExecutor(max_workers=1) as pool:",
        "        copy = pool.submit(lambda: t.detach().clone()).result()",
        "    return default_collate([copy])[0].clone()",
    ]
    results = grade_code(env, prepared, "independent-copy", "\n".join(lines) + "\n")
    assert [r.status.value for r in results] == ["correct"] * len(results), [
        str(r.feedback) for r in results
    ]


def test_a_package_on_the_way_to_a_listed_module_gives_nothing_else(
    env: Any, prepared: dict[str, Reference]
) -> None:
    # `torch.utils` is reached only as the way to `torch.utils.data`: its other names are not.
    source = (
        "import torch.utils.data\n\ndef independent_copy(t):\n    return torch.utils.swap_tensors\n"
    )
    results = grade_code(env, prepared, "independent-copy", source)
    assert {r.status.value for r in results} == {"error"}, [str(r.feedback) for r in results]
    assert all("torch.utils.swap_tensors" in str(r.feedback) for r in results)


def expected_message(path: Path) -> str:
    """What every check's feedback must say, from an ``# expect-message:`` line (or nothing)."""
    line = next(
        (x for x in path.read_text().splitlines() if x.startswith("# expect-message:")),
        "# expect-message:",
    )
    return line.removeprefix("# expect-message:").strip()


def test_corpus_covers_every_outcome() -> None:
    outcomes = {p.stem.split("__")[1] for p in CORPUS.glob("*.py")}
    assert outcomes == {"pass", "partial", "fail", "invalid", "error", "timeout", "integrity"}
    assert {p.stem.split("__")[0] for p in CORPUS.glob("*.py")} == {*CODE_EXERCISES, "any"}


@pytest.mark.parametrize(
    "hostile",
    [
        "any__timeout__infinite_loop",
        "freeze-module__integrity__patch_torch_equal",
        "freeze-module__error__os_exit_in_entry",
        "any__error__memory_bomb",
    ],
)
def test_hostile_exercise_costs_only_itself(
    env: tuple[LoadedCourse, Context], prepared: dict[str, Reference], tmp_path: Path, hostile: str
) -> None:
    loaded, ctx = env
    prep = prepare_assignment(loaded, "ps3", ctx)
    code = {
        "freeze-module": (CORPUS / f"{hostile}.py").read_text(),
        "detach-forward": prepared["detach-forward"].solution,
    }
    answers = tmp_path / "ada.yml"
    answers.write_text(yaml.safe_dump({"student": "ada", "assignment": "ps3", "code": code}))
    [result] = grade_answer_files(prep, [answers])
    by_exercise = _statuses_by_exercise(result.questions)
    assert by_exercise["freeze-module"] == {hostile.split("__")[1]}
    assert by_exercise["detach-forward"] == {"correct"}
    assert by_exercise["straight-through"] == {"unanswered"}
    assert sum(q.points for q in result.questions if q.id.startswith("freeze-module/")) == 0
    assert sum(q.points for q in result.questions if q.id.startswith("detach-forward/")) == 4


def test_batch_with_a_loop_and_a_memory_bomb(
    env: tuple[LoadedCourse, Context], prepared: dict[str, Reference], tmp_path: Path
) -> None:
    loaded, ctx = env
    prep = prepare_assignment(loaded, "ps3", ctx)
    plan = _batch_plan(prepared)
    paths = []
    for student, code in plan:
        path = tmp_path / f"{student}.yml"
        path.write_text(
            yaml.safe_dump(
                {
                    "student": student,
                    "assignment": "ps3",
                    "code": {k: v[2] for k, v in code.items()},
                }
            )
        )
        paths.append(path)
    results = grade_answer_files(prep, paths, workers=2)
    assert [r.student for r in results] == [s for s, _ in plan]
    for (student, code), result in zip(plan, results, strict=True):
        statuses = _statuses_by_exercise(result.questions)
        for exercise_id, (status, points, _source) in code.items():
            assert statuses[exercise_id] == status, (student, exercise_id)
            assert (
                sum(q.points for q in result.questions if q.id.startswith(f"{exercise_id}/"))
                == points
            ), (student, exercise_id)


Planned = dict[str, tuple[set[str], float, str]]  # exercise -> (statuses, points, source)


def _batch_plan(prepared: dict[str, Reference]) -> list[tuple[str, Planned]]:
    """20 students: correct and partly wrong answers, one endless loop, one unbounded allocation."""
    full = {"detach-forward": 4.0, "freeze-module": 6.0, "straight-through": 3.0}
    solution = {ex: ({"correct"}, points, prepared[ex].solution) for ex, points in full.items()}
    round_only = (
        {"correct", "wrong"},
        1.0,
        (CORPUS / "straight-through__partial__round_only.py").read_text(),
    )
    plan: list[tuple[str, Planned]] = []
    for i in range(20):
        code = dict(solution)
        if i % 3 == 1:
            code["straight-through"] = round_only
        plan.append((f"student-{i:02d}", code))
    plan[5][1]["freeze-module"] = (
        {"timeout"},
        0.0,
        (CORPUS / "any__timeout__infinite_loop.py").read_text(),
    )
    plan[11][1]["detach-forward"] = (
        {"error"},
        0.0,
        (CORPUS / "any__error__memory_bomb.py").read_text(),
    )
    return plan


def _statuses_by_exercise(questions: Any) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for q in questions:
        found.setdefault(q.id.split("/")[0], set()).add(q.status.value)
    return found


LEVELS = ("bubblewrap", "unshare", "plain")
# The trust boundary's cases: every forge and tampering attempt (those that end as an
# ``error`` or ``invalid`` because what they reach for is not available, too), and the
# legitimate programs an earlier guard misjudged. Each must get its status at every
# isolation level.
REFUSED_ATTACKS = {
    "any__invalid__forged_result_through_fd",
    "any__error__os_exit",
    "any__error__reads_solutions",
    "any__error__thread_left_running",
    "detach-forward__error__frame_walk",
    "freeze-module__error__os_exit_in_entry",
    "freeze-module__error__patch_function_code",
    "independent-copy__error__forge_closure_cell",
    "independent-copy__error__forge_dispatcher_kernel",
    "independent-copy__error__forge_encoder_instance",
    "independent-copy__error__forge_logging_frame",
    "independent-copy__error__forge_other_file_name",
    "independent-copy__error__forge_torch_ops",
    "independent-copy__error__format_reads_private_fields",
    "independent-copy__error__stack_summary_captures_locals",
    "independent-copy__invalid__match_keyword_reads_globals",
    "independent-copy__error__annotations_set_at_run_time",
    "independent-copy__error__annotation_name_bound_to_built_string",
    "independent-copy__error__argument_validation_evaluates_built_alias",
    "independent-copy__invalid__nested_match_binds_a_name_read_through_frames",
}
MISJUDGED_BEFORE = {
    "independent-copy__pass__traceback_print_exc",
    "independent-copy__pass__logging_exception",
    "independent-copy__pass__tempfile_roundtrip",
    "independent-copy__pass__torch_compile_eager",
    "independent-copy__pass__default_dtype_at_top_level",
    "independent-copy__pass__nested_tempdirs",
    "independent-copy__pass__bytesio_round_trip",
    "independent-copy__pass__frozen_dataclass_and_match",
    "independent-copy__pass__joined_thread_pool",
    "independent-copy__pass__wraps_its_own_helper",
    "independent-copy__partial__thread_started_and_joined",
    "freeze-module__pass__batchnorm_isinstance",
    "safe-sgd-step__pass__foreach_like_torch_optim",
    "independent-copy__pass__default_device_cpu_at_top_level",
}
TRUST_CASES = sorted(
    p
    for p in CORPUS.glob("*.py")
    if p.stem.split("__")[1] == "integrity" or p.stem in REFUSED_ATTACKS | MISJUDGED_BEFORE
)


def test_every_named_trust_case_is_in_the_corpus() -> None:
    assert REFUSED_ATTACKS | MISJUDGED_BEFORE <= {p.stem for p in CORPUS.glob("*.py")}


@pytest.fixture(scope="module", params=LEVELS)
def level_env(
    request: pytest.FixtureRequest, env: tuple[LoadedCourse, Context]
) -> Iterator[tuple[LoadedCourse, Context]]:
    loaded, ctx = env
    try:
        runner = open_runner(
            request.param,
            workers=1,
            hide=(str(loaded.root.resolve()),),
            modules=modules_of(loaded),
            preload=task_modules(),
        )
    except SandboxError as exc:
        pytest.skip(f"{request.param} is not available here: {exc}")
    try:
        yield loaded, Context(ctx.course, loaded.root, runner, ctx.cache_dir)
    finally:
        runner.close()


@pytest.mark.parametrize("path", TRUST_CASES, ids=lambda p: p.stem)
def test_trust_cases_at_every_isolation_level_and_the_next_learner_gets_full_marks(
    level_env: tuple[LoadedCourse, Context], prepared: dict[str, Reference], path: Path
) -> None:
    loaded, _ = level_env
    checks = loaded.exercises[target(path)].exercise.checks
    # The corpus's outcomes are those with the modules each file imports allowed.
    results = grade_code(level_env, prepared, target(path), path.read_text(), outside_imports(path))

    assert {r.id.split("/", 1)[1]: r.status.value for r in results} == expected_statuses(
        path, [c.id for c in checks]
    )
    assert all(expected_message(path) in str(r.feedback) for r in results)
    victim = grade_code(
        level_env, prepared, "independent-copy", prepared["independent-copy"].solution
    )
    assert all(r.status.value == "correct" for r in victim), [str(r.feedback) for r in victim]


class CountingRunner:
    """The real runner, counting how many times it is asked to run jobs, and how many."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner
        self.calls: list[int] = []

    @property
    def isolation(self) -> str:
        return str(self.runner.isolation)

    def run(self, job: Any) -> Any:
        return self.run_all([job])[0]

    def run_all(self, jobs: Any) -> Any:
        self.calls.append(len(jobs))
        return self.runner.run_all(jobs)

    def close(self) -> None:
        pass


def one_learner(
    env: tuple[LoadedCourse, Context], prepared: dict[str, Reference], sources: dict[str, str]
) -> tuple[dict[str, list[str]], list[int]]:
    """Grade one learner's code exercises as the pipeline does: statuses, and runner calls."""
    loaded, ctx = env
    counting = CountingRunner(ctx.runner)
    exercises = tuple(
        PreparedExercise(loaded.exercises[ex], prepared[ex], 1.0) for ex in CODE_EXERCISES
    )
    prep = PreparedAssignment(
        loaded.course.assignments[0], exercises, replace(ctx, runner=counting)
    )
    result = grade_submission(prep, Submission("ada", "ps-code", sources))
    statuses: dict[str, list[str]] = {}
    for q in result.questions:
        statuses.setdefault(q.exercise, []).append(q.status.value)
    return statuses, counting.calls


def test_a_learners_code_exercises_run_as_one_job(
    env: tuple[LoadedCourse, Context], prepared: dict[str, Reference]
) -> None:
    solutions = {ex: prepared[ex].solution for ex in CODE_EXERCISES}
    statuses, calls = one_learner(env, prepared, solutions)
    assert calls == [len(CODE_EXERCISES)]
    assert statuses == {ex: ["correct"] * len(statuses[ex]) for ex in CODE_EXERCISES}


def test_a_child_killed_in_one_exercise_costs_that_exercise_only(
    env: tuple[LoadedCourse, Context], prepared: dict[str, Reference]
) -> None:
    # The learner's second exercise never returns: its child is killed at its budget, and
    # the exercises after it run in a fresh child.
    victim = CODE_EXERCISES[1]
    entry = env[0].exercises[victim].exercise.entry  # type: ignore[attr-defined]
    sources = {ex: prepared[ex].solution for ex in CODE_EXERCISES}
    sources[victim] = f"def {entry}(*args):\n    while True:\n        pass\n"
    statuses, calls = one_learner(env, prepared, sources)
    assert calls == [len(CODE_EXERCISES)]
    assert set(statuses.pop(victim)) == {"timeout"}
    assert statuses == {ex: ["correct"] * len(statuses[ex]) for ex in statuses}
