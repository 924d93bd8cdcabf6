"""pytest plugin: a notebook graded as a pytest session, one test per question.

    pytest --graders-notebook ps1.ipynb [--graders-assignment ps1] [--graders-course PATH]
           [--graders-student ID | --graders-student-from SOURCE] [--graders-lang LANG]

Shipped with graders and registered through the ``pytest11`` entry point. Every question
and code check of the assignment becomes a test named ``<exercise-id>/<question-id>``;
a miss fails with the learner's feedback as the whole message (no traceback), and each
test's points and max points are recorded as ``user_properties`` so ``--junitxml``
carries them. The notebook is graded once per session, on the first test that runs,
by the engine ``graders autograde`` uses; the output ends with ``graders: SCORE/MAX points``.

Without test paths on the command line, the session collects the notebook only. The
feedback is in the language the notebook was released in (or ``--graders-lang``), as
``graders ci`` says it.

For an assignment with variants the learner must be named, by ``--graders-student`` (the
id the course grades them by) or ``--graders-student-from`` (the platform's record, as
``graders ci --student-from``): the session stops with a usage error before collecting
otherwise. The notebook never says who the learner is.

The course is the one ``--graders-course`` names, else the ``.graders/course/`` of the
notebook's repository (the nearest folder above the notebook that holds one, up to the
repository's root), else the current folder's ``.graders/course/`` or ``course.yml``: so
``pytest`` finds it from anywhere. Each test shows what the assignment's feedback policy
lets learners see now (``course.visibility``). With pytest's default JUnit family
(xunit2), whose schema allows no properties on a test case, each question's points go to
the suite's properties (``points:<id>``, ``max_points:<id>``, ``status:<id>``); with
``junit_family=legacy`` or ``xunit1`` they are the test case's own properties.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import user_errors
from .ci.learner import SOURCES

if TYPE_CHECKING:
    from ..course.loaded import LoadedCourse
    from ..course.model import Assignment
    from ..results import ResultsDocument
    from ..sandbox.runner import LazyRunner

STATE = pytest.StashKey["Grading"]()
#: pytest's JUnit families that allow properties inside a test case.
LEGACY_FAMILIES = ("legacy", "xunit1")
PACKAGE = "graders"  # whose modules pytest is asked not to rewrite


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
        help="course.yml or its folder; default: the .graders/course/ of the notebook's "
        "repository, else the current folder's.",
    )
    group.addoption(
        "--graders-student",
        metavar="ID",
        default=None,
        help="The learner's id: the name in the reports and, for exercises with parameters, "
        "whose variant to grade.",
    )
    group.addoption(
        "--graders-student-from",
        metavar="SOURCE",
        default=None,
        choices=list(SOURCES),
        help="Take the learner's id from the platform: gradescope-email, gradescope-sid "
        "(Gradescope's submission metadata) or github-actor (GITHUB_ACTOR).",
    )
    group.addoption(
        "--graders-lang",
        metavar="LANG",
        default=None,
        help="The feedback's language, one of the course's (default: the one the notebook was "
        "released in, else the course's first).",
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
    leave_graders_unrewritten(config)
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


def leave_graders_unrewritten(config: pytest.Config) -> None:
    """Keep pytest from rewriting the asserts of graders' own modules imported from now on.

    pytest rewrites every package of a distribution that registers a plugin, so each graders
    module a session imports was parsed into Python AST objects: a cost on every first
    import, and under CPython 3.11 before 3.11.8 two threads doing it at once (grading
    threads import lazily) can fail an import with "AST constructor recursion depth
    mismatch". graders' modules are not tests. pytest offers no public way to take a mark
    back, so this reaches into its rewrite hook, and does nothing if that has changed.
    """
    try:
        from _pytest.assertion.rewrite import assertstate_key

        hook = config.stash[assertstate_key].hook
        marked: set[str] = hook._must_rewrite  # type: ignore[union-attr]
        cache: dict[str, bool] = hook._marked_for_rewrite_cache  # type: ignore[union-attr]
    except (ImportError, KeyError, AttributeError):
        return  # assertion rewriting is off (--assert=plain), or pytest keeps it elsewhere
    marked.discard(PACKAGE)
    for name in [n for n in cache if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del cache[name]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The notebook being graded is collected as a file of question tests."""
    state = parent.config.stash.get(STATE, None)
    if state is not None and file_path.resolve() == state.notebook:
        return NotebookFile.from_parent(parent, path=file_path)
    return None


def pytest_unconfigure(config: pytest.Config) -> None:
    """End the output with the score, once the notebook was graded."""
    state = config.stash.get(STATE, None)
    if state is not None and state.early is not None:
        state.early.close()  # stopped already, when the notebook was graded
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if state is not None and state.doc is not None and reporter is not None:
        if state.notice:
            reporter.write_line(state.notice)
        reporter.write_line(state.score_line())


