"""One warm sandbox for the many commands a test module runs in this process.

Each graders command run in-process (``CliRunner().invoke(main, [...])``) opens its own
session, and the first code exercise it grades starts a sandbox: warm fork servers that
import torch and warm it up, seconds each time. A module that runs dozens of commands on
one course opts in to share them::

    pytestmark = pytest.mark.usefixtures("warm_sandbox")

Within the module, ``open_runner`` (and ``begin_runner`` then ``finish_start``, the way a
session starts its sandbox) hands back one running sandbox per set of arguments (isolation
level, workers, hidden paths, the course's checker modules) and its ``close`` leaves it
running until the module ends. Only the warm servers are shared, as
``graders serve`` shares them between uploads: every job still runs in a fresh child
forked for it, so nothing of one command's jobs reaches another's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from what_starts import starts

import graders.sandbox
import graders.sandbox.runner


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


class _Begun:
    """``begin_runner``'s runner, warming: ``finish_start`` hands back the shared one."""

    def __init__(self, share: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self._share, self._args, self._kwargs = share, args, kwargs

    def finish_start(self, modules: Any = None) -> _Shared:
        return self._share(*self._args, **self._kwargs, modules=modules)

    def abort_start(self) -> None:
        pass  # the shared servers are the module's: a command closing early waits for them

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
@starts("sandbox")
def warm_sandbox() -> Iterator[dict[str, Any]]:
    """While the module runs: ``graders.sandbox.open_runner`` (and ``begin_runner``) share
    one runner per arguments (the dict of them, keyed by their JSON, is what the fixture
    yields)."""
    opened: dict[str, Any] = {}
    real = graders.sandbox.runner.begin_runner  # open_runner calls it: patched below

    def shared(*args: Any, modules: Any = None, **kwargs: Any) -> _Shared:
        key = json.dumps([args, kwargs, modules or {}], sort_keys=True, default=repr)
        if key not in opened:
            opened[key] = real(*args, **kwargs).finish_start(modules)
        return _Shared(opened[key])

    def begun(*args: Any, **kwargs: Any) -> _Begun:
        return _Begun(shared, args, kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(graders.sandbox, "open_runner", shared)
        patch.setattr(graders.sandbox.runner, "begin_runner", begun)
        try:
            yield opened
        finally:
            for runner in opened.values():
                runner.close()
