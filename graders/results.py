"""The results document: the one typed shape every output is made from.

    ResultsDocument  {schema, course, assignment, torch_version, graded_at, isolation,
                      students}
    StudentResult    {student, score, max_score, status, error, late_factor,
                      submitted_at, graded_at, questions}   (+ on_roster with a roster,
                                                            extension, language when set)
    QuestionResult   {id, status, points, max_points, answer, expected, feedback,
                      misconception, section}   (+ variant, override, explain)
    Override         {points, reason, by, at}    points an instructor set by hand
    Extension        {due, reason, by, at}       a student's own due date
    (+ dropped on the document: withdrawn students, kept out of every grade)

Grading builds these frozen values; a document that comes from outside (a JSON file, the
gradebook) is parsed once, where it enters, by ``ResultsDocument.parse`` or
``StudentResult.parse``. Exports, feedback pages, class reports, CI and Gradescope read
attributes, never keys. ``score`` and ``max_score`` are computed from the questions, so a
document cannot disagree with itself.

What the document says to a learner (``feedback``, ``explain``, ``error``) is a
``said.Text``: graders' messages by id, the author's texts by reference, literals, rendered
in the reader's language when a page is written (``course.learner_language``). ``schema``
is the document's shape: a document of an earlier one is upgraded when it is read
(``results_upgrade``), a gradebook's by ``graders db upgrade``.

An override and an extension are what an instructor sets by hand beside the graded result:
both survive every regrade until cleared (``gradebook.overrides``, ``gradebook.extensions``),
and both say who set them, when and why: a grade changed by hand is never anonymous.

One piece: the results document is one schema. Its values are read and written together
(``parse`` validates the whole tree, ``to_json`` writes it, ``results_upgrade`` moves it
between schemas as a whole), so a value split from it would be a part of the same schema
read from elsewhere.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from .i18n import N_
from .results_upgrade import SCHEMA, upgraded
from .said import Text, render, to_json

if TYPE_CHECKING:
    from pydantic import TypeAdapter, ValidationError

T = TypeVar("T")


class Status(StrEnum):
    """What happened to one question or check."""

    CORRECT = "correct"
    WRONG = "wrong"  # includes partial credit on a code check
    UNANSWERED = "unanswered"
    INVALID = "invalid"  # the answer does not parse / the code is malformed
    ERROR = "error"  # the code raised or crashed, or the question could not be graded
    TIMEOUT = "timeout"
    INTEGRITY = "integrity"  # the submission tampered with grading


#: How a learner reads each status (translated where shown: ``i18n._``).
STATUS_WORDS = {
    Status.CORRECT.value: N_("correct"),
    Status.WRONG.value: N_("not correct"),
    Status.UNANSWERED.value: N_("not answered"),
    Status.INVALID.value: N_("not an answer"),
    Status.ERROR.value: N_("error"),
    Status.TIMEOUT.value: N_("timed out"),
    Status.INTEGRITY.value: N_("tampered with grading"),
}

#: Statuses that mean the code failed to run properly, as opposed to a wrong answer.
CRASHED = frozenset({Status.ERROR, Status.TIMEOUT, Status.INTEGRITY})


class SubmissionStatus(StrEnum):
    """What happened to a whole submission."""

    GRADED = "graded"
    LATE_CUTOFF = "late-cutoff"  # graded, but submitted after the hard cutoff: score 0
    UNGRADABLE = "ungradable"  # could not be read at all: a problem of the submission's
    INTERNAL = "internal"  # graders failed on it (a bug, not the learner's): graded again
    MISSING = "missing"  # on the roster, but nothing was handed in: score 0


#: Submissions whose answers were never graded: unreadable, or a failure of graders' own.
NOT_GRADED = frozenset({SubmissionStatus.UNGRADABLE, SubmissionStatus.INTERNAL})


@dataclass(frozen=True)
class Override:
    """Points an instructor gave one question by hand: they replace the graded points and
    survive every regrade until cleared."""

    points: float
    reason: str
    by: str
    at: str  # ISO 8601

    def to_json(self) -> dict[str, Any]:
        return {
            "points": round(self.points, 4),
            "reason": self.reason,
            "by": self.by,
            "at": self.at,
        }


@dataclass(frozen=True)
class Extension:
    """A student's own due date for an assignment, granted by an instructor."""

    due: str  # ISO 8601, with its zone
    reason: str | None
    by: str
    at: str  # ISO 8601: when it was granted

    def to_json(self) -> dict[str, Any]:
        return {"due": self.due, "reason": self.reason, "by": self.by, "at": self.at}


