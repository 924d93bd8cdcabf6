"""Hostile and broken learner code through the real sandbox, at every level this machine offers.

Every case of ``tests/sandbox_tasks/corpus`` must end with the status its file name says
and a message saying why, and the very next job on the same runner must succeed: one
bad submission costs one job, never the runner. A forced "plain" runner runs the corpus
too, so the fallback is tested wherever the suite runs.
"""

from __future__ import annotations

import os
import socket
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox_tasks import TASK, TASK_PATH, Case, load_corpus, source_of
from what_starts import listens_only, starts

from graders.sandbox import Job, Limits, Outcome, SandboxError, open_runner
from graders.sandbox.ipc import objects

REPO = Path(__file__).resolve().parent.parent.parent
LEVELS = ("bubblewrap", "unshare", "plain")
# A case that must finish gets a budget a busy machine cannot exhaust (1,500 mkdirs took over
# 2 s with six other processes on two cores); only the cases meant to time out get SHORT.
LIMITS = Limits(
    timeout_s=15.0, memory_mib=1536, max_output_bytes=4096, max_result_bytes=1 << 20, max_procs=16
)
SHORT = Limits(
    timeout_s=1.0, memory_mib=1536, max_output_bytes=4096, max_result_bytes=1 << 20, max_procs=16
)
SECRET_NAME, SECRET = "GRADERS_SANDBOX_TEST_SECRET", "hunter2-" + uuid.uuid4().hex


class World:
    """What the hostile cases aim at: a hidden course, a listener, a secret, outside paths."""

    def __init__(self, root: Path) -> None:
        # Open to everyone, so that file modes are not what keeps the children out.
        root.chmod(0o777)
        self.course = root / "course"
        self.course.mkdir(mode=0o755)
        self.solution = self.course / "solution.py"
        self.solution.write_text("ANSWER = 42\n")
        self.solution.chmod(0o644)
        self.outside = root / "outside.txt"
        self.outside_tmp = Path(tempfile.gettempdir()) / f"graders-outside-{uuid.uuid4().hex}.txt"
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.token = f"fill-{uuid.uuid4().hex}"

    def args(self, case: str) -> dict[str, Any]:
        return {
            "error__network_loopback": {"port": self.listener.getsockname()[1]},
            "error__write_outside_scratch": {"path": str(self.outside)},
            "error__read_hidden_course": {"path": str(self.solution)},
            "ok__environment_secrets": {"parent_pid": os.getpid()},
            "ok__fill_tmp": {"token": self.token},
        }.get(case, {})

    def close(self) -> None:
        self.listener.close()


@pytest.fixture(scope="module")
@listens_only("the target of the network case: a listener nothing may reach")
def world() -> Iterator[World]:
    artifacts = REPO / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=artifacts) as root:
        world = World(Path(root))
        yield world
        world.close()


@pytest.fixture(scope="module", params=LEVELS)
@starts("sandbox")
def runner(request: pytest.FixtureRequest, world: World) -> Iterator[Any]:
    os.environ[SECRET_NAME] = SECRET  # present in the parent: children must not see it
    try:
        runner = open_runner(request.param, hide=[str(world.course)], task_paths=[TASK_PATH])
    except SandboxError as exc:
        pytest.skip(f"{request.param} is not available here: {exc}")
    finally:
        del os.environ[SECRET_NAME]
    yield runner
    runner.close()


def run_source(runner: Any, source: str, limits: Limits = LIMITS, **args: Any) -> Outcome:
    return runner.run(Job(TASK, {"source": source, "args": args}, limits))


def _no_connection(world: World, outcome: Outcome) -> None:
    with pytest.raises(BlockingIOError):
        world.listener.accept()


def _nothing_written(world: World, outcome: Outcome) -> None:
    assert not world.outside.exists()
    world.outside_tmp.unlink(missing_ok=True)


def _no_secret(world: World, outcome: Outcome) -> None:
    assert SECRET not in str(outcome.result)
    assert (
        outcome.result["result"]["environ"]["HOME"] == outcome.result["result"]["environ"]["TMPDIR"]
    )
    assert outcome.result["result"]["environ"]["OMP_NUM_THREADS"] == "1"


def _real_modules(world: World, outcome: Outcome) -> None:
    seen = outcome.result["result"]
    assert not seen["torch"].startswith(seen["cwd"]) and not seen["json"].startswith(seen["cwd"])
    assert seen["fresh"] == "not importable"


def _tmp_refused(world: World, outcome: Outcome) -> None:
    seen = outcome.result["result"]
    assert seen["tmp"] in ("EACCES", "EPERM", "EROFS", "ENOSPC")
    assert seen["one_huge_file"] == "EFBIG"  # the file size limit, not the disk
    assert seen["home"] is True
    assert not list(Path(tempfile.gettempdir()).glob(f"{world.token}-*"))


