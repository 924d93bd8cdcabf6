"""``graders lti``: the LMSs a course trusts (LTI 1.3), the tool's keys, and sending
grades and reading rosters by the LMS's services."""

from __future__ import annotations

import json
from pathlib import Path

import click

from . import course_option, main
from .batch_options import db_option


@main.group()
def lti() -> None:
    """LTI 1.3: open the course from Canvas or Moodle, grades back to the LMS."""


@lti.command("add-platform")
@click.option("--issuer", required=True, help="The platform's issuer (iss), as the LMS says it.")
@click.option("--client-id", required=True, help="The client id the LMS gave the tool.")
@click.option("--deployment-id", required=True, help="A deployment id of the tool in the LMS.")
@click.option("--auth-url", required=True, help="The LMS's OIDC authorization endpoint.")
@click.option("--token-url", required=True, help="The LMS's OAuth 2 token endpoint.")
@click.option("--jwks-url", required=True, help="The LMS's public keys (JWKS).")
@click.option(
    "--frame-origin",
    "frame_origins",
    multiple=True,
    metavar="URL",
    help="A site whose pages show the tool in a frame (Canvas: your school's Canvas "
    "address); default: the issuer's and the authorization endpoint's.",
)
@click.option(
    "--context",
    "contexts",
    multiple=True,
    metavar="ID",
    help="An LMS course (its context id) whose teachers are this course's instructors; "
    "an LMS role counts in no other. Default: the LMS course of the first instructor "
    "launch.",
)
@course_option
@db_option
def add_platform(
    issuer: str,
    client_id: str,
    deployment_id: str,
    auth_url: str,
    token_url: str,
    jwks_url: str,
    frame_origins: tuple[str, ...],
    contexts: tuple[str, ...],
    course: Path | None,
    db_url: str | None,
) -> None:
    """Register an LMS (again: update it, add a deployment id)."""
    from ..service.lti.platforms import Platforms, Registration

    loaded, engine = _opened(course, db_url)
    reg = Registration(
        issuer, client_id, deployment_id, auth_url, token_url, jwks_url, frame_origins, contexts
    )
    platform = Platforms(engine, loaded.course.id).add(reg)
    click.echo(
        f"platform {platform.issuer} (client {platform.client_id}): deployment {deployment_id}"
        + "".join(f"\nbound to LMS course {c}" for c in contexts)
    )


@lti.command("rotate-key")
@course_option
@db_option
def rotate_key(course: Path | None, db_url: str | None) -> None:
    """Make a new signing key; the old one stays published at /lti/jwks for a week."""
    from ..service.lti.keys import ToolKeys

    loaded, engine = _opened(course, db_url)
    key = ToolKeys(engine, loaded.course.id).rotate()
    click.echo(f"new signing key {key.kid}")


@lti.command("tool-config")
@click.option("--base-url", required=True, metavar="URL", help="Where the LMS reaches the tool.")
@click.option("--lms", type=click.Choice(["canvas", "moodle"]), default="canvas", show_default=True)
@course_option
def tool_config(base_url: str, lms: str, course: Path | None) -> None:
    """Print what an LMS administrator enters: Canvas's developer key JSON, Moodle's fields."""
    from ..service.lti.tool_config import canvas_key, moodle_fields
    from ..workspace import load

    loaded = load(course)
    if lms == "canvas":
        title = str(loaded.course.title)
        click.echo(json.dumps(canvas_key(base_url, title), indent=2, ensure_ascii=False))
        return
    for name, value in moodle_fields(base_url):
        click.echo(f"{name}: {value}")


@lti.command()
@click.argument("assignment", required=False)
@course_option
@db_option
def sync(assignment: str | None, course: Path | None, db_url: str | None) -> None:
    """Send every LTI learner's grade of record of ASSIGNMENT (all: none given) again."""
    from ..course.loaded import get_assignment
    from ..service.lti.keys import ToolKeys
    from ..service.lti.passback import Passback
    from ..service.lti.platforms import Platforms

    loaded, engine = _opened(course, db_url)
    if assignment is not None:
        get_assignment(loaded, assignment)
    course_id = loaded.course.id
    done = Passback(engine, loaded, Platforms(engine, course_id), ToolKeys(engine, course_id)).sync(
        assignment
    )
    click.echo(f"{done.sent} scores sent, {done.failed} failed")
    if done.failed:
        raise SystemExit(1)


@lti.command()
@course_option
@db_option
def roster(course: Path | None, db_url: str | None) -> None:
    """Make roster.csv the learners of the LMS courses linked by launches (NRPS)."""
    from ..service.lti.roster import pull_roster, write_roster

    loaded, engine = _opened(course, db_url)
    pulled = pull_roster(engine, loaded)
    path, learners, gone = write_roster(loaded.root, pulled)
    click.echo(
        f"{path}: {learners} learners from {pulled.contexts} LMS courses ({pulled.pages} pages); "
        f"{gone} no longer in the LMS left out"
    )


def _opened(course: Path | None, db_url: str | None):  # type: ignore[no-untyped-def]
    from ..gradebook import store as gradebook
    from ..workspace import load

    loaded = load(course)
    return loaded, gradebook.open_gradebook(db_url or gradebook.default_url(loaded.root))
