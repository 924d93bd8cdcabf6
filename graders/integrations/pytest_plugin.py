"""pytest plugin: a notebook graded as a pytest session, one test per question.

    pytest --graders-notebook ps1.ipynb [--graders-assignment ps1] [--graders-course PATH]

Shipped with graders and registered through the ``pytest11`` entry point. Every question
and code check of the assignment becomes a test named ``<exercise-id>/<question-id>``;
a miss fails with the learner's feedback as the whole message (no traceback), and each
test's points and max points are recorded as ``user_properties`` so ``--junitxml``
carries them. The notebook is graded once per session, on the first test that runs,
by the engine ``graders autograde`` uses; the output ends with ``graders: SCORE/MAX points``.

Without test paths on the command line, the session collects the notebook only.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import user_errors

if TYPE_CHECKING:
    from ..results import ResultsDocument

STATE = pytest.StashKey["Grading"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--graders-*`` options."""
    group = parser.getgroup("graders", "grading a notebook with graders")
    group.addoption(
        "--graders-notebook",
        metavar="PATH",
        default=None,
        help="Grade this notebook (or the one notebook in this folder): one test per question.",
    )
    group.addoption(
        "--graders-assignment",
        metavar="ID",
        default=None,
        help="The assignment; default: the one the notebook declares, or the course's only one.",
    )
    group.addoption(
        "--graders-course",
        metavar="PATH",
        default=None,
        help="course.yml or its folder; default: .graders/course/, else the current folder's.",
    )
    group.addoption(
        "--graders-isolation",
        metavar="LEVEL",
        default="auto",
        choices=["auto", "bubblewrap", "unshare", "plain", "unsafe"],
        help="How learner code is isolated (default: auto, the strongest available).",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Check the course and the notebook's assignment before collecting anything."""
    given = config.getoption("graders_notebook")
    if given is None:
        return
    try:
        state = Grading.start(config, config.invocation_params.dir / given)
    except user_errors() as exc:
        raise pytest.UsageError(f"graders: {exc}") from exc
    config.stash[STATE] = state
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args[:] = [str(state.notebook)]  # no test paths given: the notebook is the session
    elif not any(
        Path(config.invocation_params.dir, a).resolve() == state.notebook for a in config.args
    ):
        config.args.append(str(state.notebook))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The notebook being graded is collected as a file of question tests."""
    state = parent.config.stash.get(STATE, None)
    if state is not None and file_path.resolve() == state.notebook:
        return NotebookFile.from_parent(parent, path=file_path)
    return None


def pytest_unconfigure(config: pytest.Config) -> None:
    """End the output with the score, once the notebook was graded."""
    state = config.stash.get(STATE, None)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if state is not None and state.doc is not None and reporter is not None:
        reporter.write_line(state.score_line())


class Grading:
    """The session's notebook, its assignment, and its results once graded (once)."""

    def __init__(
        self,
        notebook: Path,
        course: Path | None,
        assignment: str,
        isolation: str,
        planned: list[tuple[str, float]],
    ) -> None:
        self.notebook, self.course, self.assignment, self.isolation = (
            notebook,
            course,
            assignment,
            isolation,
        )
        self.planned = planned
        self.doc: ResultsDocument | None = None

    @classmethod
    def start(cls, config: pytest.Config, given: Path) -> Grading:
        """Load the course (fast, no torch) and find what the notebook is to be graded on."""
        from ..batch.grading import planned_items
        from ..session import load
        from .ci.notebook import course_path, find_notebook, resolve_assignment

        course_opt = config.getoption("graders_course")
        course = course_path(config.invocation_params.dir / course_opt if course_opt else None)
        loaded = load(course)
        assignment = resolve_assignment(loaded, given, config.getoption("graders_assignment"))
        notebook = find_notebook(given, assignment).resolve() if given.is_dir() else given.resolve()
        return cls(
            notebook,
            course,
            assignment,
            config.getoption("graders_isolation"),
            planned_items(loaded, assignment),
        )

    def document(self) -> ResultsDocument:
        """The results document, graded on first use."""
        from .ci.notebook import grade_notebook

        if self.doc is None:
            self.doc = grade_notebook(
                self.course, self.notebook, self.assignment, isolation=self.isolation
            )
        return self.doc

    def score_line(self) -> str:
        from .ci.report import score_line, student_of

        s = student_of(self.document())
        return score_line(s.score, s.max_score or sum(points for _, points in self.planned))


class NotebookFile(pytest.File):
    """The notebook: one ``QuestionItem`` per question or check of the assignment."""

    def collect(self) -> Iterator[QuestionItem]:
        for item_id, max_points in self.config.stash[STATE].planned:
            yield QuestionItem.from_parent(self, name=item_id, max_points=max_points)


class GradingFailure(Exception):
    """A question that did not earn full marks; its message is the learner's feedback."""


class QuestionItem(pytest.Item):
    """One question or code check; passes when it earned full marks."""

    def __init__(self, *, max_points: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_points = max_points

    def runtest(self) -> None:
        from .ci.report import feedback_texts, student_of

        student = student_of(self.config.stash[STATE].document())
        q = student.question(self.name)
        if q is None:
            self.user_properties += [
                ("points", 0),
                ("max_points", self.max_points),
                ("status", student.status.value),
            ]
            raise GradingFailure(
                "the notebook could not be graded: "
                f"{student.error or 'no result for this question'}"
            )
        points = [("points", round(q.points, 4)), ("max_points", round(q.max_points, 4))]
        self.user_properties += [*points, ("status", q.status.value)]
        if not q.passed:
            raise GradingFailure(feedback_texts(student)[q.id])

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """The feedback alone for a miss; a full traceback for anything else (a bug)."""
        if isinstance(excinfo.value, GradingFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name
