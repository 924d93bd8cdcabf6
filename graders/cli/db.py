"""``graders db upgrade``: the gradebook's tables migrated to this version of graders."""

from __future__ import annotations

from pathlib import Path

import click

from . import course_option, main
from .batch_options import db_option


@main.group()
def db() -> None:
    """The gradebook's tables (after upgrading graders: `graders db upgrade`)."""


@db.command()
@course_option
@db_option
def upgrade(course: Path | None, db_url: str | None) -> None:
    """Migrate the gradebook to the tables this graders uses; nothing to do when it has them.

    A gradebook made by an older graders is refused by every command until this has run.
    """
    from ..gradebook import store as gradebook
    from ..gradebook.databases import shown_url
    from ..gradebook.databases import upgrade as migrate
    from ..workspace import load

    url = db_url or gradebook.existing_url(None, load(course).root)
    before, after = migrate(url)
    shown = shown_url(url)
    if before == after:
        click.echo(f"{shown}: revision {after}, up to date")
    elif before is None:
        click.echo(f"{shown}: created at revision {after}")
    else:
        click.echo(f"{shown}: upgraded from revision {before} to {after}")
