"""Running untrusted code: warm fork servers, limits, isolation levels.

``open_runner`` starts warm fork servers (torch imported and pre-warmed) at the best
isolation level this machine offers; each ``Job`` runs ``task(payload)`` in a fresh,
confined child and comes back as an ``Outcome``::

    with open_runner(hide=[course_dir]) as runner:
        task = "graders.kinds.predict.child.task:compute"
        outcome = runner.run(Job(task, payload, Limits(timeout_s=10)))
        if outcome.status == "ok":
            use(outcome.result)          # plain JSON from the child: check its shape
        else:
            report(outcome.status, outcome.message)   # "error" | "timeout" | "integrity"

``InProcessRunner`` is the in-process fake for unit tests of trusted code. Only problems
of the sandbox itself raise (``SandboxError``); whatever a child does is an ``Outcome``.
"""

from .contract import Job, Limits, Outcome, Runner, SandboxError
from .inprocess import InProcessRunner
from .runner import open_runner

__all__ = ["Job", "Limits", "Outcome", "Runner", "SandboxError", "InProcessRunner", "open_runner"]
