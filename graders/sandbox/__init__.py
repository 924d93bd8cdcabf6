"""Running untrusted code: warm fork servers, limits, isolation levels.

``open_runner`` starts warm fork servers (torch imported and pre-warmed) at the best
isolation level this machine offers; each ``Job`` runs ``task(payload)`` in a fresh,
confined child and comes back as an ``Outcome``. ``InProcessRunner`` is the in-process
fake for unit tests of trusted code.
"""

from .contract import Job, Limits, Outcome, Runner, SandboxError
from .inprocess import InProcessRunner
from .runner import open_runner

__all__ = ["Job", "Limits", "Outcome", "Runner", "SandboxError", "InProcessRunner", "open_runner"]
