"""The gradebook: one row per student, replaced atomically, read back as the results document."""

from __future__ import annotations

import sqlite3
import stat
import threading
from contextlib import closing
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from gradebook_rows import graded, result
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from graders.errors import UsageError
from graders.gradebook import databases as gradebook_databases
from graders.gradebook import store as gradebook
from graders.results import StudentResult, SubmissionStatus

COURSE, ASSIGNMENT = "autograd-semantics", "ps1"


@pytest.fixture
def engine(gradebook_url: str):
    """Each test runs on SQLite and on PostgreSQL."""
    return gradebook.open_gradebook(gradebook_url)


def count(engine, row_type) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count()).select_from(row_type))


def test_the_document_read_back_holds_the_result_as_saved(engine) -> None:
    res = result(wrong=True, late=0.8)
    gradebook.record(engine, COURSE, ASSIGNMENT, graded(res))
    doc = gradebook.results_document(engine, COURSE, ASSIGNMENT)
    (student,) = doc.students
    assert (
        replace(student, graded_at=None) == res
    )  # sections, misconceptions and late factor included
    assert student.graded_at is not None
    assert (doc.course, doc.torch_version, doc.isolation) == (COURSE, "2.13.0", "plain")


def test_record_replaces_the_students_grade(engine) -> None:
    gradebook.record(engine, COURSE, ASSIGNMENT, graded(result(wrong=True), key="old"))
    gradebook.record(engine, COURSE, ASSIGNMENT, graded(result(), key="new"))
    assert count(engine, gradebook.SubmissionRow) == 1
    assert gradebook.grading_keys(engine, COURSE, ASSIGNMENT) == {"ada": "new"}
    assert gradebook.results_document(engine, COURSE, ASSIGNMENT).students[0].score == 3.0


def test_a_failed_write_keeps_the_previous_grade(engine, monkeypatch: pytest.MonkeyPatch) -> None:
    gradebook.record(engine, COURSE, ASSIGNMENT, graded(result(), key="old"))

    def broken(*args):
        raise OSError("disk full")  # after the old grade was deleted, inside the transaction

    monkeypatch.setattr(gradebook, "submission_row", broken)
    with pytest.raises(OSError):
        gradebook.record(engine, COURSE, ASSIGNMENT, graded(result(wrong=True), key="new"))
    assert gradebook.grading_keys(engine, COURSE, ASSIGNMENT) == {"ada": "old"}
    assert gradebook.results_document(engine, COURSE, ASSIGNMENT).students[0].score == 3.0


def test_retry_rows_have_no_key_so_they_are_graded_again(engine) -> None:
    failed = StudentResult(
        "bob", (), SubmissionStatus.UNGRADABLE, "internal error while grading: boom"
    )
    gradebook.record(engine, COURSE, ASSIGNMENT, graded(failed, key="k", retry=True))
    gradebook.record(engine, COURSE, ASSIGNMENT, graded(result("ada"), key="k"))
    assert gradebook.grading_keys(engine, COURSE, ASSIGNMENT) == {"bob": None, "ada": "k"}


def test_assignments_and_courses_are_kept_apart(engine) -> None:
    gradebook.record(engine, COURSE, "ps1", graded(result()))
    gradebook.record(engine, COURSE, "ps2", graded(result(wrong=True)))
    gradebook.record(engine, "other-course", "ps1", graded(result(wrong=True)))
    assert gradebook.results_document(engine, COURSE, "ps1").students[0].score == 3.0
    assert gradebook.grading_keys(engine, COURSE, "ps2") == {"ada": "k1"}
    assert count(engine, gradebook.SubmissionRow) == 3


def test_submission_time_keeps_its_instant(engine) -> None:
    when = datetime(2026, 10, 5, 23, 30, tzinfo=timezone(timedelta(hours=2)))
    gradebook.record(engine, COURSE, ASSIGNMENT, graded(result(), submitted_at=when))
    stored = gradebook.results_document(engine, COURSE, ASSIGNMENT).students[0].submitted_at
    assert stored is not None and datetime.fromisoformat(stored) == when


