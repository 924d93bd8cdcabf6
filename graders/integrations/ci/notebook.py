"""One notebook graded with the engine ``graders autograde`` uses for a whole class.

    doc = grade_notebook(course, Path("ps1.ipynb"), "ps1")   # a results document, one student

The truths are prepared once (``prepare_assignment``), the notebook is read and graded by
``grading.handed_in.grade_notebook``, as ``graders autograde`` grades each of a class, so a CI
job, the pytest plugin and Gradescope give the same points as the instructor's batch. The
late policy applies when the caller gives a submission time (``graders ci`` does:
Gradescope's record, else the time grading runs).
"""

from __future__ import annotations

from collections.abc import Collection
from contextlib import ExitStack
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ...course.files import COURSE_FILE
from ...course.loaded import LoadedCourse, get_assignment
from ...course.variants import varied_exercises
from ...errors import SubmissionError, UsageError
from ...grading.pipeline import ungradable
from ...grading.torch_side import torch_version
from ...intake import notebook_choice
from ...results import ResultsDocument, StudentResult
from ...said import told
from ...submissions.handed_in import HandedIn
from .early import VENDORED_COURSE, course_path, early_sandbox
from .learner import SOURCES, learner_from

if TYPE_CHECKING:
    from ...sandbox.runner import LazyRunner
    from ...workspace import Workspace

DEFAULT_STUDENT = "student"


def course_near(notebook: Path) -> Path | None:
    """The ``.graders/course/`` of the repository ``notebook`` is in: the nearest folder at
    or above the notebook's that holds one, looking no higher than the repository's root
    (the folder holding ``.git``)."""
    start = notebook.resolve()
    for folder in ([start] if start.is_dir() else []) + list(start.parents):
        if (folder / VENDORED_COURSE / COURSE_FILE).is_file():
            return folder / VENDORED_COURSE
        if (folder / ".git").exists():
            return None
    return None


def course_for(given: str | None, here: Path, notebook: Path, option: str) -> Path:
    """The course a tool run in ``here`` grades ``notebook`` with: ``given`` (``option``'s
    value), else the ``.graders/course/`` of the notebook's repository, else ``here``'s."""
    if given:
        path: Path = here / given
        if not (path.is_file() or (path / COURSE_FILE).is_file()):
            raise UsageError(f"{option}={given}: no {COURSE_FILE} there")
        return path
    found = course_near(here / notebook) or course_path(None, here)
    if found is None and (here / COURSE_FILE).is_file():
        found = here
    if found is None:
        raise UsageError(
            f"no course for {notebook}: none in the .graders/course/ of its repository nor "
            f"in {here}; pass {option}=PATH (course.yml or its folder)"
        )
    return found


def resolve_assignment(loaded: LoadedCourse, notebook: Path, given: str | None) -> str:
    """The assignment named, else the one the notebook declares, else the course's only one."""
    if given:
        return get_assignment(loaded, given).id
    declared = declared_assignment(notebook)
    if declared is not None and loaded.course.assignment(declared) is not None:
        return declared
    ids = [a.id for a in loaded.course.assignments]
    if len(ids) == 1:
        return ids[0]
    raise UsageError(
        f"which assignment is {notebook} for? name one of {', '.join(ids)} "
        "(--assignment; under pytest, --graders-assignment)"
    )


def declared_assignment(notebook: Path) -> str | None:
    """The ``metadata.graders.assignment`` of a released notebook, if it can be read."""
    return _declared(notebook, "assignment")


def declared_language(loaded: LoadedCourse, notebook: Path) -> str:
    """The language ``notebook`` (or the one notebook in a folder) was released in, when
    the course has it; else the course's first."""
    declared = _declared(notebook, "language")
    return declared if declared in loaded.course.languages else loaded.course.languages[0]


def _declared(notebook: Path, key: str) -> str | None:
    from ...notebook.read import answer_cells, read_notebook

    try:
        path = find_notebook(notebook, None)
        found = answer_cells(path, read_notebook(path))
    except SubmissionError:
        return None
    declared = found.meta.get(key)
    return declared if isinstance(declared, str) else None


def find_notebook(path: Path, assignment: str | None, others: Collection[str] = ()) -> Path:
    """``path`` itself, or the notebook of the folder ``path`` by the rule every door
    follows (``intake.notebook_choice``), searched into its subfolders: ``<assignment>.ipynb``
    first, never one named for ``others`` (the course's other assignments)."""
    if not path.is_dir():
        refused = notebook_choice.irregular(path, str(path))
        if refused is not None:
            raise SubmissionError(refused)
        return path
    choice = notebook_choice.in_tree(path, assignment, others)
    if choice.path is None:
        assert choice.error is not None
        raise SubmissionError(choice.error)
    return choice.path


def default_notebook(repo: Path, assignment: str, others: Collection[str] = ()) -> str:
    """The notebook of a student repository: the one it holds, else ``<assignment>.ipynb``."""
    try:
        return find_notebook(repo, assignment, others).relative_to(repo).as_posix()
    except SubmissionError:
        return f"{assignment}.ipynb"