def _capped_output(world: World, outcome: Outcome) -> None:
    assert outcome.result == {"result": "flooded"}
    assert len(outcome.stdout) == LIMITS.max_output_bytes and set(outcome.stdout) <= {"x", "\n"}
    assert len(outcome.stderr) == LIMITS.max_output_bytes


def _single_thread_matmul(world: World, outcome: Outcome) -> None:
    assert outcome.result == {"result": {"threads": 1, "finite": True}}


def _threads_work(world: World, outcome: Outcome) -> None:
    assert outcome.result == {"result": {"seen": ["thread ran"], "threads": 2, "finite": True}}


def _no_course_path(world: World, outcome: Outcome) -> None:
    assert outcome.result["result"], "no command line was readable"
    assert not [line for line in outcome.result["result"] if str(world.course) in line], (
        outcome.result
    )


def _result_is(expected: str) -> Callable[[World, Outcome], None]:
    def check(world: World, outcome: Outcome) -> None:
        assert outcome.result == {"result": expected}, outcome

    return check


def _no_seal_found(world: World, outcome: Outcome) -> None:
    assert "seal found" not in outcome.stderr, outcome.stderr


CHECKS: dict[str, Callable[[World, Outcome], None]] = {
    "error__thread_left_running": _no_seal_found,
    "ok__proc_cmdline": _no_course_path,
    "ok__nested_directories": _result_is("nested"),
    "ok__mkdir_storm": _result_is("stormed"),
    "error__network_loopback": _no_connection,
    "error__write_outside_scratch": _nothing_written,
    "ok__environment_secrets": _no_secret,
    "ok__shadow_modules": _real_modules,
    "ok__fill_tmp": _tmp_refused,
    "ok__stdout_flood": _capped_output,
    "ok__matmul_512": _single_thread_matmul,
    "ok__threads": _threads_work,
    "ok__closed_result_channel": _result_is("nobody will hear this"),
    "ok__replaced_result_channel": _result_is("written into a decoy file"),
}
CORPUS = [c for c in load_corpus() if c.name != "ok__process_is_gone"]


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_corpus_case_has_its_outcome_and_the_next_job_runs(
    runner: Any, world: World, case: Case
) -> None:
    limits = SHORT if case.status == "timeout" else LIMITS
    outcome = run_source(runner, case.source, limits, **world.args(case.name))

    assert (outcome.status, outcome.isolation) == (case.status, runner.isolation), outcome
    assert case.expect in outcome.message, outcome.message
    assert (outcome.result is not None) == (case.status == "ok")
    CHECKS.get(case.name, lambda w, o: None)(world, outcome)
    after = run_source(runner, source_of("ok__reference"))
    assert (after.status, after.result) == ("ok", {"result": [2.0, 4.0]}), after


def test_a_setsid_daemon_does_not_survive_its_job(runner: Any) -> None:
    daemon = run_source(runner, source_of("ok__daemon_survives_setsid"))
    assert daemon.status == "ok", daemon

    check = run_source(runner, source_of("ok__process_is_gone"), pid=daemon.result["result"])

    assert check.result == {"result": "gone"}, check


def test_monkeypatching_does_not_reach_the_next_job(runner: Any) -> None:
    patched = run_source(runner, source_of("ok__monkeypatch_everything"))
    assert patched.result == {"result": "patched"}, patched

    after = run_source(runner, "import torch\nresult = [len('ab'), (torch.ones(2) + 1).tolist()]")

    assert after.result == {"result": [2, [2.0, 2.0]]}, after


def test_a_module_the_server_never_imported_can_be_imported(runner: Any) -> None:
    if any("cannot read" in note for note in runner.notes):
        pytest.skip(
            "at this level the interpreter's own directory is private to its owner: "
            + "; ".join(runner.notes)
        )
    outcome = run_source(
        runner, "import colorsys, encodings.idna\nresult = colorsys.rgb_to_hsv(1, 0, 0)"
    )

    assert outcome.result == {"result": [0.0, 1.0, 1]}, outcome


def test_plain_level_says_it_is_reduced(runner: Any) -> None:
    assert any("reduced isolation" in note for note in runner.notes) == (
        runner.isolation == "plain"
    )


def test_no_ipc_object_outlives_the_corpus(runner: Any) -> None:
    # After every case ran (module scope): the host's SysV tables hold nothing of the children.
    uids = {w.config["uid"] for w in runner._workers} - {None}
    for table in ("shm", "msg", "sem"):
        assert not {creator for _ident, creator in objects(table)} & uids, table


