"""Where class reports get their results and where they go.

Results come from the gradebook (``gradebook.class_results``, read a student at a time) or
from results documents saved by ``graders grade --json``; the course files add sections,
prompts and misconception explanations. Reports are written to ``autograded/`` in the
course folder unless told otherwise, as they are made.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

from ..course.loaded import LoadedCourse
from ..errors import UsageError
from ..exports.results_files import OUT_DIR
from ..results import ClassResults, ResultsDocument
from .course_info import CourseInfo
from .csvtables import write_assignment_csv, write_course_csv
from .model import assignment_report
from .render import assignment_pieces, render_course, write_page
from .summary import course_summary

REPORT_FILE = "report.html"


def default_out(loaded: LoadedCourse, assignment: str | None) -> Path:
    """``autograded/<assignment>/report.html``, or ``autograded/report.html`` for the course."""
    folder = loaded.root / OUT_DIR
    return (folder / assignment if assignment else folder) / REPORT_FILE


def gradebook_results(
    loaded: LoadedCourse, db_url: str, assignments: Iterable[str]
) -> list[ClassResults]:
    """The results of ``assignments`` as the gradebook holds them; those with no submission
    yet are left out."""
    from ..gradebook.store import class_results, open_gradebook

    engine = open_gradebook(db_url)
    found = [class_results(engine, loaded.course.id, a, loaded.renamed) for a in assignments]
    return [r for r in found if r.count]


def earlier_term_results(
    loaded: LoadedCourse, db_url: str, assignments: Iterable[str]
) -> list[tuple[str, list[ClassResults]]]:
    """The same assignments in each of the course's earlier terms (``earlier_terms``), as
    the gradebook holds them under that term's course id: (term name, results)."""
    from ..gradebook.store import class_results, open_gradebook

    if not loaded.course.earlier_terms:
        return []
    engine = open_gradebook(db_url)
    ids = list(assignments)
    found = []
    for past in loaded.course.earlier_terms:
        results = [class_results(engine, past.id, a, loaded.renamed) for a in ids]
        found.append((past.term, [r for r in results if r.count]))
    return found


def file_results(
    paths: Iterable[Path],
    course_id: str,
    renamed: Mapping[str, str] | None = None,
    earlier_ids: Collection[str] = (),
) -> list[ClassResults]:
    """Results documents read from JSON files (``graders grade --json > FILE``), each question
    under its id today (``renamed``: the course's former ids -> ids now); a document of an
    earlier term's course (``earlier_ids``) is read too, for the course summary to compare."""
    paths = list(paths)
    docs = [_read_document(p).renamed(renamed or {}) for p in paths]
    for path, doc in zip(paths, docs, strict=True):
        if doc.course != course_id and doc.course not in earlier_ids:
            raise UsageError(f"{path}: results of course '{doc.course}', not of '{course_id}'")
    return [ClassResults.of(doc) for doc in docs]


def by_term(
    loaded: LoadedCourse, docs: list[ClassResults]
) -> tuple[list[ClassResults], list[tuple[str, list[ClassResults]]]]:
    """``docs`` split into this term's and each earlier term's (name, results), by course id."""
    earlier = [
        (past.term, [d for d in docs if d.course == past.id])
        for past in loaded.course.earlier_terms
    ]
    return [d for d in docs if d.course == loaded.course.id], [e for e in earlier if e[1]]


def pick(docs: list[ClassResults], assignment: str, where: str) -> ClassResults:
    """The results of ``assignment``, or a usage error saying nothing is graded yet."""
    found = [d for d in docs if d.assignment == assignment]
    if not found:
        raise UsageError(
            f"nothing graded for {assignment} in {where} yet (run `graders autograde {assignment} "
            "...` first)"
        )
    if len(found) > 1:
        raise UsageError(f"{where} holds {len(found)} results documents of {assignment}; give one")
    return found[0]


def write_assignment(
    results: ClassResults, info: CourseInfo, out: Path, csv_dir: Path | None = None
) -> list[Path]:
    """Write the class report of one assignment (and its CSV tables); return the paths."""
    report = assignment_report(results, info)
    written = [write_page(assignment_pieces(report), out)]
    return written + (write_assignment_csv(report, csv_dir) if csv_dir else [])


def write_course(
    docs: list[ClassResults],
    info: CourseInfo,
    out: Path,
    csv_dir: Path | None = None,
    earlier: Sequence[tuple[str, Sequence[ClassResults]]] = (),
) -> list[Path]:
    """Write the course summary over ``docs`` (and its CSV tables), compared with the
    earlier terms' results ``earlier`` (term name, results); return the paths."""
    if not docs:
        raise UsageError(
            "no assignment has been graded yet (run `graders autograde ASSIGNMENT ...` first)"
        )
    summary = course_summary(docs, info, earlier)
    # Link each assignment to its own report when one sits where `graders report ASSIGNMENT` puts
    # it.
    links = {
        a.id: f"{a.id}/{REPORT_FILE}"
        for a in summary.assignments
        if (out.parent / a.id / REPORT_FILE).is_file()
    }
    written = [write_page(render_course(summary, links), out)]
    return written + (write_course_csv(summary, csv_dir) if csv_dir else [])


def _read_document(path: Path) -> ResultsDocument:
    # Parsed once, here where it enters: everything after reads the typed document.
    try:
        return ResultsDocument.parse(path.read_bytes())
    except OSError as exc:
        raise UsageError(f"{path}: not a results document ({exc})") from None
    except ValueError as exc:
        raise UsageError(
            f"{path}: not a results document (expected the JSON of `graders grade --json`): {exc}"
        ) from None
