"""Shared fixtures: the repository's course, and the `--update-goldens` switch."""

from __future__ import annotations

from pathlib import Path

import pytest

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