class Grading:
    """The session's notebook, its assignment, and its results once graded (once)."""

    def __init__(
        self,
        notebook: Path,
        loaded: LoadedCourse,
        assignment: Assignment,
        isolation: str,
        planned: list[tuple[str, float]],
        student: str,
        language: str | None = None,
        early: LazyRunner | None = None,
    ) -> None:
        self.notebook, self.loaded, self.assignment, self.isolation = (
            notebook,
            loaded,
            assignment,
            isolation,
        )
        self.planned, self.student = planned, student
        self.language = language  # forced by --graders-lang; else the notebook's, once graded
        self.labels: dict[str, str] = {}  # misconception name -> what the learner reads
        self.doc: ResultsDocument | None = None
        self.notice: str | None = None
        self.early = early  # the sandbox, warming since the session began (or None)

    @classmethod
    def start(cls, config: pytest.Config, given: Path) -> Grading:
        """Load the course (fast, no torch) and find what the notebook is to be graded on;
        the sandbox starts warming first when the notebook has code to run."""
        from ..workspace import load
        from .ci.early import start_early

        course = _course(config, given)
        # Started before the course is read: torch's warm-up passes while it loads.
        early = start_early(course, given, config.getoption("graders_isolation"))
        try:
            return cls._started(config, given, load(course), early)
        except BaseException:
            if early is not None:
                early.close()
            raise

    @classmethod
    def _started(
        cls, config: pytest.Config, given: Path, loaded: LoadedCourse, early: LazyRunner | None
    ) -> Grading:
        from ..course.loaded import get_assignment
        from ..grading.pipeline import planned_items
        from .ci.notebook import find_notebook, learner_of, resolve_assignment

        assignment = resolve_assignment(loaded, given, config.getoption("graders_assignment"))
        language = config.getoption("graders_lang")
        others = loaded.course.other_assignments(assignment)
        notebook = (find_notebook(given, assignment, others) if given.is_dir() else given).resolve()
        return cls(
            notebook,
            loaded,
            get_assignment(loaded, assignment),
            config.getoption("graders_isolation"),
            planned_items(loaded, assignment),
            learner_of(
                loaded,
                assignment,
                config.getoption("graders_student"),
                config.getoption("graders_student_from"),
                ("--graders-student", "--graders-student-from"),
            ),
            loaded.language(language) if language is not None else None,
            early,
        )

    def document(self) -> ResultsDocument:
        """The results document, graded on first use."""
        from ..i18n import speaking
        from .ci.notebook import grade_notebook, in_learner_language
        from .ci.report import learner_view

        if self.doc is None:
            graded = grade_notebook(
                self.loaded,
                self.notebook,
                self.assignment.id,
                student=self.student,
                isolation=self.isolation,
                early=self.early,
            )
            shown = in_learner_language(self.loaded, graded, self.language)
            self.language, self.labels = shown.language, shown.labels
            with speaking(self.language):
                view = learner_view(shown.doc, self.assignment)
                self.doc, self.notice = view.doc, view.notice()
        return self.doc

    def speaking(self) -> AbstractContextManager[None]:
        """Say what follows in the feedback's language (known once the notebook is graded)."""
        from ..i18n import SOURCE_LANGUAGE, speaking

        self.document()
        return speaking(self.language or SOURCE_LANGUAGE)

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
        from ..i18n import _
        from .ci.report import feedback_texts, student_of

        state = self.config.stash[STATE]
        student = student_of(state.document())
        q = student.question(self.name)
        with state.speaking():
            if q is None:
                self._record(0, self.max_points, student.status.value)
                why = student.error or _("no result for this question")
                raise GradingFailure(_("the notebook could not be graded: {why}").format(why=why))
            self._record(round(q.points, 4), round(q.max_points, 4), q.status.value)
            if not q.passed:
                raise GradingFailure(feedback_texts(student, state.labels)[q.id])

    def _record(self, points: float, max_points: float, status: str) -> None:
        values = {"points": points, "max_points": max_points, "status": status}
        if self.config.getini("junit_family") in LEGACY_FAMILIES:
            self.user_properties += list(values.items())
            return
        junit = _junit_writer(self.config)
        if junit is not None:  # only with --junitxml
            for name, value in values.items():
                junit.add_global_property(f"{name}:{self.name}", value)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """The feedback alone for a miss; a full traceback for anything else (a bug)."""
        if isinstance(excinfo.value, GradingFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


def _course(config: pytest.Config, notebook: Path) -> Path:
    """The course: the option's, else the notebook repository's, else the current folder's."""
    from .ci.notebook import course_for

    given: str | None = config.getoption("graders_course")
    return course_for(given, config.invocation_params.dir, notebook, "--graders-course")


def _junit_writer(config: pytest.Config) -> Any:
    # pytest's JUnit writer registers itself as a plugin; its add_global_property is what
    # the `record_testsuite_property` fixture calls.
    for plugin in config.pluginmanager.get_plugins():
        if callable(getattr(plugin, "add_global_property", None)):
            return plugin
    return None
