"""What makes a test slow, said by a mark and held by one gate.

A test that starts a server, a cluster, a browser, nbgrader, a database, the sandbox or a
graders command in a process of its own carries the mark of that kind (registered in
pyproject.toml), so `make check`, the tests that start nothing, is one marker expression
(``FAST`` below). Where a fixture starts the thing, the fixture says so with
``@starts("postgres")`` and every test that uses it, directly or through another fixture,
is marked; a test that starts it itself is marked by hand.

The marks are not trusted to be complete: whatever a test starts is seen where every start
passes, the interpreter's audit events for a new process (``subprocess.Popen``) and for a
socket bound to a network address (``socket.bind``), and a test that starts one of these
kinds without its mark fails, naming the mark to add. So a new test, helper or route that
starts a server cannot slip into the fast lane unnoticed (tests/test_what_starts.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator, Iterable
from pathlib import PurePath
from typing import Any, TypeVar

import pytest

KINDS: dict[str, str] = {
    "server": "starts a server: graders serve, JupyterLab or Notebook, a Jupyter kernel, "
    "or anything listening on a network socket",
    "cluster": "starts a Dask cluster (dask scheduler and workers, or a local cluster)",
    "browser": "starts Chromium (through Playwright or by itself)",
    "nbgrader": "runs nbgrader's own commands",
    "postgres": "starts a PostgreSQL server (initdb, pg_ctl start)",
    "sandbox": "starts the sandbox's fork servers (each imports and warms torch: seconds)",
    "command": "runs graders or a benchmark in a process of its own (torch imported there, "
    "often a sandbox started)",
}
# What `make check` leaves out: every test that starts any of them.
FAST = "not (" + " or ".join(KINDS) + ")"
# A cluster is servers: a test marked `cluster` may listen on sockets. A test already out of
# `make check` (for any of the kinds) may also start a sandbox or a command without saying
# so: those two marks only keep a test out of `make check`.
_LIGHTER = {"sandbox", "command"}
IMPLIES = {
    "cluster": {"server"} | _LIGHTER,
    **{kind: _LIGHTER for kind in ("server", "browser", "nbgrader", "postgres", *_LIGHTER)},
}

F = TypeVar("F", bound=Callable[..., Any])


def starts(*kinds: str) -> Callable[[F], F]:
    """Say that a fixture starts ``kinds``: every test that uses it carries their marks."""
    unknown = set(kinds) - set(KINDS)
    assert not unknown, f"not a kind of start: {sorted(unknown)} (known: {sorted(KINDS)})"

    def mark(fixture: F) -> F:
        fixture.__graders_starts__ = kinds  # type: ignore[attr-defined]
        return fixture

    return mark


def started_by(argv: Iterable[str]) -> set[str]:
    """The kinds a new process with the command line ``argv`` starts."""
    args = [str(a) for a in argv]
    names = [PurePath(a).name for a in args]
    found: set[str] = set()
    if "nbgrader" in names:
        found.add("nbgrader")
    if "initdb" in names or ("pg_ctl" in names and "start" in args):
        found.add("postgres")
    if {"dask", "dask-scheduler", "dask-worker"} & set(names):
        found.add("cluster")
    if any(n in ("chromium", "chromium-browser", "chrome") for n in names) or any(
        "playwright" in a and "driver" in a for a in args
    ):
        found.add("browser")
    served = {"jupyterlab", "notebook", "jupyter-lab", "jupyter-notebook", "jupyter-server"}
    if served & set(names) or "ipykernel_launcher" in names or "uvicorn" in names:
        found.add("server")
    if any(n == "graders" and args[i + 1 : i + 2] == ["serve"] for i, n in enumerate(names)):
        found.add("server")
    if any("graders.sandbox.zygote" in a for a in args):
        found.add("sandbox")
    module = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-m"]
    if (
        "graders" in names[:1]
        or module[:1] == ["graders"]
        or any(a.startswith("--graders-") for a in args)  # pytest with graders' plugin
        or any(a.endswith(".py") and PurePath(a).parent.name == "benchmarks" for a in args)
    ):
        found.add("command")
    return found


def listens_only(why: str) -> Callable[[F], F]:
    """Say that a fixture binds a socket that serves nothing (``why``: what it is for, a
    target for the sandbox's network cases): its tests may bind one without the ``server``
    mark. Any process they start is still seen."""
    assert why, "say what the socket is for"

    def mark(fixture: F) -> F:
        fixture.__graders_listens_only__ = why  # type: ignore[attr-defined]
        return fixture

    return mark


QUIET_SOCKETS = pytest.StashKey[bool]()


class Gate:
    """The test being run and the starts seen during it that its marks do not allow."""

    def __init__(self) -> None:
        self.item: pytest.Item | None = None
        self.allowed: set[str] = set()
        self.quiet_sockets = False
        self.unmarked: dict[str, str] = {}

    def begin(self, item: pytest.Item) -> None:
        self.item, self.unmarked = item, {}
        marks = {m.name for m in item.iter_markers() if m.name in KINDS}
        self.allowed = marks.union(*(IMPLIES.get(m, set()) for m in marks))
        self.quiet_sockets = item.stash.get(QUIET_SOCKETS, False)

    def end(self) -> None:
        self.item = None

    def seen(self, kind: str, what: str) -> None:
        if self.item is not None and kind not in self.allowed:
            self.unmarked.setdefault(kind, what)

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if self.item is None:
            return
        if event == "subprocess.Popen":
            argv = args[1] if isinstance(args[1], (list, tuple)) else [args[1]]
            for kind in started_by([args[0] or "", *argv]):
                self.seen(kind, " ".join(str(a) for a in argv)[:200])
        elif event == "socket.bind" and isinstance(args[1], tuple) and not self.quiet_sockets:
            self.seen("server", f"a socket bound to {args[1]!r}")


GATE = Gate()


def pytest_configure(config: pytest.Config) -> None:
    for kind, why in KINDS.items():
        config.addinivalue_line("markers", f"{kind}: {why}")
    if not getattr(sys, "_graders_gate_hooked", False):  # one hook per process
        sys.addaudithook(GATE.audit)
        sys._graders_gate_hooked = True  # type: ignore[attr-defined]


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by the marks added here
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test gets the marks of what the fixtures it uses start; then the modules whose
    tests start the most run first (below)."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else []
        funcs = [d.func for fixturedefs in defs for d in fixturedefs]
        for kind in sorted({k for f in funcs for k in _starts_of(f)}):
            item.add_marker(kind)
        item.stash[QUIET_SOCKETS] = any(hasattr(f, "__graders_listens_only__") for f in funcs)
    items[:] = heaviest_first(items)


# Under pytest-xdist (`--dist loadscope`) a module's tests run on one worker, the modules
# handed out in the order they come: a module that runs nbgrader or a cluster for minutes
# goes first, or it could be the last one left, running alone on one core.
HEAVY = ("nbgrader", "cluster", "browser", "postgres", "server", "command", "sandbox")


def heaviest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with each module's tests kept together and in their order, the modules
    ordered by the heaviest kind any of their tests starts (stable otherwise)."""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)

    def weight(tests: list[pytest.Item]) -> int:
        marks = {m.name for t in tests for m in t.iter_markers()}
        return min((HEAVY.index(k) for k in marks if k in HEAVY), default=len(HEAVY))

    ordered = sorted(modules.values(), key=weight)
    return [item for tests in ordered for item in tests]


def _starts_of(func: Any) -> tuple[str, ...]:
    return tuple(getattr(func, "__graders_starts__", ()))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    GATE.begin(item)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    # What a finalizer stops (the session's server, after the last test) is not a start.
    GATE.end()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.when in ("setup", "call") and GATE.item is item and GATE.unmarked:
        lines = [
            "this test starts what its marks do not say (add @pytest.mark.<kind>, or "
            "@starts(<kind>) on the fixture that starts it):"
        ]
        lines += [f"  {kind}: {what}" for kind, what in sorted(GATE.unmarked.items())]
        report.outcome = "failed"
        report.longrepr = "\n".join(lines)
        GATE.unmarked = {}
    return report
