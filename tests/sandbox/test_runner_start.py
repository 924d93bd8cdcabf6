"""How a runner starts: its servers begin at the first level to try while that level's
probe runs, and a level the probe refuses costs only a restart at the level chosen then."""

from __future__ import annotations

from typing import Any

import pytest

from graders.sandbox import runner as runner_module
from graders.sandbox.isolation import Launch


class Started:
    def __init__(self, level: str, events: list[str]) -> None:
        self.level, self.events = level, events
        events.append(f"begin {level}")

    def close(self) -> None:
        self.events.append(f"close {self.level}")


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    events: list[str] = []

    def begin_at(launch: Launch, *args: Any) -> Started:
        return Started(launch.level, events)

    monkeypatch.setattr(runner_module, "_begin_at", begin_at)
    return events


def probing(monkeypatch: pytest.MonkeyPatch, events: list[str], refused: set[str]) -> None:
    def probe(launch: Launch, view: Any) -> str | None:
        events.append(f"probe {launch.level}")
        return "refused here" if launch.level in refused else None

    monkeypatch.setattr(runner_module, "probe", probe)
    monkeypatch.setattr("graders.sandbox.isolation.probe", probe)


def test_the_servers_begin_before_their_level_is_probed(
    monkeypatch: pytest.MonkeyPatch, events: list[str]
) -> None:
    probing(monkeypatch, events, refused=set())
    started = runner_module.begin_runner("plain")
    assert events == ["begin plain", "probe plain"]
    assert isinstance(started, Started) and started.level == "plain"


def test_a_level_its_probe_refuses_is_stopped_and_the_next_one_chosen(
    monkeypatch: pytest.MonkeyPatch, events: list[str]
) -> None:
    monkeypatch.setattr(
        "graders.sandbox.isolation.launch_for",
        lambda level, view, tmp_mib: Launch(level, (), True, False, False, tmp_mib),
    )
    probing(monkeypatch, events, refused={"bubblewrap"})
    started = runner_module.begin_runner("auto")
    assert events[:3] == ["begin bubblewrap", "probe bubblewrap", "close bubblewrap"]
    assert events[-1] == "begin unshare" and getattr(started, "level", None) == "unshare"


def test_a_level_below_full_isolation_starts_nothing_when_full_isolation_is_required(
    monkeypatch: pytest.MonkeyPatch, events: list[str]
) -> None:
    from graders.sandbox import SandboxError

    probing(monkeypatch, events, refused=set())
    with pytest.raises(SandboxError):
        runner_module.begin_runner("plain", require_full=True)
    assert events == ["probe plain"]
