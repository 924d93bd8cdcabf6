"""The ``--roster`` option shared by the commands that hold grades against a class list."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .batch_output import printable

if TYPE_CHECKING:
    from ..intake.roster import Roster

roster_option = click.option(
    "--roster",
    "roster_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The class roster, a CSV file with a 'student' column (and name, email, section, "
    "sis_user_id, sis_login_id, lms_id, language, and accommodations: extra_hours, time_factor, "
    "extra_attempts); default: roster.csv beside course.yml, when there.",
)


def warn_roster(roster: Roster | None) -> None:
    """Say the roster's warnings (ids that look alike), each at its place."""
    for warning in roster.warnings if roster is not None else ():
        click.echo(printable(str(warning)), err=True)