def grade_notebook(
    course: Path | LoadedCourse | None,
    notebook: Path,
    assignment: str | None,
    *,
    student: str | None = None,
    student_from: str | None = None,
    isolation: str = "auto",
    submitted_at: datetime | None = None,
    early: LazyRunner | None = None,
) -> ResultsDocument:
    """The results document of one notebook; a notebook that cannot be read is ``ungradable``.

    With ``submitted_at`` the assignment's late policy applies; without, it does not.

    ``student`` is the learner's id, as the grader knows them, or ``student_from`` the
    platform's record that names them (``learner.SOURCES``): it decides their variant of
    exercises with parameters, so one must be given for an assignment that has some.
    ``early`` is a sandbox started before the course was read (``early_sandbox``); without
    it, one starts here, before a course given as a folder is read.
    Raises ``UsageError``/``SpecError`` only for a wrong command line or a broken course.
    """
    from ...workspace import load, open_workspace

    with ExitStack() as stack:
        if early is None and not isinstance(course, LoadedCourse):
            early = stack.enter_context(early_sandbox(course_path(course), notebook, isolation))
        loaded = course if isinstance(course, LoadedCourse) else load(course_path(course))
        assignment = resolve_assignment(loaded, notebook, assignment)
        student = learner_of(loaded, assignment, student, student_from)
        others = loaded.course.other_assignments(assignment)
        handed = replace(locate(notebook, assignment, student, others), submitted_at=submitted_at)
        if handed.error is not None:
            # Nothing to grade: no need to start torch to say so.
            return _document(loaded, assignment, None, ungradable(student, handed.error))
        with open_workspace(loaded, isolation=isolation, runner=early) as session:
            session.warm_for(assignment)
            return grade_in(session, handed, assignment)


def learner_of(
    loaded: LoadedCourse,
    assignment: str,
    student: str | None,
    student_from: str | None,
    options: tuple[str, str] = ("graders ci --student", "--student-from"),
) -> str:
    """The learner graded: ``student``, else the one ``student_from`` reads from the platform,
    else the default name, unless their variant depends on who they are (``UsageError``).
    ``options`` name the two ways to say it, as the caller's command line spells them."""
    if student and student_from:
        raise UsageError(f"give the learner once: {options[0]} or {options[1]}, not both")
    if student:
        return student
    if student_from:
        return learner_from(student_from, loaded.root)
    varied = varied_exercises(loaded, assignment)
    if varied:
        raise UsageError(
            f"each learner has their own variant of {', '.join(varied)}: name the learner "
            f"({options[0]} ID, the id the course grades them by, or {options[1]} "
            f"{' | '.join(SOURCES)}), never taken from the notebook"
        )
    return DEFAULT_STUDENT


class InLanguage(NamedTuple):
    """A one-learner document as its learner reads it."""

    doc: ResultsDocument  # the feedback in ``language``
    language: str
    labels: dict[str, str]  # misconception name -> what the learner reads for it
    names: dict[str, str]  # item id -> how the notebook names it, in ``language``


def in_learner_language(
    loaded: LoadedCourse, doc: ResultsDocument, language: str | None = None
) -> InLanguage:
    """``doc`` with its learner's feedback in ``language`` (one of the course's), else in the
    language their notebook was released in, else the course's first."""
    from ...course.learner_language import LearnerLanguages
    from ...i18n import speaking
    from ...notebook.parts import question_names

    languages = LearnerLanguages(loaded, doc.assignment, forced=language)
    student = doc.students[0]
    spoken = languages.language_of(student)
    shown = replace(doc, students=(languages.result_in(student, spoken),))
    with speaking(spoken):  # "问题 1.1": the notebook's words
        names = question_names(languages.course_in(spoken), doc.assignment)
    return InLanguage(shown, spoken, languages.labels_in(spoken), names)


def locate(
    notebook: Path, assignment: str, student: str = DEFAULT_STUDENT, others: Collection[str] = ()
) -> HandedIn:
    """The notebook to grade, as handed in: a path, or why there is none."""
    try:
        path = find_notebook(notebook, assignment, others)
    except SubmissionError as exc:
        return HandedIn(student, None, str(notebook), error=told(exc))
    # Messages name the notebook as the learner knows it: inside the folder handed in.
    shown = path.relative_to(notebook).as_posix() if notebook.is_dir() else str(notebook)
    return HandedIn(student, path, shown)


def grade_in(session: Workspace, handed: HandedIn, assignment: str) -> ResultsDocument:
    """Grade ``handed`` in an open workspace, as ``grading.handed_in.grade_notebook`` does;
    the assignment's truths are prepared only once the notebook is read (one that cannot be
    read is told so without starting torch)."""
    from ...grading import handed_in
    from ...grading.pipeline import prepare_assignment
    from ...kinds.base import Submission

    read = handed_in.read_handed_in(assignment, session.loaded, handed)
    if isinstance(read, Submission):
        read = handed_in.grade_read(
            prepare_assignment(session.loaded, assignment, session.ctx), read
        )
    result, _ = read
    if handed.submitted_at is not None:  # the time the late policy counted from
        result = replace(result, submitted_at=handed.submitted_at.isoformat(timespec="seconds"))
    return _document(session.loaded, assignment, session.isolation, result)


def _document(
    loaded: LoadedCourse, assignment: str, isolation: str | None, result: StudentResult
) -> ResultsDocument:
    graded_at = datetime.now(UTC).isoformat(timespec="seconds")
    return ResultsDocument(
        loaded.course.id, assignment, torch_version(), graded_at, isolation, (result,)
    )
