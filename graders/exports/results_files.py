"""The outputs folder of a class's results, and the writers of results.json, grades.csv and
Gradescope's results.

    write_outputs(results, out)   ->  out/results.json, out/grades.csv, out/junit.xml,
                                      out/gradescope/<student>.json

The files are the formats ``exports.formats`` marks ``in_outputs``, in its order. Every
file is written a student at a time from a pass over the class's results
(``ClassResults``: the gradebook's, read a student at a time), so writing the outputs of
a class holds one student's results whatever its size. Every file is written whole or not
at all (a temporary file renamed into place), so a batch killed while exporting leaves the
previous outputs readable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO, cast

from ..course.learner_language import LearnerLanguages
from ..course.loaded import LoadedCourse
from ..course.model import FeedbackPolicy
from ..i18n import speaking
from ..intake.identity import one_file_each, safe_student
from ..notebook.parts import question_names
from ..results import (
    NOT_GRADED,
    ClassFile,
    ClassResults,
    DocumentJson,
    ResultsDocument,
    StudentResult,
    SubmissionStatus,
    file_pieces,
)
from .contract import ExportContext, LearnerFiles, Outline
from .csv_writer import csv_text
from .formats import outputs
from .gradescope_results import gradescope_result
from .junit import Counts, junit_xml

__all__ = [
    "OUT_DIR",
    "default_out_dir",
    "grades_csv",
    "gradescope_result",
    "junit_xml",
    "write_atomic",
    "write_outputs",
]

# Where a course's outputs go unless told otherwise: one folder per assignment, and the
# class reports beside them.
OUT_DIR = "autograded"


def default_out_dir(loaded: LoadedCourse, assignment: str) -> Path:
    """Where outputs go unless ``--out`` says otherwise: ``autograded/<assignment>/``."""
    return loaded.root / OUT_DIR / assignment


ROSTER_MARKS = {True: "listed", False: "not on roster"}


def write_outputs(results: ClassResults, out: Path, loaded: LoadedCourse | None = None) -> None:
    """Write every output file of a class's results into ``out``, in two passes over the
    class: what the files' heads need (the question columns, JUnit's counts), then every file
    a student at a time. With the course (``loaded``), each Gradescope result follows the
    assignment's feedback policy and speaks its learner's language, as their feedback page
    does; without, the default policy and the language grading spoke."""
    out.mkdir(parents=True, exist_ok=True)
    context = ExportContext(loaded=loaded, outline=outline_of(results))
    made = [(f, f.make(results, context)) for f in outputs()]
    files = {f.in_outputs or f.name: cast(ClassFile, m) for f, m in made if f.one_file}
    per_learner = [cast(LearnerFiles, m) for f, m in made if not f.one_file]
    for each in per_learner:  # a withdrawn student's earlier file must not linger
        for stale in each.stale():
            (out / stale).unlink(missing_ok=True)
    with ExitStack() as stack:
        sinks = {name: stack.enter_context(atomic_file(out / name)) for name in files}
        for name, file in files.items():
            sinks[name].write(file.head())
        for student in results.students():
            for name, file in files.items():
                sinks[name].write(file.student(student))
            for each in per_learner:
                if (written := each.file(student)) is not None:
                    write_atomic(out / written[0], written[1])
        for name, file in files.items():
            sinks[name].write(file.tail())


def results_json(results: ClassResults, context: ExportContext) -> ClassFile:
    """results.json: the document as ``ResultsDocument.dumps`` writes it, and a line end."""
    return _EndedJson(results)


@dataclass
class _EndedJson(DocumentJson):
    def tail(self) -> str:
        return super().tail() + "\n"  # a file's last line ends, as every text file's


def grades_file(results: ClassResults, context: ExportContext) -> ClassFile:
    """grades.csv (``GradesCsv``), its columns from the outline read before, else read now."""
    outline = context.outline or outline_of(results)
    return GradesCsv(outline.question_ids, outline.with_roster)


def gradescope_files(results: ClassResults, context: ExportContext) -> LearnerFiles:
    """A Gradescope results.json per learner who handed work in (``GradescopeFiles``)."""
    loaded = context.loaded
    found = loaded.course.assignment(results.assignment) if loaded else None
    languages = LearnerLanguages(loaded, results.assignment) if loaded and found else None
    return GradescopeFiles(results, found.feedback if found else None, languages)


@dataclass
class GradescopeFiles:
    """``gradescope/<student>.json``: one per learner with a file of their own (one per
    name, whatever the disk's case), none for one who handed nothing in; a dropped
    learner's earlier file is removed."""

    results: ClassResults
    policy: FeedbackPolicy | None
    languages: LearnerLanguages | None
    names: dict[str, dict[str, str]] = field(default_factory=dict)  # language -> labels
    owners: set[str] = field(init=False)  # who gets a file: one per name

    def __post_init__(self) -> None:
        self.owners = file_owners(self.results)

    def stale(self) -> Iterable[str]:
        return [f"gradescope/{d}.json" for d in self.results.dropped if safe_student(d)]

    def file(self, s: StudentResult) -> tuple[str, str] | None:
        # A missing student handed nothing in: there is no autograder result to show them.
        if s.student not in self.owners or s.status is SubmissionStatus.MISSING:
            return None
        text = _gradescope_json(s, self.policy, self.languages, self.names)
        return f"gradescope/{s.student}.json", text + "\n"


def outline_of(results: ClassResults) -> Outline:
    """What the output files' heads say of the whole class, from one pass over it."""
    ids: dict[str, None] = {}
    with_roster = False
    counts = Counts()
    for s in results.students():
        ids.update((q.id, None) for q in s.questions)
        with_roster = with_roster or s.on_roster is not None
        counts.add(s)
    return Outline(list(ids), with_roster, counts.totals())


def file_owners(results: ClassResults) -> set[str]:
    """The students who get a file of their own: one per name, whatever the disk's case."""
    names = list(results.names())
    graded = (student for student, status in names if status not in NOT_GRADED)
    return one_file_each((student for student, _ in names), graded)


def _gradescope_json(
    student: StudentResult,
    policy: FeedbackPolicy | None,
    languages: LearnerLanguages | None,
    names: dict[str, dict[str, str]],
) -> str:
    if languages is None:
        return json.dumps(gradescope_result(student, policy), ensure_ascii=False)
    spoken = languages.language_of(student)
    with speaking(spoken):
        if spoken not in names:  # the notebook's labels ("问题 1.1"), once per language
            names[spoken] = question_names(languages.course_in(spoken), languages.assignment)
        shown = languages.result_in(student, spoken)
        labels = languages.labels_in(spoken)
        result = gradescope_result(shown, policy, labels=labels, names=names[spoken])
        return json.dumps(result, ensure_ascii=False)


def write_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (or its pieces, one after the other) to ``path`` so that readers see the
    old file or the new one, never half."""
    with atomic_file(path) as file:
        file.writelines([text] if isinstance(text, str) else text)


@contextmanager
def atomic_file(path: Path) -> Iterator[TextIO]:
    """A file to write ``path``'s new text into: it replaces ``path`` when the block ends
    without an error (readers see the old file or the new one, never half), and goes away
    when the block fails (the old file stays)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as file:
            yield file
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


def grades_csv(doc: ResultsDocument) -> str:
    """grades.csv of a document held in memory, as one text."""
    results = ClassResults.of(doc)
    outline = outline_of(results)
    file = GradesCsv(outline.question_ids, outline.with_roster)
    return "".join(file_pieces(file, results.students()))


@dataclass(frozen=True)
class GradesCsv:
    """grades.csv a student at a time: one row per student, one column per question (points),
    then the late factor and total, the instructor's decisions (the student's own due date,
    the reasons of overrides), and with a roster a last ``roster`` column (``listed`` or
    ``not on roster``)."""

    question_ids: list[str]
    with_roster: bool

    def head(self) -> str:
        header = ["student", "status", *self.question_ids, "late_factor", "total", "max_total"]
        return csv_text([[*header, "extended_due", "overrides", *["roster"] * self.with_roster]])

    def student(self, s: StudentResult) -> str:
        points = {q.id: _round(q.points) for q in s.questions}
        row = [
            s.student,
            s.status.value,
            *(points.get(q, "") for q in self.question_ids),
            s.late_factor,
            _round(s.score),
            _round(s.max_score),
            s.extension.due if s.extension else "",
            "; ".join(f"{q.id}: {q.override.reason}" for q in s.questions if q.override),
            *([ROSTER_MARKS[bool(s.on_roster)]] if self.with_roster else []),
        ]
        return csv_text([row])

    def tail(self) -> str:
        return ""


def _round(x: float) -> float:
    return round(x, 4)  # as the results document writes points
