"""Files made from a results document: grades.csv, JUnit XML, Gradescope results.

    write_outputs(doc, out)   ->  out/results.json, out/grades.csv, out/junit.xml,
                                  out/gradescope/<student>.json

Every file is written whole or not at all (a temporary file renamed into place), so a
batch killed while exporting leaves the previous outputs readable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from itertools import chain
from pathlib import Path

from ..course.learner_language import LearnerLanguages
from ..course.load import LoadedCourse
from ..course.model import FeedbackPolicy
from ..i18n import speaking
from ..intake.identity import one_file_each
from ..notebook.layout import question_names
from ..results import ResultsDocument, StudentResult, SubmissionStatus
from .csv_writer import csv_text
from .gradescope import gradescope_result
from .junit import junit_pieces, junit_xml
from .submissions import safe_student

__all__ = ["grades_csv", "gradescope_result", "junit_xml", "write_atomic", "write_outputs"]

ROSTER_MARKS = {True: "listed", False: "not on roster"}


def write_outputs(doc: ResultsDocument, out: Path, loaded: LoadedCourse | None = None) -> None:
    """Write every output file of a results document into ``out``. With the course
    (``loaded``), each Gradescope result follows the assignment's feedback policy and speaks
    its learner's language, as their feedback page does; without, the default policy and
    the language grading spoke."""
    found = loaded.course.assignment(doc.assignment) if loaded else None
    policy = found.feedback if found else None
    languages = LearnerLanguages(loaded, doc.assignment) if loaded and found else None
    names: dict[str, dict[str, str]] = {}  # language -> item id -> the notebook's label
    out.mkdir(parents=True, exist_ok=True)
    # The two big files are written a student at a time: a class of thousands is never
    # held in memory as one string (or one XML tree) beside its document.
    write_atomic(out / "results.json", chain(doc.json_pieces(), ["\n"]))
    write_atomic(out / "grades.csv", grades_csv(doc))
    write_atomic(out / "junit.xml", junit_pieces(doc))
    for dropped in doc.dropped:  # a withdrawn student's earlier file must not linger
        if safe_student(dropped):
            (out / "gradescope" / f"{dropped}.json").unlink(missing_ok=True)
    owners = _file_owners(doc)
    for student in doc.students:
        # A missing student handed nothing in: there is no autograder result to show them.
        if student.student in owners and student.status is not SubmissionStatus.MISSING:
            path = out / "gradescope" / f"{student.student}.json"
            write_atomic(path, _gradescope_json(student, policy, languages, names) + "\n")


def _file_owners(doc: ResultsDocument) -> set[str]:
    """The students who get a file of their own: one per name, whatever the disk's case."""
    graded = (s.student for s in doc.students if s.status is not SubmissionStatus.UNGRADABLE)
    return one_file_each((s.student for s in doc.students), graded)


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
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as file:
        file.writelines([text] if isinstance(text, str) else text)
    os.replace(tmp, path)


def grades_csv(doc: ResultsDocument) -> str:
    """One row per student, one column per question (points), then the late factor and total,
    the instructor's decisions (the student's own due date, the reasons of overrides), and
    with a roster a last ``roster`` column (``listed`` or ``not on roster``)."""
    qids = doc.question_ids()
    with_roster = any(s.on_roster is not None for s in doc.students)
    roster = ["roster"] if with_roster else []
    header = ["student", "status", *qids, "late_factor", "total", "max_total"]
    rows: list[list[object]] = [[*header, "extended_due", "overrides", *roster]]
    for s in doc.students:
        points = {q.id: _round(q.points) for q in s.questions}
        rows.append(
            [
                s.student,
                s.status.value,
                *(points.get(q, "") for q in qids),
                s.late_factor,
                _round(s.score),
                _round(s.max_score),
                s.extension.due if s.extension else "",
                "; ".join(f"{q.id}: {q.override.reason}" for q in s.questions if q.override),
                *([ROSTER_MARKS[bool(s.on_roster)]] if with_roster else []),
            ]
        )
    return csv_text(rows)


def _round(x: float) -> float:
    return round(x, 4)  # as the results document writes points
