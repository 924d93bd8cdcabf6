"""The one place that turns user errors into a message and an exit code, and lets bugs show."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from graders.cli import main
from graders.course import validate
from graders.errors import UsageError
from graders.sandbox import SandboxError


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(UsageError("no assignment 'ps9'"), id="graders"),
        pytest.param(SandboxError("bubblewrap cannot start here"), id="sandbox"),
    ],
)
def test_a_user_error_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(validate, "validate_course", fail)
    result = CliRunner().invoke(main, ["validate"])
    assert (result.exit_code, result.output) == (2, f"error: {error}\n")


def test_a_bug_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(validate, "validate_course", fail)
    result = CliRunner().invoke(main, ["validate"])
    assert isinstance(result.exception, KeyError) and "error:" not in result.output
