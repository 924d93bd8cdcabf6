"""The gradebook's schema revisions (Alembic), on SQLite and PostgreSQL: new gradebooks are
stamped, old ones recognised, an older revision refused until ``graders db upgrade``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, insert, inspect, text

from graders.errors import UsageError
from graders.gradebook import databases as gradebook_databases
from graders.gradebook import revisions as gradebook_schema
from graders.gradebook import store as gradebook
from graders.gradebook.tables import Base, RunRow, SubmissionRow
from graders.results import QuestionResult, ResultsDocument, Status, StudentResult
from graders.said import render

SCHEMA_1 = Path(__file__).parent.parent / "data" / "results-schema-1.json"
NEWEST = "0009"  # this graders' revision: the internal status
ADD_A_COLUMN = '''"""A column added after 0009 (a test's own revision)."""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("runs", sa.Column("note", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("runs", "note")
'''


def revision_of(url: str) -> str | None:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def _ada() -> gradebook.Graded:
    result = StudentResult("ada", (QuestionResult("ex/q", Status.CORRECT, 1.0, 1.0, "1", "1", ""),))
    return gradebook.Graded(result, "k", None, None, None, "2.13.0", None)


def _ada_row() -> dict:
    graded = _ada()
    return gradebook.submission_row("course", "ps1", graded) | gradebook.score_columns(
        graded.result
    )


def save_ada(engine) -> None:
    gradebook.record(engine, "course", "ps1", _ada())


def graders(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graders", *args], capture_output=True, text=True, timeout=120
    )


def test_a_new_gradebook_has_the_newest_revision(gradebook_url: str) -> None:
    gradebook.open_gradebook(gradebook_url)
    assert revision_of(gradebook_url) == gradebook_schema.head() == NEWEST


@pytest.mark.command
def test_the_migrations_build_exactly_the_tables_graders_uses(gradebook_url: str) -> None:
    done = graders("db", "upgrade", "--db", gradebook_url)
    assert done.returncode == 0, done.stderr
    assert f"created at revision {NEWEST}" in done.stdout
    engine = create_engine(gradebook_url)
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    save_ada(gradebook.open_gradebook(gradebook_url))
    again = graders("db", "upgrade", "--db", gradebook_url)
    assert f"revision {NEWEST}, up to date" in again.stdout


def test_a_gradebook_made_before_migrations_is_taken_as_the_first_revision(
    gradebook_url: str,
) -> None:
    engine = create_engine(gradebook_url)
    # What the first versions of graders made: two tables, no revision.
    Base.metadata.create_all(engine, tables=[RunRow.__table__, SubmissionRow.__table__])
    with engine.begin() as conn:  # a grade as they saved it
        conn.execute(insert(SubmissionRow), _ada_row())
    # Taken as 0001, which is older than this graders': refused (and left as it was) until
    # upgraded, which takes it from 0001 (the term's tables created) to the newest.
    with pytest.raises(UsageError, match=f"has revision 0001; this graders needs {NEWEST}"):
        gradebook.open_gradebook(gradebook_url)
    assert revision_of(gradebook_url) is None
    assert gradebook_databases.upgrade(gradebook_url) == ("0001", NEWEST)
    opened = gradebook.open_gradebook(gradebook_url)
    assert set(inspect(opened).get_table_names()) >= set(Base.metadata.tables)  # term's too
    assert [s.student for s in gradebook.results_document(opened, "course", "ps1").students] == [
        "ada"
    ]


def test_an_older_revision_is_refused_until_upgraded_and_keeps_its_grades(
    gradebook_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_ada(gradebook.open_gradebook(gradebook_url))  # at the newest
    newer = tmp_path / "migrations"
    shutil.copytree(gradebook_schema.MIGRATIONS, newer)
    (newer / "versions" / "rev_0010_add_a_column.py").write_text(ADD_A_COLUMN)
    monkeypatch.setattr(gradebook_schema, "MIGRATIONS", newer)
    monkeypatch.setattr(gradebook_schema, "scripts", lambda: ScriptDirectory(str(newer)))

    with pytest.raises(
        UsageError, match=f"has revision {NEWEST}; this graders needs 0010: run `graders db upgrade"
    ):
        gradebook.open_gradebook(gradebook_url)
    assert gradebook_databases.upgrade(gradebook_url) == (NEWEST, "0010")
    engine = gradebook.open_gradebook(gradebook_url)
    assert "note" in {c["name"] for c in inspect(engine).get_columns("runs")}
    assert gradebook.grading_keys(engine, "course", "ps1") == {"ada": "k"}


def test_typed_messages_cannot_be_undone_and_say_what_to_do(gradebook_url: str) -> None:
    save_ada(gradebook.open_gradebook(gradebook_url))  # past 0004
    engine = create_engine(gradebook_url)
    with pytest.raises(
        UsageError, match="0004 cannot be undone .*restore the copy of the database"
    ):
        with engine.begin() as conn:  # as Alembic's own `downgrade` would run it
            config = Config()
            config.set_main_option("script_location", str(gradebook_schema.MIGRATIONS))
            config.attributes["connection"] = conn
            command.downgrade(config, "0003")
    engine.dispose()
    assert revision_of(gradebook_url) == NEWEST
    assert gradebook.grading_keys(gradebook.open_gradebook(gradebook_url), "course", "ps1") == {
        "ada": "k"
    }


def test_a_revision_of_a_newer_graders_is_refused(gradebook_url: str) -> None:
    gradebook.open_gradebook(gradebook_url)
    engine = create_engine(gradebook_url)
    with engine.begin() as conn:
        conn.execute(text("update alembic_version set version_num = '0999'"))
    with pytest.raises(UsageError, match="revision 0999, which this graders does not know"):
        gradebook.open_gradebook(gradebook_url)


def test_grades_saved_before_typed_messages_are_upgraded_with_the_gradebook(
    gradebook_url: str,
) -> None:
    # A gradebook at 0002 holding grades as schema 1 of the results document wrote them
    # (tests/data/results-schema-1.json: strings, with graders' sentences in Chinese beside).
    engine = create_engine(gradebook_url)
    with engine.begin() as conn:
        gradebook_schema.current(conn)
        gradebook_schema._migrate(conn, "0002")  # noqa: SLF001 - an older graders' gradebook
    old = json.loads(SCHEMA_1.read_text(encoding="utf-8"))["students"]
    with engine.begin() as conn:
        for student in old:
            row = _ada_row() | {"student": student["student"], "result_json": json.dumps(student)}
            conn.execute(insert(SubmissionRow), row)
    engine.dispose()
    with pytest.raises(UsageError, match=f"has revision 0002; this graders needs {NEWEST}"):
        gradebook.open_gradebook(gradebook_url)

    assert gradebook_databases.upgrade(gradebook_url) == ("0002", NEWEST)
    doc = gradebook.results_document(gradebook.open_gradebook(gradebook_url), "course", "ps1")
    ada, bob = doc.students
    unread = next(q for q in ada.questions if q.status is Status.INVALID)
    assert render(unread.feedback, "zh").startswith("无法读取这个答案")
    assert render(unread.feedback, "en").startswith("Could not read this answer")
    assert "YAML 无效" in render(bob.error, "zh")
    assert json.loads(doc.dumps()) == json.loads(ResultsDocument.parse(doc.dumps()).dumps())
