"""``kind: code`` without a sandbox: validation with locations, outcome mapping, forged results.

Everything here runs parent-side code only. Where a runner is needed, a fake one hands back
a prepared ``Outcome``, as a child (or a forger) would: no learner code runs in this file.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from graders.checker import Malformed, tensor_verdict
from graders.course.load import load_course
from graders.errors import SpecError
from graders.grading.truth_cache import TruthCache
from graders.kinds.base import Context, ExerciseAnswers
from graders.kinds.code.checker_file import load_checker
from graders.kinds.code.outcome import judge_outcome
from graders.kinds.code.reference import Reference
from graders.kinds.code.returned import vet_returned
from graders.results import Status
from graders.sandbox import Outcome

COURSE = """\
id: tiny
title: Tiny course
assignments:
  - id: ps1
    title: First
    due: "2026-10-05T23:59:00+02:00"
    exercises: [copy]
"""
EXERCISE = """\
id: copy
title: A copy
section: "§3"
kind: code
prompt: Copy t.
entry: independent_copy
signature: "independent_copy(t) -> Tensor"
template: |
  def independent_copy(t):
      ...
solution: copy.py
checker: checkers/copy.py
checks:
  - id: values
    explain: Same values.
  - id: own-memory
    points: 2
    explain: New memory.
