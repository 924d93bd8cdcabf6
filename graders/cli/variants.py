"""``graders variant``: which variant of an exercise a learner gets, and its values."""

from __future__ import annotations

import json
from pathlib import Path

import click

from . import course_option, main


@main.command()
@click.argument("student")
@click.argument("exercise")
@course_option
@click.option("--json", "as_json", is_flag=True, help="Print the variants as JSON.")
def variant(student: str, exercise: str, course: Path | None, as_json: bool) -> None:
    """Print the variant STUDENT gets of EXERCISE (or of each exercise of an assignment).

    The variant is derived from the course seed, the exercise id and STUDENT, the id the
    grader knows the learner by (their submission folder's name): nothing the learner
    hands in decides it.
    """
    from ..course.params import describe
    from ..course.variants import assigned
    from ..workspace import load

    found = assigned(load(course), student, exercise)
    if as_json:
        click.echo(json.dumps([a.to_json() for a in found], indent=2, ensure_ascii=False))
        return
    for a in found:
        if a.variant is None:
            click.echo(f"{student} · {a.exercise}: no parameters (the same for every learner)")
        else:
            shown = describe(a.variant.values)
            click.echo(
                f"{student} · {a.exercise}: variant {a.variant.number} of {a.count} ({shown})"
            )
