"""``graders report``: the class report of an assignment, or the course summary."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import course_option, lang_option, main
from .batch_options import db_option

if TYPE_CHECKING:
    from ..results import ClassResults


@main.command()
@click.argument("assignment", required=False)
@course_option
@db_option
@click.option(
    "--results",
    "results_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read results documents saved by `graders grade --json` instead of the gradebook "
    "(repeatable).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The HTML file; default: autograded/ASSIGNMENT/report.html (autograded/report.html "
    "without ASSIGNMENT).",
)
@click.option(
    "--csv",
    "csv_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write the report's tables as CSV files into this folder.",
)
@lang_option
def report(
    assignment: str | None,
    course: Path | None,
    db_url: str | None,
    results_files: tuple[Path, ...],
    out: Path | None,
    csv_dir: Path | None,
    lang: str | None,
) -> None:
    """Write the class report of ASSIGNMENT as one self-contained HTML file.

    Without ASSIGNMENT, summarise every graded assignment of the course (ps1, ps2, ...).
    The page loads nothing from the network; it reads the same offline and on a phone.
    """
    from ..course.loaded import get_assignment
    from ..i18n import speaking
    from ..reports.build import (
        by_term,
        default_out,
        earlier_term_results,
        file_results,
        gradebook_results,
        pick,
        write_assignment,
        write_course,
    )
    from ..reports.course_info import course_info
    from ..workspace import load

    loaded = load(course)
    language = loaded.language(lang)
    ids = (
        [get_assignment(loaded, assignment).id]
        if assignment
        else [a.id for a in loaded.course.assignments]
    )
    earlier: list[tuple[str, list[ClassResults]]] = []
    if results_files:
        past_ids = [t.id for t in loaded.course.earlier_terms]
        every = file_results(results_files, loaded.course.id, loaded.renamed, past_ids)
        docs, earlier = by_term(loaded, every)
        where = "the results files"
    else:
        from ..gradebook.databases import shown_url
        from ..gradebook.store import existing_url

        url = existing_url(db_url, loaded.root)
        docs, where = gradebook_results(loaded, url, ids), f"the gradebook {shown_url(url)}"
        if not assignment:
            earlier = earlier_term_results(loaded, url, ids)
    target = out or default_out(loaded, assignment)
    with speaking(language):  # the course's texts and the report's own words
        info = course_info(loaded.in_language(language))
        if assignment:
            written = write_assignment(pick(docs, assignment, where), info, target, csv_dir)
        else:
            written = write_course(
                [d for d in docs if d.assignment in ids], info, target, csv_dir, earlier
            )
    for path in written:
        click.echo(f"wrote {path}")
