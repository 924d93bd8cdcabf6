"""Shared fixtures: the repository's course, the `--update-goldens` switch, and gradebooks
on SQLite and on a throwaway PostgreSQL server; the marks of what a test starts
(``what_starts``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_server import PostgresServer, find_bin
from what_starts import starts

# The built-in kinds registered, as every entry point does before it reads a course (the
# course layer imports no kind: ``course.kinds``): tests call ``course.load`` directly.
import graders.kinds.registry  # noqa: F401, E402

pytest_plugins = ("pytester", "warm_sandbox")

REPO = Path(__file__).resolve().parent.parent
COURSE_FILE = REPO / "course.yml"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens", action="store_true", help="rewrite golden files from the current output"
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture(scope="session")
def course_file() -> Path:
    """The course bundled with the repository."""
    return COURSE_FILE


@pytest.fixture(scope="session")
@starts("postgres")
def postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test session, in a temporary folder (skipped only where
    PostgreSQL is not installed: `.ci/run` installs it)."""
    bin_dir = find_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed (no initdb and pg_ctl found)")
    server = PostgresServer(bin_dir).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def gradebook_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty gradebook: a SQLite file, then a database on the PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'gradebook.db'}"
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.new_database()