"""
SOLUTION = "def independent_copy(t):\n    return t.clone().detach()\n"
CHECKER = (
    Path(__file__).resolve().parent.parent.parent / "checkers" / "independent-copy.py"
).read_text()


def make_course(
    root: Path, exercise: str = EXERCISE, solution: str | None = SOLUTION, checker: str = CHECKER
) -> Path:
    for folder in ("exercises", "solutions", "checkers"):
        (root / folder).mkdir()
    (root / "course.yml").write_text(COURSE)
    (root / "exercises" / "copy.yml").write_text(exercise)
    (root / "checkers" / "copy.py").write_text(checker)
    if solution is not None:
        (root / "solutions" / "copy.py").write_text(solution)
    return root / "course.yml"


def problems_of(root: Path, **kwargs: Any) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_course(make_course(root, **kwargs))
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            ("  - id: own-memory", "  - id: own-memroy"),
            r"exercises/copy\.yml:16:5: checks\[1\]\.id: checkers/copy\.py has no check 'own-memroy'; it has: values, own-memory, detached, independent-writes",
        ),
        (
            ("checker: checkers/copy.py", "checker: checkers/cpy.py"),
            r"exercises/copy\.yml:12:1: checker: no file checkers/cpy\.py",
        ),
        (
            ("checker: checkers/copy.py", "checker: ../copy.py"),
            r"exercises/copy\.yml:12:1: checker: must be a path inside the course folder",
        ),
        (
            ("checks:", "samples:\n  - {file: checkers/copy.py, expect: {valeus: fail}}\nchecks:"),
            r"exercises/copy\.yml:14:\d+: samples\[0\]\.expect: no check 'valeus' in this exercise",
        ),
        (
            ("checks:", "samples:\n  - {file: checkers/copy.py, expect: {values: wrong}}\nchecks:"),
            r"exercises/copy\.yml:14:\d+: samples\[0\]\.expect\.values: Input should be 'pass', 'fail'",
        ),
        (
            ("  def independent_copy(t):\n      ...", "  def copy(t):\n      ..."),
            r"exercises/copy\.yml:8:1: template: template does not define a function 'independent_copy'",
        ),
        (
            ("  def independent_copy(t):\n      ...", "  def independent_copy(t)\n      ..."),
            r"exercises/copy\.yml:8:1: template: template is not valid Python: expected ':' \(line 1\)",
        ),
        (
            ('signature: "independent_copy(t) -> Tensor"', 'signature: "copy(t)"'),
            r"exercises/copy\.yml:7:1: signature: must start with 'independent_copy\('",
        ),
        (
            ("entry: independent_copy", "entry: independent-copy"),
            r"exercises/copy\.yml:6:1: entry: String should match pattern",
        ),
        (
            ("  - id: values\n", "  - id: own-memory\n"),
            r"exercises/copy\.yml:16:5: checks\[1\]\.id: duplicate check id 'own-memory'",
        ),
        (
            ("solution: copy.py", "solution: ../copy.py"),
            r"exercises/copy\.yml:11:1: solution: String should match pattern",
        ),
    ],
    ids=[
        "unknown-check",
        "no-checker-file",
        "checker-path",
        "sample-unknown-check",
        "sample-unknown-status",
        "template-without-entry",
        "template-syntax",
        "signature",
        "entry-name",
        "duplicate-check",
        "solution-path",
    ],
)
def test_validation_names_the_place(tmp_path: Path, change: tuple[str, str], expected: str) -> None:
    problems = problems_of(tmp_path, exercise=EXERCISE.replace(*change))
    assert any(re.search(expected, p) for p in problems), problems


def test_missing_solution_file(tmp_path: Path) -> None:
    assert problems_of(tmp_path, solution=None) == [
        "exercises/copy.yml:11:1: solution: no file solutions/copy.py"
    ]


def test_solution_must_define_the_entry(tmp_path: Path) -> None:
    assert problems_of(tmp_path, solution="def copy(t):\n    return t\n") == [
        "exercises/copy.yml:11:1: solution: solutions/copy.py does not define a function 'independent_copy'"
    ]


def test_items_and_key(tmp_path: Path) -> None:
    loaded = load_course(make_course(tmp_path))
    ex = loaded.exercises["copy"]
    assert [(i.id, i.points) for i in ex.kind.items(ex.exercise)] == [
        ("copy/values", 1.0),
        ("copy/own-memory", 2.0),
    ]
    assert ex.kind.key(ex.exercise, Reference(SOLUTION)) == {"copy": SOLUTION}


@pytest.mark.parametrize(
    ("checker", "expected"),
    [
        (
            "CHECKS = ('values',)\ndef observe(fn, seed):\n    return {}\n",
            r"checker: copy\.py does not define judge",
        ),
        (
            "CHECKS = ['values']\nobserve = judge = None\n",
            r"checker: copy\.py: CHECKS must be a tuple of check ids",
        ),
        (
            "CHECKS = ('values',)\ndef observe(fn, seed)\n",
            r"checkers/copy\.py:2:1: copy\.py is not valid Python: expected ':'",
        ),
        (
            "import no_such_module\n",
            r"checkers/copy\.py:1:1: importing copy\.py failed: ModuleNotFoundError",
        ),
    ],
    ids=["no-judge", "checks-not-tuple", "syntax", "import"],
)
def test_a_broken_checker_is_reported_where_it_is(
    tmp_path: Path, checker: str, expected: str
) -> None:
    problems = problems_of(tmp_path, checker=checker)
    assert any(re.search(expected, p) for p in problems), problems


def test_a_checker_is_loaded_once_per_content(tmp_path: Path) -> None:
    make_course(tmp_path)
    first, again = (
        load_checker(tmp_path / "checkers" / "copy.py"),
        load_checker(tmp_path / "checkers" / "copy.py"),
    )
    assert first.module is again.module and first.checks == (
        "values",
        "own-memory",
        "detached",
        "independent-writes",
    )
    (tmp_path / "checkers" / "copy.py").write_text(CHECKER + "\n# edited\n")
    assert load_checker(tmp_path / "checkers" / "copy.py").name != first.name


def outcome(status: str = "ok", result: Any = None, message: str = "") -> Outcome:
    return Outcome(status, result, "", "", message, "fake", 0.0)


@pytest.mark.parametrize(
    ("given", "status", "message"),
    [
        (
            outcome("timeout", message="the code did not finish within the time limit of 10 s"),
            Status.TIMEOUT,
            "The code did not finish within the time limit of 10 s",
        ),
        (
            outcome("error", message="the code ended the process"),
            Status.ERROR,
            "The code ended the process",
        ),
        (
            outcome("integrity", message="the result is nested too deeply"),
            Status.INTEGRITY,
            "Your code interfered with grading: the result is nested too deeply. This exercise scores zero.",
        ),
        (
            outcome(
                result={"status": "invalid", "syntax": {"message": "invalid syntax", "line": 3}}
            ),
            Status.INVALID,
            "Your code is not valid Python: invalid syntax (line 3).",
        ),
        (
            outcome(result={"status": "invalid", "missing": "freeze"}),
            Status.INVALID,
            "Define a function `freeze(module) -> None`: your code does not define `freeze`.",
        ),
        (
            outcome(result={"status": "invalid", "not_callable": "int"}),
            Status.INVALID,
            "`freeze` must be a function `freeze(module) -> None`, not a int.",
        ),
        (
            outcome(
                result={
                    "status": "error",
                    "raised": {
                        "cls": "ZeroDivisionError",
                        "message": "division by zero",
                        "line": 2,
                    },
                }
            ),
            Status.ERROR,
            "Running your code raised ZeroDivisionError at line 2 of your code: division by zero.",
        ),
        (
            outcome(
                result={
                    "status": "error",
                    "raised": {"cls": "SystemExit", "message": "", "line": 1},
                }
            ),
            Status.ERROR,
            "Running your code raised SystemExit at line 1 of your code.",
        ),
        (
            outcome(result={"status": "integrity", "reasons": ["replaced torch.equal"]}),
            Status.INTEGRITY,
            "Your code interfered with grading (replaced torch.equal). This exercise scores zero.",
        ),
        (
            outcome(result={"status": "error", "raised": {"cls": 3}}),
            Status.INTEGRITY,
            "was not written by the grader",
        ),
        (outcome(result={"status": "passed"}), Status.INTEGRITY, "was not written by the grader"),
    ],
    ids=[
        "timeout",
        "crash",
        "sandbox-integrity",
        "syntax",
        "missing-entry",
        "not-callable",
        "raised",
        "sys-exit",
        "tampered",
        "malformed-raised",
        "unknown-status",
    ],
)
def test_outcome_becomes_one_status_and_message(
    given: Outcome, status: Status, message: str
) -> None:
    judged = judge_outcome(given, "freeze", "freeze(module) -> None")
    assert judged.status is status
    assert message in str(judged.message)
    assert judged.observations is None


@pytest.mark.parametrize(
    "result",
    [
        {"status": "passed"},
        {"status": "ok"},
        {"status": "ok", "observations": []},
        {"status": "integrity", "reasons": "tampered"},
        {"status": "integrity", "reasons": [1]},
        {},
    ],
    ids=str,
)
def test_the_keeper_refuses_results_the_harness_does_not_write(result: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        vet_returned({}, result)


class FakeRunner:
    """Hands back one prepared result, passed through the job's keeper-side check as the sandbox does."""

    isolation = "fake"

    def __init__(self, result: dict[str, Any]) -> None:
        self.result = result

    def run(self, job: Any) -> Outcome:
        try:
            return outcome(result=vet_returned(job.payload, dict(self.result)))
        except ValueError as exc:
            return outcome("integrity", message=str(exc))

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    "observations",
    [
        {"cases": []},
        {"cases": [{"out": {"type": "tensor"}}] * 5},
        {"cases": [{"raised": {"cls": "X", "message": 1}}] * 5},
        "not a dict",
    ],
    ids=["too-few-cases", "broken-tensor", "broken-raised", "not-a-dict"],
)
def test_observations_not_written_by_the_harness_are_integrity(
    tmp_path: Path, observations: Any
) -> None:
    loaded = load_course(make_course(tmp_path))
    ex = loaded.exercises["copy"]
    reference = {
        "cases": [
            {
                "out": _tensor([1.0]),
                "input_changed": False,
                "shares_storage": False,
                "writes_leak": False,
            }
        ]
        * 5
    }
    ctx = Context(
        loaded.course, tmp_path, FakeRunner({"status": "ok", "observations": observations}), None
    )
    results = ex.kind.grade(
        ex.exercise,
        Reference(SOLUTION, reference),
        ExerciseAnswers({}, code="x = 1"),
        ctx,
    )
    assert [r.status for r in results] == [Status.INTEGRITY, Status.INTEGRITY]
    assert sum(r.points for r in results) == 0


