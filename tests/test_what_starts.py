"""The marks that say why a test is slow, and the gate that holds them (``what_starts``).

A new test, fixture or helper that starts a server, a cluster, a browser, nbgrader, a
PostgreSQL server, the sandbox or a graders command without saying so fails where it starts
it; one that says so, on the test
or on a fixture it uses however deep, is left out of `make check`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from what_starts import FAST, KINDS, started_by

REPO = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent

NEW_TESTS = """
import socket
import subprocess
import tempfile

import pytest
from what_starts import listens_only, starts

NBGRADER = {nbgrader!r}


def test_a_new_test_that_runs_nbgrader_unmarked():
    subprocess.run([NBGRADER, "--version"], check=True)


@pytest.mark.nbgrader
def test_the_same_test_marked():
    subprocess.run([NBGRADER, "--version"], check=True)


def test_a_new_test_that_listens_unmarked():
    with socket.create_server(("127.0.0.1", 0)):
        pass


@pytest.fixture
@starts("server")
def listening():
    with socket.create_server(("127.0.0.1", 0)) as s:
        yield s


@pytest.fixture
def through_another(listening):
    return listening


def test_a_fixture_that_says_what_it_starts_marks_its_tests(through_another):
    pass


@pytest.fixture
@listens_only("a target nothing may reach")
def trap():
    with socket.create_server(("127.0.0.1", 0)) as s:
        yield s


def test_a_socket_that_serves_nothing_may_be_bound_when_said(trap):
    subprocess.run(["true"], check=True)


def test_a_new_test_that_starts_the_sandbox_unmarked():
    from graders.sandbox import open_runner

    open_runner("plain", preload=()).close()


def test_a_unix_socket_and_an_ordinary_process_are_not_starts():
    with tempfile.TemporaryDirectory() as folder, socket.socket(socket.AF_UNIX) as s:
        s.bind(folder + "/s")
    subprocess.run(["true"], check=True)
"""


@pytest.fixture
def outcomes(pytester: pytest.Pytester) -> dict[str, str]:
    nbgrader = pytester.path / "bin" / "nbgrader"  # a stand-in: what counts is the name
    nbgrader.parent.mkdir()
    nbgrader.write_text("#!/bin/sh\nexit 0\n")
    nbgrader.chmod(0o755)
    pytester.makepyfile(test_new=NEW_TESTS.format(nbgrader=str(nbgrader)))
    done = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", f"--rootdir={pytester.path}",
                                         "-o", f"pythonpath={HERE}", "-p", "what_starts")  # fmt: skip
    lines = done.outlines
    found: dict[str, str] = {}
    for line in lines:
        m = re.match(r"^(PASSED|FAILED|ERROR) test_new\.py::(\w+)", line)
        if m:
            found[m.group(2)] = m.group(1)
    found["output"] = "\n".join(lines)
    return found


def test_a_start_without_its_mark_fails_and_names_the_mark(outcomes: dict[str, str]) -> None:
    assert outcomes["test_a_new_test_that_runs_nbgrader_unmarked"] == "FAILED"
    assert outcomes["test_a_new_test_that_listens_unmarked"] == "FAILED"
    assert outcomes["test_a_new_test_that_starts_the_sandbox_unmarked"] == "FAILED"
    assert re.search(r"^\s+sandbox: .*graders\.sandbox\.zygote", outcomes["output"], re.M)
    assert "this test starts what its marks do not say" in outcomes["output"]
    assert re.search(r"^\s+nbgrader: .*nbgrader --version", outcomes["output"], re.M)
    assert re.search(
        r"^\s+server: a socket bound to \('127\.0\.0\.1', \d+\)", outcomes["output"], re.M
    )


def test_a_start_with_its_mark_passes(outcomes: dict[str, str]) -> None:
    assert outcomes["test_the_same_test_marked"] == "PASSED"
    assert outcomes["test_a_fixture_that_says_what_it_starts_marks_its_tests"] == "PASSED"
    assert outcomes["test_a_unix_socket_and_an_ordinary_process_are_not_starts"] == "PASSED"
    assert outcomes["test_a_socket_that_serves_nothing_may_be_bound_when_said"] == "PASSED"


def test_the_fast_lane_leaves_out_what_a_fixture_says_it_starts(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_lane="""
import pytest
from what_starts import starts

@pytest.fixture
@starts("postgres")
def database():
    return "db"

@pytest.fixture
def gradebook(database):
    return database

def test_uses_the_database(gradebook): pass

@pytest.mark.browser
def test_in_a_browser(): pass

def test_starts_nothing(): pass
"""
    )
    done = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-m", FAST, "-q",
                                         "-o", f"pythonpath={HERE}", "-p", "what_starts")  # fmt: skip
    done.assert_outcomes(passed=1, deselected=2)


@pytest.mark.parametrize(
    ("argv", "kinds"),
    [
        (["/x/.venv/bin/nbgrader", "autograde", "ps1"], {"nbgrader"}),
        (["/usr/lib/postgresql/15/bin/initdb", "-D", "d"], {"postgres"}),
        (["/usr/lib/postgresql/15/bin/pg_ctl", "-D", "d", "start"], {"postgres"}),
        (["/usr/lib/postgresql/15/bin/pg_ctl", "-D", "d", "stop"], set()),
        ([sys.executable, "-m", "graders", "serve", "--port", "1"], {"server", "command"}),
        ([sys.executable, "-m", "graders", "autograde", "ps1"], {"command"}),
        (["/x/.venv/bin/graders", "ci", "key.ipynb"], {"command"}),
        ([sys.executable, "/x/benchmarks/costs.py", "--course", "c"], {"command"}),
        ([sys.executable, "-c", "import graders"], set()),
        ([sys.executable, "-m", "pytest", "--graders-notebook=ps1.ipynb"], {"command"}),
        ([sys.executable, "-m", "jupyterlab", "--no-browser"], {"server"}),
        ([sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"], {"server"}),
        (["/x/bin/dask", "scheduler"], {"cluster"}),
        (["/usr/bin/chromium", "--headless"], {"browser"}),
        (["/x/site-packages/playwright/driver/node", "cli.js", "run-driver"], {"browser"}),
        (["bwrap", "--die-with-parent", "python3"], set()),
        (
            [
                "bwrap",
                "--unshare-all",
                sys.executable,
                "-I",
                "-B",
                "-c",
                "import sys; from graders.sandbox.zygote import main; main(3)",
                "3",
                "/x",
            ],
            {"sandbox"},
        ),  # fmt: skip
    ],
)
def test_what_a_command_line_starts(argv: list[str], kinds: set[str]) -> None:
    assert started_by(argv) == kinds


def test_make_check_is_the_marker_expression_and_every_kind_is_registered() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert f'-m "{FAST}"' in makefile
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    for kind, why in KINDS.items():  # registered where pytest's users look, as said here
        assert f'"{kind}: {why}",' in pyproject, kind


def test_a_test_over_the_duration_budget_that_says_nothing_is_named(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_slow="""
import pytest

@pytest.fixture(scope="module")
def built():
    \"\"\"Built once for the module (it is slow on purpose).\"\"\"

def test_silent(): pass

def test_explains():
    \"\"\"Slow because it must be.\"\"\"

def test_explained_by_its_fixture(built): pass
"""
    )
    done = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-o", "duration_budget_s=0",
                                         "-o", f"pythonpath={HERE}", "-p", "duration_budget")  # fmt: skip
    summary = done.stdout.str().split("over 0 s without saying why", 1)[1]
    assert "test_slow.py::test_silent" in summary
    assert "test_explains" not in summary and "test_explained_by_its_fixture" not in summary
