"""A class's outputs are written a student at a time, whatever the size of the class.

results.json, grades.csv, JUnit, the Gradescope files, the feedback pages, the class report
(page and CSV tables), the course summary, the LMS exports and the batch's summary are each
made from passes over the gradebook that hold a few students' results at once: the test
counts the ``StudentResult`` objects alive while each output of a class of 300 is written.
The class is the report tests' (tests/data/report-course), each of its students copied.
"""

from __future__ import annotations

import gc
import json
import shutil
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from class_documents import class_document

from graders.batch.run_summary import RunTally, summarize
from graders.course.load import load_course
from graders.course.loaded import LoadedCourse
from graders.exports.from_gradebook import ExportRequest, export_assignment
from graders.exports.results_files import write_atomic, write_outputs
from graders.gradebook import store as gradebook
from graders.gradebook.roster_check import on_roster
from graders.intake.roster import load_roster
from graders.reports.build import write_assignment, write_course
from graders.reports.course_info import course_info
from graders.reports.feedback import write_feedback
from graders.results import ClassResults, ResultsDocument, StudentResult

COURSE = Path(__file__).parent.parent / "data" / "report-course"
CLASS = 300
AT_ONCE = 10  # results alive at once: the one read, the copies made of it, a merge's next


@dataclass
class Alive:
    """How many ``StudentResult`` objects are alive now, and the most since ``reset``."""

    now: int = 0
    most: int = 0

    def born(self) -> None:
        self.now += 1
        self.most = max(self.most, self.now)

    def gone(self) -> None:
        self.now -= 1

    def reset(self) -> None:
        gc.collect()
        self.most = self.now


@pytest.fixture
def alive(monkeypatch: pytest.MonkeyPatch) -> Iterator[Alive]:
    counter = Alive()
    made = StudentResult.__post_init__

    def counted(self: StudentResult) -> None:
        made(self)
        counter.born()
        weakref.finalize(self, counter.gone)

    monkeypatch.setattr(StudentResult, "__post_init__", counted)
    yield counter


@pytest.fixture
def course(tmp_path: Path) -> LoadedCourse:
    root = Path(shutil.copytree(COURSE, tmp_path / "course"))
    (root / "roster.csv").write_text(
        "student\n" + "".join(f"s{i:03d}\n" for i in range(CLASS)) + "late-comer\n",
        encoding="utf-8",
    )
    engine = gradebook.open_gradebook(gradebook.default_url(root))
    gradebook.record_all(engine, "tiny", "ps1", [_graded(s) for s in _class()])
    gradebook.record_all(engine, "tiny", "ps2", [_graded(s) for s in _class()])
    return load_course(root / "course.yml")


def _class() -> Iterator[StudentResult]:
    """The report tests' class, each student copied under new ids, ``CLASS`` in all."""
    students = class_document().students
    for i in range(CLASS):
        yield replace(students[i % len(students)], student=f"s{i:03d}")


def _graded(result: StudentResult) -> gradebook.Graded:
    return gradebook.Graded(result, "k", None, None, None, "2.13.0", "plain")


def _results(loaded: LoadedCourse, assignment: str = "ps1") -> ClassResults:
    url = gradebook.default_url(loaded.root)
    return on_roster(
        gradebook.class_results(url, "tiny", assignment), load_roster(loaded.root / "roster.csv")
    )


def _outputs(loaded: LoadedCourse, out: Path) -> None:
    write_outputs(_results(loaded), out, loaded)


def _feedback(loaded: LoadedCourse, out: Path) -> None:
    write_feedback(loaded, "ps1", gradebook.default_url(loaded.root), out)


def _report(loaded: LoadedCourse, out: Path) -> None:
    write_assignment(_results(loaded), course_info(loaded), out / "report.html", out / "csv")


def _course_summary(loaded: LoadedCourse, out: Path) -> None:
    classes = [_results(loaded, "ps1"), _results(loaded, "ps2")]
    write_course(classes, course_info(loaded), out / "course.html", out / "csv")


def _export(loaded: LoadedCourse, out: Path) -> None:
    for fmt in ("canvas", "moodle", "csv"):
        done = export_assignment(loaded, "ps1", ExportRequest(fmt))
        write_atomic(out / f"{fmt}.csv", done.lines())


def _summary(loaded: LoadedCourse, out: Path) -> None:
    present = frozenset(f"s{i:03d}" for i in range(CLASS))
    summarize(_results(loaded), RunTally(present, 0, CLASS, (), CLASS, (), ()), (out, ""), False)


OUTPUTS: dict[str, Callable[[LoadedCourse, Path], None]] = {
    "results-csv-junit-gradescope": _outputs,
    "feedback-pages": _feedback,
    "class-report": _report,
    "course-summary": _course_summary,
    "lms-exports": _export,
    "batch-summary": _summary,
}


@pytest.mark.parametrize("write", OUTPUTS.values(), ids=OUTPUTS.keys())
def test_an_output_holds_a_few_students_at_a_time(
    write: Callable[[LoadedCourse, Path], None], course: LoadedCourse, alive: Alive, tmp_path: Path
) -> None:
    alive.reset()
    write(course, tmp_path / "out")
    assert alive.most - alive.now <= AT_ONCE < CLASS


def test_the_outputs_list_every_student_in_code_point_order(
    course: LoadedCourse, tmp_path: Path
) -> None:
    _outputs(course, tmp_path)
    doc = ResultsDocument.parse((tmp_path / "results.json").read_bytes())
    names = [s.student for s in doc.students]
    assert names == sorted({f"s{i:03d}" for i in range(CLASS)} | {"late-comer"})
    assert len(list((tmp_path / "gradescope").iterdir())) == CLASS  # the missing one has none
    rows = (tmp_path / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == names


def test_a_streamed_class_writes_what_the_document_in_memory_says(
    course: LoadedCourse, tmp_path: Path
) -> None:
    results = _results(course)
    _outputs(course, tmp_path)
    assert json.loads((tmp_path / "results.json").read_text()) == json.loads(
        results.document().dumps()
    )