def test_a_result_line_forged_before_the_child_ends_is_tampering(runner: Any) -> None:
    # The forged line is well formed and arrives first, but it lacks the step's seal, which
    # does not exist until the task has returned; the child then goes on running.
    forge = (
        "import os, time\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        '        os.write(fd, b\'{"end":0,"ok":{"result":"full marks"}}\\n\')\n'
        "    except OSError:\n"
        "        pass\n"
        "time.sleep(1000)\n"
    )
    outcome = run_source(runner, forge, SHORT)

    assert outcome.status == "integrity", outcome
    assert "the code wrote to the grader's channel" in outcome.message
    assert outcome.result is None


ONE_PROCESS = Limits(
    timeout_s=15.0,
    memory_mib=1536,
    max_output_bytes=4096,
    max_result_bytes=1 << 20,
    may_fork=False,
)


@pytest.mark.parametrize(
    "source",
    [
        "import os\nresult = os.fork()",
        "import os\nresult = os.execv('/bin/true', ['true'])",
        "import subprocess\nresult = subprocess.run(['true']).returncode",
        "import os\nresult = os.posix_spawn('/bin/true', ['true'], {})",
        "import multiprocessing as mp\np = mp.Process(target=print)\np.start()\nresult = 1",
    ],
    ids=["fork", "exec", "subprocess", "posix_spawn", "multiprocessing"],
)
def test_a_job_of_one_process_cannot_start_another(runner: Any, source: str) -> None:
    if runner.isolation == "unsafe" or any("no syscall filter" in note for note in runner.notes):
        pytest.skip("no syscall filter here")
    outcome = run_source(runner, source, ONE_PROCESS)

    assert outcome.status == "error", outcome
    # Refused by the kernel (or, at "plain", multiprocessing cannot even be imported).
    assert any(
        why in outcome.message
        for why in ("Operation not permitted", "PermissionError", "No module named")
    ), outcome.message


def test_a_job_of_one_process_may_still_use_threads(runner: Any) -> None:
    source = (
        "from concurrent.futures import ThreadPoolExecutor\n"
        "with ThreadPoolExecutor(4) as pool:\n"
        "    result = sorted(pool.map(lambda x: x * x, range(8)))\n"
    )
    outcome = run_source(runner, source, ONE_PROCESS)

    assert outcome.result == {"result": [0, 1, 4, 9, 16, 25, 36, 49]}, outcome


def test_each_job_runs_in_a_child_of_its_own(runner: Any) -> None:
    # What one job leaves in its process (a module attribute, a patched builtin) is not in
    # the next job's, even when both are run in one call.
    jobs = [
        Job(TASK, {"source": src}, LIMITS)
        for src in (
            "import os, builtins\nbuiltins.LEFT_BEHIND = 1\nresult = os.getpid()",
            "import os, builtins\nresult = [os.getpid(), hasattr(builtins, 'LEFT_BEHIND')]",
        )
    ]
    first, second = runner.run_all(jobs)

    assert first.status == second.status == "ok", (first, second)
    assert second.result["result"][1] is False
    assert second.result["result"][0] != first.result["result"]