# Written only when set: no kind has variants yet, few grades are changed by hand, and
# documents written before `explain` existed have none.
_OPTIONAL = ("variant", "override", "explain")
_SHARED = ("id", "answer", "expected", "misconception", "section")


@dataclass(frozen=True, slots=True)  # slots: a class of 2,000 holds ~80,000 of these
class QuestionResult:
    """The grade of one question (``exercise/question``) or code check (``exercise/check``)."""

    id: str
    status: Status
    points: float
    max_points: float
    answer: str | None = None
    expected: str | None = None
    feedback: Text = Text()
    misconception: str | None = None
    section: str | None = None  # the article section the exercise cites
    variant: str | None = None  # which variant of the item was asked
    override: Override | None = None  # points set by an instructor: ``points`` is theirs
    # The feedback without anything computed from the expected answer ("got X, expected Y"):
    # what a learner reads before the assignment closes (``course.visibility``).
    explain: Text | None = None

    def __post_init__(self) -> None:
        # A class's results repeat the same texts (explanations, expected answers, ids) in
        # every student's copy: one shared string each keeps a class of 2,000 in tens of MB.
        for name in _SHARED:
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, sys.intern(str(value)))
        # A plain string is taken as a literal (a hand-made result, a test's).
        for name in ("feedback", "explain"):
            if isinstance(getattr(self, name), str):
                object.__setattr__(self, name, Text.of(getattr(self, name)))

    @property
    def exercise(self) -> str:
        """The exercise id (the part of ``id`` before the ``/``)."""
        return self.id.split("/", 1)[0]

    @property
    def passed(self) -> bool:
        return self.status is Status.CORRECT

    @property
    def full_marks(self) -> bool:
        """Nothing left for the learner to review: answered correctly, or given every point
        by the instructor (an override decides, whatever the status says)."""
        if self.override is not None:
            return self.points >= self.max_points
        return self.passed

    def scaled(self, factor: float) -> QuestionResult:
        """The same result with points multiplied (assignment points overrides)."""
        return replace(self, points=self.points * factor, max_points=self.max_points * factor)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (points rounded to 4 decimals, unset optional fields left out)."""
        # A shallow copy of the fields: dataclasses.asdict deep-copies each one, and this
        # runs for every question of every student.
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["status"] = self.status.value
        data["points"] = round(self.points, 4)
        data["max_points"] = round(self.max_points, 4)
        data["feedback"] = to_json(self.feedback)
        if self.explain is not None:
            data["explain"] = to_json(self.explain)
        for name in _OPTIONAL:
            if data[name] is None:
                del data[name]
        if self.override is not None:
            data["override"] = self.override.to_json()
        return data


@dataclass(frozen=True)
class StudentResult:
    """One student's graded submission of one assignment."""

    student: str
    questions: tuple[QuestionResult, ...]
    status: SubmissionStatus = SubmissionStatus.GRADED
    error: Text | None = None
    late_factor: float = 1.0
    submitted_at: str | None = None  # ISO 8601, when known
    graded_at: str | None = None  # ISO 8601, when saved in the gradebook
    extension: Extension | None = None  # the student's own due date, when granted one
    on_roster: bool | None = None  # None: no roster was given; written only when known
    language: str | None = None  # the language of the learner's notebook; written when known

    def __post_init__(self) -> None:
        # Any sequence is accepted, a tuple is kept: equal results compare equal.
        object.__setattr__(self, "questions", tuple(self.questions))
        if isinstance(self.error, str):  # a plain string is taken as a literal
            object.__setattr__(self, "error", Text.of(self.error))

    @property
    def max_score(self) -> float:
        return sum(q.max_points for q in self.questions)

    @property
    def raw_score(self) -> float:
        """Points before any late penalty."""
        return sum(q.points for q in self.questions)

    @property
    def score(self) -> float:
        if self.status is not SubmissionStatus.GRADED:
            return 0.0
        return self.raw_score * self.late_factor

    @property
    def read(self) -> bool:
        """Were the answers read (graded or late-cutoff, as opposed to ungradable, internal or
        missing)?"""
        return self.status not in NOT_GRADED | {SubmissionStatus.MISSING}

    @property
    def misconceptions(self) -> tuple[str, ...]:
        """The distinct misconceptions the answers revealed, in answer order."""
        return tuple(dict.fromkeys(q.misconception for q in self.questions if q.misconception))

    def question(self, item_id: str) -> QuestionResult | None:
        return next((q for q in self.questions if q.id == item_id), None)

    def renamed(self, current: Mapping[str, str]) -> StudentResult:
        """The same result with each question under its id today (``current``: former id ->
        id now, the course's renames): a grade kept under an old id reads under the new."""
        if not current or not any(q.id in current for q in self.questions):
            return self
        questions = tuple(
            replace(q, id=current[q.id]) if q.id in current else q for q in self.questions
        )
        return replace(self, questions=questions)

    def error_in(self, language: str) -> str | None:
        """``error`` written in ``language`` (it names no author's text)."""
        return None if self.error is None else render(self.error, language)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "student": self.student,
            "score": round(self.score, 4),
            "max_score": round(self.max_score, 4),
            "status": self.status.value,
            "error": to_json(self.error) if self.error is not None else None,
            "late_factor": self.late_factor,
            "submitted_at": self.submitted_at,
            "graded_at": self.graded_at,
            "questions": [q.to_json() for q in self.questions],
        }
        extension = self.extension.to_json() if self.extension is not None else None
        optional = dict(extension=extension, on_roster=self.on_roster, language=self.language)
        return data | {name: value for name, value in optional.items() if value is not None}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    @classmethod
    def parse(cls, text: str | bytes) -> StudentResult:
        """A student's results from their JSON (``ValueError`` when it is not one)."""
        return _parse(_student_adapter(), text)


