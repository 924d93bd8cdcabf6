"""The suite's duration budget: a test that takes over a minute says in a docstring why.

Each test's setup and call times are added up where it ran (a pytest-xdist worker too), and
whether it explains itself travels with its report: a docstring on the test, or, for time
spent setting up, on a module- or session-wide fixture it uses (the fixture that grades a
class with real nbgrader says so). At the end, after pytest's own list of the slowest
tests, the ones over the budget that say nothing are named. It is a note, not a failure:
a test's time depends on the machine's load, and tests check behaviour, not time.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

BUDGET_S = 60.0  # the `duration_budget_s` ini option changes it (its own test sets 0)
EXPLAINED = "duration explained"


def _explained(item: pytest.Item) -> bool:
    if getattr(getattr(item, "function", None), "__doc__", None):
        return True
    info = getattr(item, "_fixtureinfo", None)
    for defs in info.name2fixturedefs.values() if info is not None else ():
        for d in defs:
            if d.scope in ("module", "package", "session") and d.func.__doc__:
                return True
    return False


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.when == "setup":
        report.user_properties.append((EXPLAINED, _explained(item)))
    return report


class Budget:
    def __init__(self, budget_s: float) -> None:
        self.budget_s = budget_s
        self.spent: dict[str, float] = {}
        self.explained: dict[str, bool] = {}

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when in ("setup", "call"):
            self.spent[report.nodeid] = self.spent.get(report.nodeid, 0.0) + report.duration
        for name, value in report.user_properties:
            if name == EXPLAINED:
                self.explained[report.nodeid] = bool(value)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        over = sorted(
            (nodeid for nodeid, s in self.spent.items() if s > self.budget_s),
            key=lambda n: -self.spent[n],
        )
        silent = [n for n in over if not self.explained.get(n, True)]
        if silent:
            terminalreporter.section(f"over {self.budget_s:g} s without saying why")
            for nodeid in silent:
                terminalreporter.line(f"{self.spent[nodeid]:7.1f}s {nodeid}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("duration_budget_s", "seconds a test may take without saying why", default="")


def pytest_configure(config: pytest.Config) -> None:
    budget = float(config.getini("duration_budget_s") or BUDGET_S)
    config.pluginmanager.register(Budget(budget), "duration-budget")
