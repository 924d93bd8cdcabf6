"""The kind contract: four parts split by who asks, optional capabilities declared, and a
class refused at registration when it does not fulfil them."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from graders.course import kinds as course_kinds
from graders.course.kinds import CourseSide
from graders.kinds import registry
from graders.kinds.code.kind import CodeKind
from graders.kinds.contract import (
    PARTS,
    Capabilities,
    GradingSide,
    NotebookSide,
    ReportSide,
    members,
    unfulfilled,
)
from graders.kinds.predict.kind import PredictKind
from graders.kinds.registry import KindContractError, capabilities, get_kind, register

PACKAGE = Path(__file__).resolve().parent.parent.parent / "graders"


class Complete:
    """A kind with every member of every part, and no capability."""

    name = "complete"
    model = dict
    answers_section = "complete"
    runs_jobs = False
    cell_tag = "complete"
    literal_answers = False

    def file_problems(self, exercise: Any, marks: Any, root: Path) -> list[Any]:
        return []

    def items(self, exercise: Any) -> list[Any]:
        return []

    def answer_keys(self, exercise: Any) -> list[str]:
        return []

    def files(self, exercise: Any) -> list[str]:
        return []

    def prepare(self, exercise: Any, ctx: Any, store: Any) -> None:
        return None

    def prepare_many(self, exercises: Sequence[Any], ctx: Any, store: Any) -> list[None]:
        return [None for _ in exercises]

    def fingerprint(self, prepared: Any) -> Any:
        return None

    def problems(self, exercise: Any, prepared: Any, marks: Any) -> list[Any]:
        return []

    def given(self, exercise: Any, submission: Any) -> Any:
        return None

    def jobs(self, exercise: Any, prepared: Any, given: Any, ctx: Any) -> list[Any]:
        return []

    def grade(self, exercise: Any, prepared: Any, given: Any, ctx: Any) -> list[Any]:
        return []

    def key(self, exercise: Any, prepared: Any) -> dict[str, str]:
        return {}

    def layout(self, placed: Any, key: Mapping[str, str]) -> list[Any]:
        return []

    def labels(self, placed: Any) -> dict[str, str]:
        return {}

    def hint(self) -> str:
        return ""

    def read_cell(self, source: str, meta: Mapping[str, Any]) -> Any:
        return None

    def cell_problem(self, source: str, meta: Mapping[str, Any]) -> Any:
        return None

    def kernel_answer(self, value: Any) -> str | None:
        return None

    def misconceptions(self, exercise: Any) -> dict[str, tuple[Any, ...]]:
        return {}


@pytest.fixture
def empty_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "KINDS", {})
    monkeypatch.setattr(registry, "CAPABLE", {})
    monkeypatch.setattr(course_kinds, "_KINDS", dict(course_kinds._KINDS))


def test_the_built_in_kinds_fulfil_every_part() -> None:
    assert unfulfilled(PredictKind) == []
    assert unfulfilled(CodeKind) == []


def test_each_kinds_optional_capabilities_are_found_when_it_registers() -> None:
    code, predict = get_kind("code"), get_kind("predict")
    assert code is not None and predict is not None
    assert capabilities(code).self_testing is code  # its samples, graded by validate
    assert capabilities(code).preloads_sandbox is code  # its checker, imported before forking
    assert capabilities(predict) == Capabilities()


@pytest.mark.usefixtures("empty_registry")
def test_a_complete_class_registers_with_no_capability() -> None:
    register(Complete)
    kind = registry.KINDS["complete"]
    assert isinstance(kind, Complete)
    assert capabilities(kind) == Capabilities()


@pytest.mark.usefixtures("empty_registry")
def test_a_class_missing_a_member_is_refused_naming_the_part() -> None:
    class NoGrade(Complete):
        grade = None  # type: ignore[assignment]

    class NoLabels:
        name = "no-labels"

    with pytest.raises(KindContractError, match=r"GradingSide\.grade must be a method"):
        register(NoGrade)
    with pytest.raises(KindContractError) as refused:
        register(NoLabels)
    assert "no NotebookSide.labels" in str(refused.value)
    assert "no ReportSide.misconceptions" in str(refused.value)
    assert "no CourseSide.items" in str(refused.value)
    assert registry.KINDS == {}  # nothing half registered


@pytest.mark.usefixtures("empty_registry")
def test_a_method_with_other_parameters_is_refused_naming_both() -> None:
    class OldGrade(Complete):
        def grade(self, exercise: Any, answers: Any) -> list[Any]:  # type: ignore[override]
            return []

    with pytest.raises(KindContractError) as refused:
        register(OldGrade)
    assert "GradingSide.grade takes (exercise, answers), the contract names " in str(refused.value)
    assert "(exercise, prepared, given, ctx)" in str(refused.value)


@pytest.mark.usefixtures("empty_registry")
def test_an_attribute_of_the_wrong_type_is_refused() -> None:
    class Unnamed(Complete):
        name = 3  # type: ignore[assignment]
        literal_answers = "yes"  # type: ignore[assignment]

    with pytest.raises(KindContractError) as refused:
        register(Unnamed)
    assert "CourseSide.name must be a str, not int" in str(refused.value)
    assert "ReportSide.literal_answers must be a bool, not str" in str(refused.value)


@pytest.mark.usefixtures("empty_registry")
def test_an_optional_capability_offered_half_is_refused() -> None:
    class WrongSelfTest(Complete):
        def self_test(self, exercise: Any) -> list[Any]:
            return []

    with pytest.raises(KindContractError, match=r"SelfTesting\.self_test takes \(exercise\)"):
        register(WrongSelfTest)


@pytest.mark.usefixtures("empty_registry")
def test_an_optional_capability_offered_whole_is_found() -> None:
    class Preloading(Complete):
        def sandbox_modules(self, exercise: Any, root: Path) -> dict[str, tuple[str, str]]:
            return {}

    register(Preloading)
    kind = registry.KINDS["complete"]
    assert capabilities(kind).preloads_sandbox is kind
    assert capabilities(kind).self_testing is None


# Who may ask a kind what: each folder of graders, the parts of the contract it calls.
# Every layer may ask what an exercise is (CourseSide); grading is asked for only where
# submissions are graded, and the notebook side only where notebooks are written or read.
CALLERS: dict[str, tuple[type, ...]] = {
    "graders.kinds": PARTS,  # the kinds layer itself: load, prepare, registry
    "graders.grading": (CourseSide, GradingSide),
    "graders.notebook": (CourseSide, NotebookSide),
    "graders.integrations": (CourseSide, NotebookSide),  # nbgrader's test cells' values
    "graders.reports": (CourseSide, NotebookSide, ReportSide),  # a learner's own cells
    "graders.validate": (CourseSide, ReportSide),  # misconceptions checked against truths
}


def part_of(member: str) -> type | None:
    found = [part for part in PARTS if member in members(part)]
    return found[0] if found else None


def kind_calls(path: Path) -> Iterator[tuple[int, str]]:
    """(line, member) of each ``<...>.kind.<member>``, ``kind.<member>`` or
    ``kind_of(...).<member>`` in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Attribute) or part_of(node.attr) is None:
            continue
        owner = node.value
        whole = isinstance(owner, ast.Call) and ast.unparse(owner.func).endswith("kind_of")
        if (
            (isinstance(owner, ast.Name) and owner.id == "kind")
            or whole
            or (isinstance(owner, ast.Attribute) and owner.attr == "kind")
        ):
            yield node.lineno, node.attr


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def allowed_parts(module: str) -> tuple[type, ...]:
    for folder, parts in CALLERS.items():
        if module == folder or module.startswith(f"{folder}."):
            return parts
    return (CourseSide,)