def test_runs_record_how_they_ended(engine) -> None:
    first = gradebook.start_run(engine, COURSE, ASSIGNMENT, "2.13.0", "plain")
    second = gradebook.start_run(engine, COURSE, ASSIGNMENT, "2.13.0", "plain")
    gradebook.finish_run(engine, second, "finished", graded=3, skipped=1, ungradable=1)
    with Session(engine) as session:
        runs = {r.id: r for r in session.scalars(select(gradebook.RunRow))}
    assert runs[first].outcome == "running" and runs[first].finished_at is None
    assert (runs[second].outcome, runs[second].graded, runs[second].skipped) == ("finished", 3, 1)


def test_an_empty_gradebook_gives_an_empty_document(engine) -> None:
    doc = gradebook.results_document(engine, COURSE, ASSIGNMENT)
    assert doc.students == () and doc.graded_at is None


def test_default_database_is_private_and_persistent(tmp_path: Path) -> None:
    url = gradebook.default_url(tmp_path)
    gradebook.record(gradebook.open_gradebook(url), COURSE, ASSIGNMENT, graded(result()))
    assert stat.S_IMODE((tmp_path / "gradebook.db").stat().st_mode) == 0o600
    assert gradebook.results_document(url, COURSE, ASSIGNMENT).students[0].student == "ada"


def test_a_new_gradebook_file_is_born_in_wal_mode_with_no_leftovers(tmp_path: Path) -> None:
    # Several batches opening a new gradebook at once must not race to switch its journal.
    gradebook_databases.engine_for(gradebook.default_url(tmp_path))
    with closing(sqlite3.connect(tmp_path / "gradebook.db")) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert [p.name for p in tmp_path.iterdir()] == ["gradebook.db"]


def set_up_at_once(path: Path, start: threading.Barrier, failures: list[Exception]) -> None:
    # What the engine does on each new connection, with the file already open, all at once.
    with closing(sqlite3.connect(path)) as raw:
        start.wait()
        try:
            gradebook_databases._sqlite_pragmas(raw, None)
        except sqlite3.OperationalError as exc:
            failures.append(exc)


def test_batches_opening_an_old_gradebook_at_once_all_get_in(tmp_path: Path) -> None:
    # A file made in the rollback journal (as gradebooks were before they were born in WAL):
    # batches connecting together all ask for WAL, a switch SQLite's busy timeout does not
    # wait for. Each must get in; before the switch was retried, some lost the race.
    for attempt in range(40):
        path = tmp_path / f"old-{attempt}.db"
        path.touch()
        start, failures = threading.Barrier(6), []
        threads = [
            threading.Thread(target=set_up_at_once, args=(path, start, failures)) for _ in range(6)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        with closing(sqlite3.connect(path)) as raw:
            assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_reading_a_missing_default_gradebook_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="graders autograde"):
        gradebook.existing_url(None, tmp_path)
    assert gradebook.existing_url("sqlite:///elsewhere.db", tmp_path) == "sqlite:///elsewhere.db"


def test_printed_urls_hide_passwords() -> None:
    assert "s3cret" not in gradebook_databases.shown_url(
        "postgresql://grader:s3cret@db.example/grades"
    )


def test_a_class_is_read_in_code_point_order_in_chunks_whatever_the_database_collation(
    engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A locale's collation puts "alice" before "Bob" and "Émile" among the Es; code point
    # order does not, and every output follows it. Chunks smaller than the class make each
    # pass read the database several times.
    monkeypatch.setattr(gradebook, "READ_CHUNK", 2)
    names = ["bob", "Émile", "alice", "Bob", "zoë", "Zed", "eve"]
    gradebook.record_all(engine, COURSE, ASSIGNMENT, [graded(result(n)) for n in names])
    results = gradebook.class_results(engine, COURSE, ASSIGNMENT)
    assert [s.student for s in results.students()] == sorted(names)
    assert [n for n, _ in results.names()] == sorted(names) and results.count == len(names)
    assert [s.student for s in results.students()] == sorted(names)  # a second pass alike
