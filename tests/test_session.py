"""A session's sandbox, started in the background (``LazyRunner.start_soon``), never
outlives the session: a close that comes while it is still starting waits for that start
and stops what it started. Before, such a start finished after the close and its fork
servers ran on, unowned, until the process exited (a kernel's test cell, a test)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from graders.sandbox import SandboxError
from graders.sandbox import runner as runner_module
from graders.sandbox.runner import LazyRunner


class SlowStart:
    """A stand-in for the fork servers: starting takes until the test says so."""

    isolation = "plain"

    def __init__(self, may_finish: threading.Event, began: threading.Event) -> None:
        self.closed = False
        began.set()
        may_finish.wait(timeout=30)

    def finish_start(self, modules: Any) -> SlowStart:
        return self

    def abort_start(self) -> None:
        pass  # its start is over once made

    def close(self) -> None:
        self.closed = True


def test_a_close_during_a_background_start_stops_what_that_start_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    may_finish, began = threading.Event(), threading.Event()
    made: list[SlowStart] = []

    def begin_runner(*args: Any, **kwargs: Any) -> SlowStart:
        made.append(SlowStart(may_finish, began))
        return made[-1]

    monkeypatch.setattr(runner_module, "begin_runner", begin_runner)
    lazy = LazyRunner("auto", 1, (), (), modules={})
    lazy.start_soon()
    assert began.wait(timeout=30)
    closing = threading.Thread(target=lazy.close)
    closing.start()
    closing.join(timeout=0.2)
    assert closing.is_alive()  # the close waits for the start under way ...
    may_finish.set()
    closing.join(timeout=30)
    assert not closing.is_alive()
    assert [m.closed for m in made] == [True]  # ... and stops what it made


class SlowWarming:
    """Fork servers that began, warming until killed (``abort_start``) or told to finish."""

    isolation = "plain"

    def __init__(self, warming: threading.Event) -> None:
        self.warming, self.killed, self.closed = warming, threading.Event(), False

    def finish_start(self, modules: Any) -> SlowWarming:
        self.warming.set()
        if self.killed.wait(timeout=30):
            self.close()  # as ForkServerRunner does when a server does not start
            raise SandboxError("the sandbox (plain) did not start: killed")
        return self

    def abort_start(self) -> None:
        self.killed.set()

    def close(self) -> None:
        self.closed = True


def test_a_close_while_the_servers_warm_kills_them_rather_than_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One notebook that needed no job: its command ends when grading does, not when torch
    # is warm in a sandbox nobody will use.
    warming = threading.Event()
    made: list[SlowWarming] = []
    monkeypatch.setattr(
        runner_module, "begin_runner", lambda *a, **k: made.append(SlowWarming(warming)) or made[-1]
    )
    lazy = LazyRunner("auto", 1, (), (), modules={})
    lazy.start_soon()
    assert warming.wait(timeout=30)
    closing = threading.Thread(target=lazy.close)
    closing.start()
    closing.join(timeout=30)
    assert not closing.is_alive()
    assert made[0].killed.is_set() and made[0].closed
    with pytest.raises(SandboxError):
        lazy.isolation  # noqa: B018 - a closed runner starts nothing


def test_a_start_after_close_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    monkeypatch.setattr(runner_module, "begin_runner", lambda *a, **k: made.append("started"))
    lazy = LazyRunner("auto", 1, (), ())
    lazy.close()
    lazy.start_soon()
    lazy.give_modules({})
    lazy.start_soon()
    for thread in threading.enumerate():
        if thread.name == "graders-sandbox-start":
            thread.join(timeout=30)
    assert made == []


def test_the_fork_servers_import_the_task_modules_the_kinds_registry_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The sandbox names no kind: what its warm servers import comes from the registry's
    # table, so a kind added there is preloaded with no change to the sandbox.
    from graders import kinds
    from graders.integrations.ci.early import early_runner

    toy = kinds.Builtin("toy.kind", "toy.cells", ("toy.child.task",), runs_jobs=True)
    monkeypatch.setitem(kinds.BUILTIN_KINDS, "toy", toy)
    asked: list[tuple[str, ...]] = []

    def begin_runner(*args: Any, preload: tuple[str, ...] = (), **kwargs: Any) -> SlowStart:
        asked.append(tuple(preload))
        ready = threading.Event()
        ready.set()
        return SlowStart(ready, threading.Event())

    monkeypatch.setattr(runner_module, "begin_runner", begin_runner)
    (tmp_path / "course.yml").write_text("", encoding="utf-8")  # found, never read
    lazy = early_runner(tmp_path)  # one notebook's sandbox, started before its course is read
    lazy.give_modules({})
    try:
        lazy.isolation  # noqa: B018 - asking finishes the start
    finally:
        lazy.close()
    assert asked == [
        (
            "graders.kinds.predict.child.task",
            "graders.kinds.code.child.task",
            "graders.kinds.code.returned",
            "toy.child.task",
        )
    ]


def test_the_kinds_table_says_which_kinds_run_jobs_as_the_kinds_do() -> None:
    # One notebook's grader reads the table, not the kind, to start the sandbox first.
    from graders.kinds import BUILTIN_KINDS
    from graders.kinds.registry import get_kind, runs_jobs

    for name, builtin in BUILTIN_KINDS.items():
        kind = get_kind(name)
        assert kind is not None and builtin.runs_jobs is kind.runs_jobs is runs_jobs(name), name
