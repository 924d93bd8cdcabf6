"""Commands about the course itself: validate, schema, key."""

from __future__ import annotations

import json
from pathlib import Path

import click

from . import course_option, isolation_option, main


@main.command()
@course_option
@click.option("--no-truth", is_flag=True, help="Check the files only; do not run torch.")
@isolation_option
def validate(course: Path | None, no_truth: bool, isolation: str) -> None:
    """Check course.yml and every exercise; report every problem as path:line:column."""
    from ..validate import validate_course

    click.echo(str(validate_course(course, truth=not no_truth, isolation=isolation)))


@main.command()
def schema() -> None:
    """Print the JSON Schema of exercise files (for editors)."""
    from ..kinds.exercise_schema import exercise_schema

    click.echo(json.dumps(exercise_schema(), indent=2, ensure_ascii=False))


@main.command()
@click.argument("assignment")
@course_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print {item: answer} as JSON, usable as an answers file's 'answers'.",
)
@click.option(
    "--student", default=None, help="The key of this learner's variants (default: the base)."
)
@isolation_option
def key(
    assignment: str, course: Path | None, as_json: bool, student: str | None, isolation: str
) -> None:
    """Print the answer key of ASSIGNMENT, computed by running torch."""
    from ..grading.pipeline import answer_key, for_learner, prepare_assignment
    from ..workspace import open_workspace
    from .tables import key_table, print_table

    with open_workspace(course, isolation=isolation) as session:
        prep = prepare_assignment(session.loaded, assignment, session.ctx)
        answers = answer_key(for_learner(prep, student) if student else prep)
    if as_json:
        click.echo(json.dumps(answers, indent=2, ensure_ascii=False))
    else:
        print_table(key_table(answers))


@main.command()
@course_option
@click.option(
    "--json", "as_json", is_flag=True, help="Print what the course holds and the drift as JSON."
)
@click.option(
    "--markdown",
    is_flag=True,
    help="Print only what the course holds, as the README describes it (no torch run).",
)
@isolation_option
def audit(course: Path | None, as_json: bool, markdown: bool, isolation: str) -> None:
    """What the course holds, and what the article printed against what today's torch gives."""
    from ..course.contents import course_contents
    from ..course.contents import markdown as contents_markdown
    from ..grading.prepare import prepare_exercises
    from ..grading.torch_side import torch_version
    from ..kinds.predict.audit import audit_course
    from ..workspace import load, open_workspace
    from .tables import contents_table, drift_table, print_table

    if markdown:
        click.echo(contents_markdown(course_contents(load(course))), nl=False)
        return
    with open_workspace(course, isolation=isolation) as session:
        truths = prepare_exercises(session.loaded, session.loaded.exercises, session.ctx)
    contents = course_contents(session.loaded)
    drifts = audit_course(session.loaded, truths)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "torch_version": torch_version(),
                    "course": contents.to_json(),
                    "drift": [d.to_json() for d in drifts],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        print_table(contents_table(contents))
        print_table(drift_table(drifts, torch_version()))