@dataclass(frozen=True)
class ResultsDocument:
    """The results of one assignment: the one shape every later output is made from."""

    course: str
    assignment: str
    torch_version: str | None
    graded_at: str | None
    isolation: str | None  # the isolation level learner code ran under (None: none ran)
    students: tuple[StudentResult, ...]
    # Withdrawn students (``graders drop``): no grade, and not missing either.
    dropped: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "students", tuple(self.students))
        object.__setattr__(self, "dropped", tuple(self.dropped))

    def question_ids(self) -> list[str]:
        """Every question id in the document, in assignment order."""
        return ClassResults.of(self).question_ids()

    def renamed(self, current: Mapping[str, str]) -> ResultsDocument:
        """The same document with each question under its id today (``StudentResult.renamed``)."""
        if not current:
            return self
        return replace(self, students=tuple(s.renamed(current) for s in self.students))

    def read_students(self) -> list[StudentResult]:
        """Students whose answers were read (everything but ``ungradable``)."""
        return [s for s in self.students if s.read]

    @property
    def all_graded(self) -> bool:
        return all(s.status not in NOT_GRADED for s in self.students)

    def to_json(self, students: bool = True) -> dict[str, Any]:
        head = ClassResults.of(self).head_json()
        return {**head, "students": [s.to_json() for s in self.students]} if students else head

    def dumps(self) -> str:
        """The document as JSON, as ``results.json`` and ``--json`` write it: indented, with one
        line per student (indenting every question would take the pure-Python encoder, seconds
        for a class of 500; one line each keeps the C encoder and a file that diffs well)."""
        return "".join(ClassResults.of(self).json_pieces())

    @classmethod
    def parse(cls, text: str | bytes) -> ResultsDocument:
        """A document from its JSON, upgraded when an earlier schema wrote it (``ValueError``
        saying what is wrong when it is not one)."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"the document: not JSON ({exc})") from None
        if isinstance(data, dict):
            data = upgraded(data)
        return _validate(_document_adapter(), data)


@dataclass(frozen=True)
class ClassResults:
    """A class's results document read a student at a time, wherever it is kept.

    The head is at hand; each ``students()`` reads the students again, in student order,
    one at a time (``gradebook.class_results`` reads them from the gradebook), so an output
    made in a few passes holds one student's results whatever the size of the class.
    ``names()`` gives each student's id and status without reading their results.
    """

    course: str
    assignment: str
    torch_version: str | None
    graded_at: str | None
    isolation: str | None
    dropped: tuple[str, ...]
    count: int  # students
    reader: Callable[[], Iterator[StudentResult]] = field(repr=False, compare=False)
    lister: Callable[[], Iterator[tuple[str, SubmissionStatus]]] = field(repr=False, compare=False)

    @classmethod
    def of(cls, doc: ResultsDocument) -> ClassResults:
        """A document held in memory, read as a class is."""
        return cls(
            doc.course,
            doc.assignment,
            doc.torch_version,
            doc.graded_at,
            doc.isolation,
            doc.dropped,
            len(doc.students),
            lambda: iter(doc.students),
            lambda: ((s.student, s.status) for s in doc.students),
        )

    def students(self) -> Iterator[StudentResult]:
        """Every student's results, in student order: a new pass at each call."""
        return self.reader()

    def names(self) -> Iterator[tuple[str, SubmissionStatus]]:
        """Every student's id and status, in student order, without their results."""
        return self.lister()

    def question_ids(self) -> list[str]:
        """Every question id of the class, in assignment order (a pass over the students)."""
        ids: dict[str, None] = {}
        for student in self.students():
            ids.update((q.id, None) for q in student.questions)
        return list(ids)

    def document(self, students: Iterable[StudentResult] | None = None) -> ResultsDocument:
        """The whole document in memory (of ``students``, default every one): for a few."""
        return ResultsDocument(
            self.course,
            self.assignment,
            self.torch_version,
            self.graded_at,
            self.isolation,
            tuple(self.students() if students is None else students),
            self.dropped,
        )

    def head_json(self) -> dict[str, Any]:
        """The document's JSON without its students."""
        head: dict[str, Any] = {
            "schema": SCHEMA,
            "course": self.course,
            "assignment": self.assignment,
            "torch_version": self.torch_version,
            "graded_at": self.graded_at,
            "isolation": self.isolation,
        }
        if self.dropped:
            head["dropped"] = list(self.dropped)
        return head

    def json_pieces(self) -> Iterator[str]:
        """``ResultsDocument.dumps()`` a piece at a time: the head, then a line per student."""
        return file_pieces(DocumentJson(self), self.students())


