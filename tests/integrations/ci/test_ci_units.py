"""CI building blocks without torch: thresholds, outcomes, job summaries, finding the
notebook, choosing the assignment, and the course copy one assignment needs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from ci_support import write_course, write_notebook

from graders.errors import SubmissionError, UsageError
from graders.grading.pipeline import planned_items
from graders.integrations.ci.bundle import solution_files, write_course_bundle
from graders.integrations.ci.notebook import find_notebook, resolve_assignment
from graders.integrations.ci.report import CiExit, Threshold, log_lines, outcome, step_summary
from graders.results import QuestionResult, ResultsDocument, Status, StudentResult, SubmissionStatus
from graders.workspace import load


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_course(tmp_path_factory.mktemp("course"))


@pytest.mark.parametrize(
    "text, max_score, points",
    [
        ("6", 10, 6.0),
        ("2.5", 10, 2.5),
        ("60%", 10, 6.0),
        ("100%", 6, 6.0),
        (" 0 ", 10, 0.0),
    ],
)
def test_threshold_in_points(text: str, max_score: float, points: float) -> None:
    assert Threshold.parse(text).points(max_score) == pytest.approx(points)


@pytest.mark.parametrize("text", ["", "six", "-1", "nan", "inf", "5%%"])
def test_threshold_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        Threshold.parse(text)


def doc_with(
    score: float,
    max_score: float = 6,
    status: str = "graded",
    questions: tuple[QuestionResult, ...] | None = None,
) -> ResultsDocument:
    """A one-student CI document scoring ``score`` of ``max_score`` (one question, unless given)."""
    if questions is None:
        questions = (
            QuestionResult(
                "ex/q", Status.CORRECT if score == max_score else Status.WRONG, score, max_score
            ),
        )
    error = "no notebook" if status == "ungradable" else None
    student = StudentResult(
        "s", questions if status != "ungradable" else (), SubmissionStatus(status), error
    )
    return ResultsDocument("c", "ci1", "2.13.0", "now", "plain", (student,))


@pytest.mark.parametrize(
    "score, minimum, expected",
    [
        (6, None, CiExit.PASSED),
        (0, None, CiExit.PASSED),
        (5, "5", CiExit.PASSED),
        (4.5, "5", CiExit.BELOW),
        (3, "50%", CiExit.PASSED),
        (2.9, "50%", CiExit.BELOW),
    ],
)
def test_outcome(score: float, minimum: str | None, expected: CiExit) -> None:
    assert outcome(doc_with(score), Threshold.parse(minimum) if minimum else None) is expected


def test_an_ungradable_notebook_is_its_own_outcome_whatever_the_minimum() -> None:
    assert outcome(doc_with(0, 0, "ungradable"), None) is CiExit.UNGRADABLE


def test_the_log_ends_with_the_score_line() -> None:
    assert (
        log_lines(doc_with(4.5), Threshold.parse("5"))[-1]
        == "graders: 4.5/6 points (minimum 5: not reached)"
    )
    assert log_lines(doc_with(6), None)[-1] == "graders: 6/6 points"


def test_a_hostile_answer_cannot_break_out_of_the_job_summary() -> None:
    q = QuestionResult(
        "ex/q",
        Status.WRONG,
        0,
        1,
        "<img src=x onerror=alert(1)>|[a](http://x)",
        "1",
        "no",
        section="§1a",
    )
    text = step_summary(doc_with(0, 1, questions=(q,)), None)
    assert "<img" not in text and "&lt;img" in text
    assert "](" not in text.replace("\\](", "")
    assert "| ✗ | ex/q | 0/1 |" in text


def test_find_notebook(tmp_path: Path) -> None:
    write_notebook(tmp_path / "sub" / "ci1.ipynb", {})
    write_notebook(tmp_path / ".ipynb_checkpoints" / "ci1-checkpoint.ipynb", {})
    assert find_notebook(tmp_path, "ci1") == tmp_path / "sub" / "ci1.ipynb"
    write_notebook(tmp_path / "other.ipynb", {})
    assert find_notebook(tmp_path, "ci1").name == "ci1.ipynb"  # the assignment's name wins
    with pytest.raises(SubmissionError, match="2 notebooks"):
        find_notebook(tmp_path, "ci2")


@pytest.mark.parametrize(
    "make, message",
    [
        pytest.param(lambda p: p.mkdir(), "no notebook", id="empty-folder"),
        pytest.param(lambda p: None, "cannot read", id="missing"),
        pytest.param(lambda p: p.symlink_to("/etc/passwd"), "not a regular file", id="symlink"),
    ],
)
def test_no_notebook_to_grade(tmp_path: Path, make, message: str) -> None:
    path = tmp_path / "handed-in"
    make(path)
    with pytest.raises(SubmissionError, match=message):
        find_notebook(path, "ci1")


def test_the_assignment_comes_from_the_option_then_the_notebook(
    course: Path, tmp_path: Path
) -> None:
    loaded = load(course)
    nb = write_notebook(tmp_path / "x.ipynb", {}, assignment="ci2")
    assert resolve_assignment(loaded, nb, None) == "ci2"
    assert resolve_assignment(loaded, nb, "ci1") == "ci1"
    with pytest.raises(UsageError, match="no assignment 'ci'"):
        resolve_assignment(loaded, nb, "ci")
    with pytest.raises(UsageError, match="name one of ci1, ci2"):
        resolve_assignment(loaded, tmp_path / "missing.ipynb", None)


def test_planned_points_follow_the_assignment_override(course: Path) -> None:
    planned = dict(planned_items(load(course), "ci1"))
    assert planned == {
        "clone-basics/shares-memory": 1,
        "clone-basics/grad-fn": 1,
        "clone-basics/backward": 1,
        "clone-basics/grad": 2,
        "detach-basics/flags": 1,
        "detach-basics/write-through": 1,
        "detach-basics/resize-leaf": 1,
    }


def test_a_bundle_holds_one_assignment_and_only_its_solutions(course: Path, tmp_path: Path) -> None:
    loaded = load(course)
    assert [p.relative_to(loaded.root).as_posix() for p in solution_files(loaded, "ci2")] == [
        "solutions/independent-copy.py",
        "checkers/independent-copy.py",
    ]
    assert solution_files(loaded, "ci1") == []
    bundle = write_course_bundle(loaded, "ci2", tmp_path / "b")
    assert bundle.exercises == ("exercises/detach-basics.yml", "exercises/independent-copy.yml")
    assert bundle.solutions == ("solutions/independent-copy.py", "checkers/independent-copy.py")
    data = yaml.safe_load((tmp_path / "b" / "course.yml").read_text())
    assert [a["id"] for a in data["assignments"]] == ["ci2"] and data["limits"]["timeout_s"] == 20
    assert load(tmp_path / "b").course.assignments[0].id == "ci2"


def test_a_bundle_without_a_needed_solution_fails_when_built(course: Path, tmp_path: Path) -> None:
    with pytest.raises(
        UsageError, match="(?s)does not load.*no file solutions/independent-copy.py"
    ):
        write_course_bundle(load(course), "ci2", tmp_path / "b", solutions=False)


@pytest.fixture
def sandbox_events(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """What happens, in order: "start" (a sandbox asked to start), "read" (the course read),
    ("modules", names) (the course's modules handed to the warming servers). The servers
    are a fake that runs nothing at all: each job is refused (``SandboxError``)."""
    import graders.sandbox.runner as runner_module
    import graders.workspace as session_module
    from graders.sandbox import SandboxError

    happened: list[object] = []

    class Refusing:  # the warm runner: no job runs in this test
        isolation = "fake"

        def run(self, job: object) -> object:
            raise SandboxError("the test's fake sandbox runs nothing")

        def run_all(self, jobs: list[object]) -> list[object]:
            raise SandboxError("the test's fake sandbox runs nothing")

        def close(self) -> None:
            pass

    class Warming:  # servers started, the course's modules not yet given
        def finish_start(self, modules: dict[str, tuple[str, str]]) -> Refusing:
            happened.append(("modules", sorted(modules)))
            return Refusing()

        def abort_start(self) -> None:
            pass

        def close(self) -> None:
            pass

    def begin_runner(*args: object, **kwargs: object) -> Warming:
        return Warming()

    real_start, real_load = runner_module.LazyRunner.start_soon, session_module.load
    monkeypatch.setattr(runner_module, "begin_runner", begin_runner)
    monkeypatch.setattr(
        runner_module.LazyRunner, "start_soon", lambda s: (happened.append("start"), real_start(s))
    )
    monkeypatch.setattr(
        session_module, "load", lambda c: (happened.append("read"), real_load(c))[1]
    )
    return happened


def started_before_reading(happened: list[object]) -> None:
    assert happened[:2] == ["start", "read"], happened


def ci2_with_code(tmp_path: Path) -> Path:
    from ci_support import KEY, solution_source

    answers = {k: v for k, v in KEY.items() if k.startswith("detach-basics/")}
    code = {"independent-copy": solution_source()}
    return write_notebook(tmp_path / "ci2.ipynb", answers, "ci2", code)


def test_graders_ci_starts_the_sandbox_before_it_reads_the_course_when_the_notebook_runs_code(
    course: Path, tmp_path: Path, sandbox_events: list[object]
) -> None:
    """The seconds of torch's warm-up pass while the course is read, and the course's
    checkers reach the servers once it is; a notebook of predictions starts nothing before
    the course is read."""
    from ci_support import KEY
    from click.testing import CliRunner

    from graders.cli import main

    def ci(nb: Path) -> None:  # the fake grades nothing: this test is about the order
        CliRunner().invoke(main, ["ci", str(nb), "--course", str(course)])

    ci(ci2_with_code(tmp_path))
    started_before_reading(sandbox_events)
    given = [names for event in sandbox_events if isinstance(event, tuple) for names in event[1:]]
    assert len(given) == 1 and given[0][0].startswith("graders_course_checkers."), sandbox_events
    sandbox_events.clear()
    ci(write_notebook(tmp_path / "ci1.ipynb", KEY, "ci1"))
    assert sandbox_events[:1] == ["read"], sandbox_events  # the truths may start it, once read


# Run in a fresh interpreter, where nothing is imported yet: what `graders ci` has imported
# when it asks for the sandbox (the servers' begin, faked: it refuses, and ci says so).
_IMPORTED_AT_START = """
import json, sys
import graders.sandbox.runner as runner_module
from graders.sandbox import SandboxError

def begin_runner(*args, **kwargs):
    print(json.dumps(sorted(m for m in sys.modules if m.startswith(("graders", "pydantic")))))
    raise SandboxError("the test's fake sandbox starts nothing")

runner_module.begin_runner = begin_runner
from graders.cli import main
sys.argv = ["graders", "ci", sys.argv[1], "--course", sys.argv[2]]
main()
"""


def test_graders_ci_starts_the_sandbox_before_it_imports_what_grading_needs(
    course: Path, tmp_path: Path
) -> None:
    """Half a second of imports (the course's models, the grading pipeline, the kinds, the
    reports) pass while torch warms: when the servers are asked to start, none of it is
    imported."""
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _IMPORTED_AT_START, str(ci2_with_code(tmp_path)), str(course)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    imported = set(json.loads(done.stdout.splitlines()[0]))
    assert "graders.sandbox.runner" in imported  # the start was asked for
    later = {
        "pydantic",  # the course's models
        "graders.course.loaded",
        "graders.grading.pipeline",
        "graders.kinds.code.kind",
        "graders.integrations.ci.notebook",
        "graders.integrations.ci.report",
    }
    assert not later & imported, later & imported
