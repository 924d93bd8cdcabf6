"""Options shared by the commands that grade a class (``autograde``, ``regrade``, ``serve``)."""

from __future__ import annotations

from pathlib import Path

import click

db_option = click.option(
    "--db",
    "db_url",
    default=None,
    envvar="GRADERS_DB",  # one setting for every command of a term run on one database
    metavar="URL",
    help="SQLAlchemy URL of the gradebook (or $GRADERS_DB); default: "
    "sqlite:///<course folder>/gradebook.db.",
)
times_option = click.option(
    "--times",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="CSV with the columns student,submitted_at (as an LMS exports it): each student's "
    "submission time. It comes first; nbgrader's timestamp.txt counts only in nbgrader's own "
    "layout, and a time file in a learner's own folder never counts.",
)
layout_option = click.option(
    "--layout",
    type=click.Choice(["auto", "nbgrader", "flat", "lms"]),
    default="auto",
    show_default=True,
    help="How SUBMISSIONS is laid out. auto: by its structure, never by a name: nbgrader's "
    "when every student folder holds only assignment folders each with its timestamp.txt "
    "(or SUBMISSIONS holds a submitted/ folder laid out so, and no submission beside it); "
    "else student folders and LMS download files. nbgrader: nbgrader's submitted/ (or its "
    "course root), whose timestamp.txt is trusted, also in a .zip; flat: "
    "<student>/<assignment>.ipynb folders only; lms: an LMS bulk download's files only.",
)
cluster_option = click.option(
    "--cluster",
    metavar="ADDRESS",
    default=None,
    help="Grade on a Dask cluster: its scheduler's address (tcp://HOST:8786), or local:N for "
    "N worker processes here. Workers only grade: the gradebook is written where the command "
    "runs.",
)
