"""``graders serve`` (the live service) and ``graders token`` (who may use it)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from . import course_option, isolation_option, main
from .batch_options import cluster_option, db_option


@main.command()
@course_option
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@db_option
@click.option(
    "--workers",
    type=click.IntRange(0, 1024),
    default=None,
    show_default="the number of CPUs; with --cluster, twice the cluster's worker threads",
    help="Notebooks graded at once (0: this process only takes uploads; others grade).",
)
@cluster_option
@click.option(
    "--grace",
    type=click.FloatRange(0, 3600),
    default=30.0,
    show_default=True,
    help="Seconds a grading under way may take to finish at a stop (then it is queued again).",
)
@click.option(
    "--forwarded-allow-ips",
    default=None,
    metavar="IPS",
    help="Addresses of the reverse proxy whose X-Forwarded-* headers are trusted "
    "(default: uvicorn's, 127.0.0.1, or $FORWARDED_ALLOW_IPS).",
)
@click.option(
    "--base-url",
    default=None,
    metavar="URL",
    help="The address an LMS reaches the service at, for LTI 1.3 (https://graders.example.edu); "
    "default: the address of each request.",
)
@click.option(
    "--lti-every",
    type=click.FloatRange(0.1, 3600),
    default=10.0,
    show_default=True,
    help="Seconds between two looks for grades to send to the LMSs (a grade made here is sent "
    "at once; an override made by another command within this time).",
)
@isolation_option
def serve(
    course: Path | None,
    host: str,
    port: int,
    db_url: str | None,
    workers: int | None,
    cluster: str | None,
    grace: float,
    forwarded_allow_ips: str | None,
    base_url: str | None,
    lti_every: float,
    isolation: str,
) -> None:
    """Serve the course: learners upload notebooks and read their feedback within seconds.

    Every upload is stored in the gradebook before it is answered, and graded from there;
    a restart grades what a crash left. SIGTERM stops it cleanly (exit 0). Mint the
    learners' tokens with `graders token`. With --cluster, a Dask cluster's workers grade
    (several servers may share one PostgreSQL gradebook, and one cluster).
    """
    from ..gradebook import store as gradebook
    from ..gradebook.databases import shown_url
    from ..service.run import serve as run
    from ..workspace import load, open_workspace

    if cluster is not None:
        from ..batch.cluster import check_address

        if workers == 0:
            raise click.UsageError("--workers 0 grades nothing: it cannot go with --cluster")
        check_address(cluster)
    if cluster is None and workers is None:
        workers = min(os.cpu_count() or 1, 64)
    loaded = load(course)
    url = db_url or gradebook.default_url(loaded.root)
    gradebook.open_gradebook(url)  # a gradebook that cannot be used stops here, in words
    where = (
        f"on the Dask cluster {cluster}"
        if cluster
        else f"{workers} worker{'' if workers == 1 else 's'}"
    )
    click.echo(
        f"graders serve: {loaded.course.id} on http://{host}:{port} (gradebook {shown_url(url)}, "
        f"{where})",
        err=True,
    )
    # With --cluster, the session here only prepares the truths: its sandbox starts only if
    # a truth is not in the cache yet.
    with open_workspace(loaded, isolation=isolation, workers=max(1, workers or 1)) as session:
        run(
            session,
            url,
            host=host,
            port=port,
            workers=workers,
            cluster=cluster,
            isolation=isolation,
            grace_s=grace,
            forwarded_allow_ips=forwarded_allow_ips,
            base_url=base_url,
            lti_every_s=lti_every,
        )


@main.command()
@click.argument("students", metavar="STUDENT...", nargs=-1, required=True)
@click.option("--instructor", is_flag=True, help="Mint instructors' tokens (they read the class).")
@course_option
@db_option
def token(
    students: tuple[str, ...], instructor: bool, course: Path | None, db_url: str | None
) -> None:
    """Mint a token for each STUDENT to sign in to `graders serve` with; prints "STUDENT TOKEN"
    per line. A new token replaces the student's earlier one (and ends their sessions);
    the gradebook keeps only a hash of it: hand each learner their line now."""
    from ..gradebook import store as gradebook
    from ..gradebook.service_tables import INSTRUCTOR, LEARNER
    from ..service.identity import Credentials
    from ..workspace import load

    loaded = load(course)
    engine = gradebook.open_gradebook(db_url or gradebook.default_url(loaded.root))
    role = INSTRUCTOR if instructor else LEARNER
    credentials = Credentials(engine, loaded.course.id)
    for note in credentials.lookalikes(students):
        click.echo(f"warning: {note}", err=True)
    for student, secret in credentials.mint(students, role):
        click.echo(f"{student} {secret}")