def test_a_result_line_forged_before_the_child_kills_itself_is_tampering(runner: Any) -> None:
    # The forged line, then a death that keeps the child's own line from ever being sent:
    # without the step's seal the line is not the child's, whatever follows it.
    forge = (
        "import os, signal\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        '        os.write(fd, b\'{"end":0,"ok":{"result":"full marks"}}\\n\')\n'
        "    except OSError:\n"
        "        pass\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    outcome = run_source(runner, forge)

    assert outcome.status == "integrity", outcome
    assert "the code wrote to the grader's channel" in outcome.message


# Every way but a write from the task's thread to the step socket (CHANNEL_FD in every
# child), each answered by the kernel as if it were not open (or, for descriptor passing,
# refused outright); the result still reaches the keeper.
CHANNEL_ROUTES = """
import ctypes, errno, fcntl, os, socket, array, threading

seen = {}
libc = ctypes.CDLL(None, use_errno=True)

def attempt(name, call):
    try:
        call()
        seen[name] = "done"
    except OSError as exc:
        seen[name] = errno.errorcode.get(exc.errno, str(exc.errno))

def syscall(*args):
    if libc.syscall(*args) < 0:
        raise OSError(ctypes.get_errno(), "refused")

a, b = socket.socketpair()
attempt("read", lambda: os.read(3, 1))
attempt("dup", lambda: os.dup(3))
attempt("dup2 from", lambda: os.dup2(3, 40))
attempt("dup2 onto", lambda: os.dup2(1, 3))
attempt("fcntl dupfd", lambda: fcntl.fcntl(3, fcntl.F_DUPFD, 40))
attempt("fcntl setfl", lambda: fcntl.fcntl(3, fcntl.F_SETFL, os.O_NONBLOCK))
attempt("close", lambda: os.close(3))
attempt("close_range", lambda: syscall(436, 3, 3, 0))
attempt("shutdown", lambda: syscall(48, 3, socket.SHUT_WR))
attempt("setsockopt", lambda: syscall(54, 3, socket.SOL_SOCKET, socket.SO_SNDBUF, 0, 0))
attempt("fromfd", lambda: socket.fromfd(3, socket.AF_UNIX, socket.SOCK_STREAM))
attempt("a socket object on the number", lambda: socket.socket(fileno=3))
attempt("pidfd_getfd", lambda: syscall(438, os.pidfd_open(os.getpid()), 3, 0))
attempt("pass it in a message", lambda: a.sendmsg(
    [b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [3]))]))
in_thread = {}

def from_a_thread():
    try:
        os.dup(3)
        in_thread["dup"] = "done"
    except OSError as exc:
        in_thread["dup"] = errno.errorcode[exc.errno]
thread = threading.Thread(target=from_a_thread)
thread.start()
thread.join()
seen["dup from a thread the task started"] = in_thread["dup"]
result = seen
"""
QUIET = {
    "read": "EBADF",
    "dup": "EBADF",
    "dup2 from": "EBADF",
    "dup2 onto": "EBADF",
    "fcntl dupfd": "EBADF",
    "fcntl setfl": "EBADF",
    "close": "EBADF",
    "close_range": "EBADF",
    "shutdown": "EBADF",
    "setsockopt": "EBADF",
    "fromfd": "EBADF",
    "a socket object on the number": "EBADF",
    "pidfd_getfd": "EPERM",
    "pass it in a message": "EPERM",
    "dup from a thread the task started": "EBADF",
}


def test_the_task_s_thread_reaches_the_step_socket_by_no_route(runner: Any) -> None:
    outcome = run_source(runner, CHANNEL_ROUTES)

    assert outcome.status == "ok", outcome
    assert outcome.result == {"result": QUIET}


# Every 32-hex-digit string the task can reach: what a seal looks like (secrets.token_hex).
SEAL_HUNT = """
import gc, re, sys

shape = re.compile("[0-9a-f]{32}")
found = set()

def look(value):
    if type(value) is str and len(value) == 32 and shape.fullmatch(value):
        found.add(value)

for obj in gc.get_objects():
    if isinstance(obj, dict):
        for value in list(obj.values()):
            look(value)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for value in list(obj):
            look(value)
for frame in sys._current_frames().values():
    while frame is not None:
        for value in list(frame.f_locals.values()):
            look(value)
        frame = frame.f_back
result = sorted(found)
"""


def test_no_seal_exists_in_the_child_while_its_task_runs(runner: Any) -> None:
    # The step's seal is asked for by the child's main thread once the task has returned;
    # before, the job's seal sat in that thread's frame while the task ran.
    outcome = run_source(runner, SEAL_HUNT)

    assert (outcome.status, outcome.result) == ("ok", {"result": []}), outcome
    # Jobs run together find none either (a spent seal of an earlier job included).
    hunts = runner.run_all([Job(TASK, {"source": SEAL_HUNT, "args": {}}, LIMITS)] * 3)
    assert [(o.status, o.result) for o in hunts] == [("ok", {"result": []})] * 3, hunts


WRITES = {
    "os.write": "os.write(3, b'{}\\n')",
    "writev": "os.writev(3, [b'{}\\n'])",
    "a file object on the number": "import io; io.FileIO(3, 'w', closefd=False).write(b'x')",
    "send": "import ctypes; ctypes.CDLL(None).send(3, b'x', 1, 0)",
    "sendfile": "f = open('f', 'wb+'); f.write(b'x'); f.flush(); os.sendfile(3, f.fileno(), 0, 1)",
    "from a thread the task started": (
        "import threading; t = threading.Thread(target=os.write, args=(3, b'x')); "
        "t.start(); t.join()"
    ),
}


@pytest.mark.parametrize("route", WRITES.values(), ids=list(WRITES))
def test_a_write_on_the_step_socket_from_the_task_is_evidence(runner: Any, route: str) -> None:
    outcome = run_source(runner, f"import os\n{route}\nresult = 'honest'\n")

    assert (outcome.status, outcome.message) == (
        "integrity",
        "the code wrote to the grader's channel",
    ), outcome
    after = run_source(runner, source_of("ok__reference"))
    assert (after.status, after.result) == ("ok", {"result": [2.0, 4.0]}), after