def test_unanswered_and_template_are_not_run(tmp_path: Path) -> None:
    loaded = load_course(make_course(tmp_path))
    ex = loaded.exercises["copy"]
    ctx = Context(loaded.course, tmp_path, None, None)  # type: ignore[arg-type]  # never used
    for code in (None, "  ", ex.exercise.template):
        results = ex.kind.grade(
            ex.exercise,
            Reference(SOLUTION, {}),
            ExerciseAnswers({}, code=code),
            ctx,
        )
        assert {r.status for r in results} == {Status.UNANSWERED}


def _tensor(values: list[float], requires_grad: bool = False) -> dict[str, Any]:
    return {
        "type": "tensor",
        "values": values,
        "shape": [len(values)],
        "dtype": "float32",
        "requires_grad": requires_grad,
        "is_leaf": True,
        "grad_fn": None,
    }


@pytest.mark.parametrize(
    ("got", "rungs", "feedback"),
    [
        (
            {"type": "scalar", "value": None},
            ("values",),
            "Got None, expected tensor([1., 2.]). Did you forget `return`?",
        ),
        (
            {"type": "opaque", "type_name": "list", "text": "a list"},
            ("values",),
            "Got a list, expected tensor([1., 2.]).",
        ),
        (
            {**_tensor([1.0]), "shape": [1]},
            ("shape", "values"),
            "Got a tensor of shape torch.Size([1]), expected shape torch.Size([2]).",
        ),
        (
            {**_tensor([1.0, 2.0]), "dtype": "float64"},
            ("dtype",),
            "Got dtype torch.float64, expected torch.float32.",
        ),
        (
            _tensor([1.0, 2.0], requires_grad=True),
            ("requires_grad",),
            "Got requires_grad=True, expected requires_grad=False.",
        ),
        (_tensor([1.0, 5.0]), ("values",), "Got tensor([1., 5.]), expected tensor([1., 2.])."),
    ],
    ids=["defined", "is-a-tensor", "shape", "dtype", "requires-grad", "values"],
)
def test_tensor_ladder(got: dict[str, Any], rungs: tuple[str, ...], feedback: str) -> None:
    verdict = tensor_verdict(got, _tensor([1.0, 2.0]), rungs)
    assert not verdict.passed and str(verdict.feedback) == feedback


