"""One warm sandbox for the many commands a test module runs in this process.

Each graders command run in-process (``CliRunner().invoke(main, [...])``) opens its own
session, and the first code exercise it grades starts a sandbox: warm fork servers that
import torch and warm it up, seconds each time. A module that runs dozens of commands on
one course opts in to share them::

    pytestmark = pytest.mark.usefixtures("warm_sandbox")

Within the module, ``open_runner`` hands back one running sandbox per set of arguments
(isolation level, workers, hidden paths, the course's checker modules) and its ``close``
leaves it running until the module ends. Only the warm servers are shared, as
``graders serve`` shares them between uploads: every job still runs in a fresh child
forked for it, so nothing of one command's jobs reaches another's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import graders.sandbox


class _Shared:
    """A running sandbox whose ``close`` is the module's, not the command's."""

    def __init__(self, runner: Any) -> None:
        self._runner = runner

    def close(self) -> None:
        pass  # closed when the module ends

    def __enter__(self) -> _Shared:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runner, name)


@pytest.fixture(scope="module")
def warm_sandbox() -> Iterator[dict[str, Any]]:
    """While the module runs: ``graders.sandbox.open_runner`` shares one runner per arguments
    (the dict of them, keyed by their JSON, is what the fixture yields)."""
    opened: dict[str, Any] = {}
    real = graders.sandbox.open_runner

    def shared(*args: Any, **kwargs: Any) -> _Shared:
        key = json.dumps([args, kwargs], sort_keys=True, default=repr)
        if key not in opened:
            opened[key] = real(*args, **kwargs)
        return _Shared(opened[key])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(graders.sandbox, "open_runner", shared)
        try:
            yield opened
        finally:
            for runner in opened.values():
                runner.close()
