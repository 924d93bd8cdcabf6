"""The suite's one warm sandbox per module (tests/warm_sandbox.py) is the one every way a
command starts its sandbox finds: a session's first job, and a sandbox started before the
course is read (``graders ci``). A new way that bypassed it would start a sandbox per
command again, silently: seconds each, in the modules that run dozens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ci_support import write_course

from graders.integrations.ci.early import early_runner
from graders.workspace import open_workspace

pytestmark = pytest.mark.usefixtures("warm_sandbox")


def test_every_way_a_command_starts_its_sandbox_finds_the_shared_one(
    warm_sandbox: dict[str, Any], tmp_path: Path
) -> None:
    course = write_course(tmp_path / "course")
    levels = []
    with open_workspace(course) as session:
        levels.append(session.ctx.runner.isolation)  # started on first use
    with open_workspace(course, runner=early_runner(course)) as session:
        levels.append(session.ctx.runner.isolation)  # started before the course was read
    assert len(warm_sandbox) == 1, sorted(warm_sandbox)
    assert levels[0] == levels[1]
