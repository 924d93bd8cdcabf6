"""The ``graders`` command: a thin layer that parses arguments and calls the library.

Each ``cli/<area>.py`` module adds its commands to ``main``. This is the one place that
turns a user error (``errors.user_errors``) into a one-line message and an exit code;
anything else is a bug and shows its traceback.
"""

from __future__ import annotations

import sys
from importlib import import_module
from pathlib import Path
from typing import Any

import click

from ..errors import ExitCode, user_errors

COMMAND_MODULES = ("course", "grading", "autograde", "notebooks", "report", "ci", "db")


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            if not isinstance(exc, user_errors()):
                raise  # a bug: its traceback is what a report needs
            click.echo(f"error: {exc}" if "\n" not in str(exc) else str(exc), err=True)
            sys.exit(int(getattr(exc, "exit_code", ExitCode.USAGE)))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="graders")
def main() -> None:
    """Grade a course on PyTorch autograd semantics: validate, release, grade, report."""


course_option = click.option(
    "--course",
    "course",
    type=click.Path(path_type=Path),
    default=None,
    help="course.yml (or its folder); default: the current folder's.",
)
isolation_option = click.option(
    "--isolation",
    default="auto",
    show_default=True,
    type=click.Choice(["auto", "bubblewrap", "unshare", "plain", "unsafe"]),
    help="How learner code is isolated; 'auto' takes the strongest this machine offers.",
)


def exit_with(code: ExitCode) -> None:
    """Leave with ``code`` unless it is OK."""
    if code != ExitCode.OK:
        sys.exit(int(code))


for _module in COMMAND_MODULES:
    import_module(f"{__name__}.{_module}")
