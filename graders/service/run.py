"""Running the service under uvicorn, and stopping it cleanly.

    serve(session, db_url, host="127.0.0.1", port=8000, workers=2)
    serve(session, db_url, cluster="local:2")      # grading on a Dask cluster's workers

One process for a course: uvicorn serves the application (``app``) on one event loop, and
the grader's threads share the session's warm sandbox (or send each attempt to a Dask
cluster's workers, and wait for it). On SIGTERM (or Ctrl-C) uvicorn
stops accepting connections; requests waiting for a grade answer at once, and those under
way have ``GRACEFUL_S`` to finish. Then the grader takes nothing more, lets the gradings
under way finish (``grace_s``) and queues again what still runs, so the next start grades
it. The process exits 0: a stop that was asked for is not a failure.
"""

from __future__ import annotations

import logging
import signal
from types import FrameType

import uvicorn

from ..workspace import Workspace
from .app import create_app
from .state import Service

GRACEFUL_S = 10  # how long requests under way (an upload being stored) may take at a stop
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class Server(uvicorn.Server):
    """uvicorn's server, telling the service the moment a stop is asked for."""

    def __init__(self, config: uvicorn.Config, service: Service) -> None:
        super().__init__(config)
        self.service = service

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.service.stopping.set()  # long-polls answer now rather than hold the stop up
        super().handle_exit(sig, frame)


def serve(
    session: Workspace,
    db_url: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int | None = 1,
    cluster: str | None = None,
    isolation: str = "auto",
    grace_s: float = 30.0,
    forwarded_allow_ips: str | None = None,
    base_url: str | None = None,
    lti_every_s: float = 10.0,
) -> None:
    """Serve the course of ``session`` until asked to stop (SIGTERM, SIGINT)."""
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    logging.getLogger("alembic").setLevel(logging.WARNING)  # "will assume ..." at each open
    service = Service(
        session,
        db_url,
        workers=workers,
        cluster=cluster,
        isolation=isolation,
        grace_s=grace_s,
        base_url=base_url,
        lti_every_s=lti_every_s,
    )
    config = uvicorn.Config(
        create_app(service),
        host=host,
        port=port,
        access_log=False,  # one line per submission instead (``grader``)
        timeout_graceful_shutdown=GRACEFUL_S,
        proxy_headers=True,  # X-Forwarded-For and -Proto, from forwarded_allow_ips only
        forwarded_allow_ips=forwarded_allow_ips,
    )
    # After its graceful stop, uvicorn raises the signal again for the handler that was
    # there before it (to die of it): ignored there, a stop that was asked for exits 0.
    stops = (signal.SIGTERM, signal.SIGINT)
    before = {sig: signal.signal(sig, signal.SIG_IGN) for sig in stops}
    try:
        Server(config, service).run()
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
