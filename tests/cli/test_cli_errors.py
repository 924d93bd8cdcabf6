"""The one place that turns user errors into a message and an exit code, and lets bugs show."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from graders import validate
from graders.cli import main
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


def test_a_bug_exits_3_with_its_traceback_and_a_request_to_report_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(validate, "validate_course", fail)
    result = CliRunner().invoke(main, ["validate"])
    assert result.exit_code == 3
    assert "Traceback (most recent call last)" in result.stderr
    assert "KeyError: 'a bug'" in result.stderr and "in fail" in result.stderr
    assert "this is a bug in graders" in result.stderr and "please report it" in result.stderr


def test_a_click_usage_error_still_exits_2() -> None:
    result = CliRunner().invoke(main, ["validate", "--no-such-option"])
    assert result.exit_code == 2 and "No such option" in result.stderr


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        found.append((*path, name))
        if isinstance(command, click.Group):
            found += _commands(command, (*path, name))
    return found


@pytest.mark.parametrize("command", _commands(main), ids=" ".join)
def test_every_command_s_help_is_help_not_a_bug(command: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: ") and "internal error" not in result.output