def test_ladder_ignores_rungs_a_check_does_not_ask_for() -> None:
    assert tensor_verdict(
        {**_tensor([7.0, 7.0]), "dtype": "float64"}, _tensor([1.0, 2.0]), ("shape",)
    ).passed


def test_ladder_refuses_what_is_not_a_value() -> None:
    with pytest.raises(Malformed):
        tensor_verdict({"type": "tensor", "values": [1.0], "shape": [3]}, _tensor([1.0]))


def test_feedback_examples_read_as_sentences() -> None:
    text = textwrap.dedent(
        judge_outcome(outcome("timeout", message="time is up"), "f", "f()").message
    )
    assert text == "Time is up"


def test_a_missing_sample_is_a_problem_for_validate_not_for_loading(tmp_path: Path) -> None:
    sample = "samples:\n  - {file: samples/none.py, expect: {values: fail}}\nchecks:"
    loaded = load_course(make_course(tmp_path, exercise=EXERCISE.replace("checks:", sample)))
    ex = loaded.exercises["copy"]
    ctx = Context(loaded.course, tmp_path, None, None)  # type: ignore[arg-type]  # never used
    store = TruthCache(None, loaded.course.seed)  # nothing kept: nothing is run
    problems = ex.kind.self_test(ex.exercise, Reference(SOLUTION), ctx, ex.marks, store)
    assert [str(p) for p in problems] == [
        "exercises/copy.yml:14:6: samples[0].file: no file samples/none.py"
    ]