def test_each_folder_asks_a_kind_only_the_parts_it_may() -> None:
    wrong, seen = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_of(path)
        if module.startswith(("graders.kinds.code", "graders.kinds.predict")):
            continue  # a kind calling itself
        for line, member in kind_calls(path):
            part = part_of(member)
            seen.add(part)
            if part not in allowed_parts(module):
                name = part.__name__ if part else "?"
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} {name}.{member}")
    assert wrong == []
    assert seen == set(PARTS)  # the scan finds the calls it is about


def test_the_scan_finds_a_call_from_the_wrong_folder(tmp_path: Path) -> None:
    report = tmp_path / "graders" / "reports" / "bad.py"
    report.parent.mkdir(parents=True)
    report.write_text("def f(ex):\n    return ex.kind.grade(ex.exercise, None, None, None)\n")
    assert list(kind_calls(report)) == [(2, "grade")]
    report.write_text("def f(ex):\n    return kind_of(ex).grade(ex.exercise, None, None, None)\n")
    assert list(kind_calls(report)) == [(2, "grade")]
    assert part_of("grade") is GradingSide
    assert GradingSide not in allowed_parts("graders.reports.bad")


@pytest.mark.usefixtures("empty_registry")
def test_a_new_kind_registered_reads_its_own_exercise_files(tmp_path: Path) -> None:
    # The course reads exercise files through what kinds register (course/kinds.py), never
    # by importing a kind: a kind registered here is read as the built-in ones are.
    from graders.course.load import load_exercise
    from graders.course.model import ExerciseBase

    class PollModel(ExerciseBase):
        options: list[str]

    class Poll(Complete):
        name = "poll"
        model = PollModel  # type: ignore[assignment]

    register(Poll)
    path = tmp_path / "exercises" / "favourite.yml"
    path.parent.mkdir()
    body = "id: favourite\ntitle: Which?\nsection: §1a\nkind: poll\noptions: [a, b]\n"
    path.write_text(body, encoding="utf-8")
    loaded, problems = load_exercise(path, tmp_path)
    assert problems == [] and loaded is not None
    assert loaded.exercise.options == ["a", "b"] and loaded.kind.name == "poll"
    assert registry.kind_of(loaded) is registry.KINDS["poll"]


@pytest.mark.usefixtures("empty_registry")
def test_a_new_kind_prepares_through_the_store_grading_keeps(tmp_path: Path) -> None:
    # Grading owns the truth cache: a kind registered here keeps what it computes by handing
    # it to the store it is given, and a second run computes nothing.
    from types import SimpleNamespace

    from graders.grading.prepare import prepare_exercises
    from graders.kinds.base import Context

    computed: list[str] = []

    class Costly(Complete):
        name = "costly"

        def prepare(self, exercise: Any, ctx: Any, store: Any) -> int:
            def compute() -> dict[str, Any]:
                computed.append(exercise.id)
                return {"answer": 42}

            return int(store.cached(exercise.id, "content", compute)["answer"])

    register(Costly)
    exercise = SimpleNamespace(exercise=SimpleNamespace(id="big"), kind=registry.KINDS["costly"])
    loaded: Any = SimpleNamespace(exercises={"big": exercise})
    course: Any = SimpleNamespace(seed=0)
    ctx = Context(course, tmp_path, None, tmp_path / "cache")  # type: ignore[arg-type]
    assert prepare_exercises(loaded, ["big"], ctx) == {"big": 42}
    assert prepare_exercises(loaded, ["big"], ctx) == {"big": 42}
    assert computed == ["big"]
    assert len(list((tmp_path / "cache" / "truth").glob("big-content-s0-torch*.json"))) == 1