class ClassFile(Protocol):
    """A file with a part per student, written as the students are read."""

    def head(self) -> str: ...

    def student(self, s: StudentResult) -> str: ...

    def tail(self) -> str: ...


def file_pieces(file: ClassFile, students: Iterable[StudentResult]) -> Iterator[str]:
    """``file``'s text a piece at a time: its head, a part per student, its tail."""
    yield file.head()
    for s in students:
        yield file.student(s)
    yield file.tail()


@dataclass
class DocumentJson:
    """The results document's JSON (``ResultsDocument.dumps``) a student at a time."""

    results: ClassResults
    written: int = 0

    def head(self) -> str:
        opened = json.dumps(self.results.head_json(), indent=2, ensure_ascii=False)
        return opened[:-2] + ',\n  "students": '  # the head without its "\n}"

    def student(self, s: StudentResult) -> str:
        self.written += 1
        return ("[\n    " if self.written == 1 else ",\n    ") + s.dumps()

    def tail(self) -> str:
        return "\n  ]\n}" if self.written else "[]\n}"


def lines_alike(texts: Sequence[str]) -> list[str]:
    """The lines every one of several ``texts`` holds, in the first's order: what the checks
    of an exercise were all told (a crash, a timeout, no code), to say once for it."""
    if len(texts) < 2:
        return []
    first, *others = (text.split("\n") for text in texts)
    return [line for line in first if line.strip() and all(line in o for o in others)]


def without_lines(text: str, lines: Iterable[str]) -> str:
    """``text`` without ``lines`` (said once elsewhere)."""
    said = set(lines)
    return "\n".join(line for line in text.split("\n") if line not in said)


def format_points(x: float) -> str:
    """Points as people write them, as rounded in the document: 1, 0.5, 2.25, 0.3333."""
    x = round(x, 4)
    return f"{x:g}" if abs(x - round(x)) > 1e-9 else str(int(round(x)))


@cache
def _student_adapter() -> TypeAdapter[StudentResult]:
    # Imported and built on first use: pydantic compiles a validator, which neither
    # `graders --help` nor a learner's `graders check` needs.
    from pydantic import TypeAdapter

    return TypeAdapter(StudentResult)


@cache
def _document_adapter() -> TypeAdapter[ResultsDocument]:
    from pydantic import TypeAdapter

    return TypeAdapter(ResultsDocument)


def _parse(adapter: TypeAdapter[T], text: str | bytes) -> T:
    from pydantic import ValidationError

    try:
        return adapter.validate_json(text)
    except ValidationError as exc:
        raise _problem(exc) from None


def _validate(adapter: TypeAdapter[T], data: Any) -> T:
    from pydantic import ValidationError

    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        raise _problem(exc) from None


def _problem(exc: ValidationError) -> ValueError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "the document"
    return ValueError(f"{where}: {first['msg']} ({exc.error_count()} problem(s))")
