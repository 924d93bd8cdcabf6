"""The sandbox contract: limits and jobs, result frames, verdicts, the in-process fake, and the
warm fork server at the best level this machine offers (hostile code: test_sandbox_hostile.py).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sandbox_tasks import TASK, TASK_PATH, source_of
from what_starts import starts

from graders.sandbox import InProcessRunner, Job, Limits, SandboxError, open_runner
from graders.sandbox.child import Channel, ThreadsLeft, in_learner_thread
from graders.sandbox.paths import PRIVATE_TMP, make_view
from graders.sandbox.protocol import (
    FrameError,
    decode_frame,
    decode_line,
    encode_ask,
    encode_running,
    is_ask,
    is_running,
)
from graders.sandbox.reaper import parent_of
from graders.sandbox.verdict import channel_abuse, died, from_end, timed_out
from graders.sandbox.watch import stretched_deadline
from graders.sandbox.words import Words

LIMITS = Limits(timeout_s=5.0, memory_mib=1536, max_output_bytes=1000, max_result_bytes=4096)
MISSING_PRELOAD = "sandbox_tasks.not_written_yet"


def exited(code: int) -> int:
    return code << 8  # a wait status as waitpid reports it


@pytest.mark.parametrize(
    "fields",
    [
        {"timeout_s": 0},
        {"memory_mib": -1},
        {"max_procs": True},
        {"max_output_bytes": "big"},
    ],
    ids=str,
)
def test_limits_refuse_what_is_not_a_positive_number(fields: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(fields))):
        Limits(**fields)


@pytest.mark.parametrize(
    "task, payload",
    [
        ("graders.kinds.predict.child.task", {}),
        ("graders.kinds.predict.child.task:compute:x", {}),
        ("1mod:task", {}),
        ("mod:task", [1]),
    ],
    ids=str,
)
def test_jobs_refuse_malformed_tasks_and_payloads(task: str, payload: Any) -> None:
    with pytest.raises(ValueError):
        Job(task, payload)


@pytest.mark.parametrize(
    "data, kind",
    [
        (b'{"end":0,"seal":"s","ok":{"a":[1,2,{"b":null}]}}', "ok"),
        (b'{"end":0,"seal":"s","error":"ValueError: boom"}', "error"),
        (b'{"end":0,"seal":"s","integrity":"the result is nested too deeply"}', "integrity"),
    ],
)
def test_well_formed_step_lines_are_read(data: bytes, kind: str) -> None:
    assert decode_line(data, 0, "s")[0] == kind


@pytest.mark.parametrize(
    "data, message",
    [
        (b'{"end":1,"seal":"s","ok":{}}', "channel"),
        (b'{"begin":0}', "channel"),  # only the keeper begins a step
        (b'{"end":0,"ok":{}}', "channel"),  # not sealed: not the child's own line
        (b'{"end":0,"seal":"t","ok":{}}', "channel"),  # another step's seal
        (b'{"end":0,"seal":"\\u00e9","ok":{}}', "channel"),
        (b'{"end":0,"seal":["s"],"ok":{}}', "channel"),
        (b'{"begin":1}', "channel"),
        (b'{"end":true,"seal":"s","ok":{}}', "channel"),
        (b'{"end":0,"seal":"s","ok":{"x":NaN}}', "NaN"),
        (b'{"end":0,"seal":"s","ok":{"x":-Infinity}}', "Infinity"),
        (b"[" * 200_000 + b"]" * 200_000, "nested"),
        (b'{"end":0,"seal":"s","ok":{"a":' + b"[" * 150 + b"]" * 150 + b"}}", "nested"),
        (b'{"end":0,"seal":"s","ok":[1]}', "not an object"),
        (b'{"end":0,"seal":"s","ok":{},"error":"x"}', "channel"),
        (b'{"ok":{"result":"full marks"}}', "channel"),
        (b'{"score":100}', "channel"),
        (b'{"end":0,"seal":"s","error":{"forged":1}}', "channel"),
        (b"\xff\xfe", "not valid JSON"),
        (b"total: 100/100", "not valid JSON"),
    ],
    ids=lambda v: v[:30] if isinstance(v, bytes) else v,
)
def test_malformed_step_lines_are_refused_with_a_reason(data: bytes, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        decode_line(data, 0, "s")


def test_a_line_before_the_step_s_seal_was_given_is_refused_whatever_it_carries() -> None:
    # The keeper makes a step's seal only when the child asks for it: until then no line is
    # the child's, and the ask is recognised only as the child writes it, for this step.
    with pytest.raises(FrameError, match="channel"):
        decode_line(b'{"end":0,"seal":"","ok":{}}', 0, None)
    assert is_ask(encode_ask(2).rstrip(b"\n"), 2)
    assert not is_ask(encode_ask(1).rstrip(b"\n"), 2)
    assert not is_ask(b'{"ask": 2}', 2)  # not the child's bytes: decoded, and refused, as a line


def test_no_seal_is_asked_while_a_thread_the_task_started_still_runs() -> None:
    # ``Channel.seal`` is the one place a seal enters the child: it compares Python's thread
    # count with the count when the channel was made, before any task ran.
    keeper, child = socket.socketpair()
    # When made; then a thread left running (counted by Python, then only listed by the
    # kernel: one whose thread-local value's finalizer runs on), for longer than a thread
    # takes to end; then none.
    running = [(1, 1)]
    channel = Channel(child.fileno(), threads=lambda: running[0])
    running[0] = (2, 2)

    with pytest.raises(ThreadsLeft):
        channel.seal(0)
    assert keeper.recv(100) == encode_running(0)  # told, unsealed; nothing asked
    running[0] = (1, 2)
    with pytest.raises(ThreadsLeft):
        channel.seal(0)
    assert keeper.recv(100) == encode_running(0)
    running[0] = (1, 1)
    keeper.sendall(b"5e" * 16 + b"\n")
    assert channel.seal(1) == "5e" * 16
    assert keeper.recv(100) == encode_ask(1)
    assert is_running(encode_running(3).rstrip(b"\n"), 3)
    assert not is_running(encode_running(3).rstrip(b"\n"), 2)
    keeper.close()
    child.close()


def test_the_task_s_thread_has_ended_when_its_call_returns() -> None:
    # Ended, not only returned from the task: else the seal's count still sees it and an
    # honest task is told it left a thread running (Python counts a thread until its end).
    import _thread
    import gc

    call = in_learner_thread(None)
    before = _thread._count()
    try:
        for _ in range(50):
            assert call(lambda payload: {"n": payload["n"]}, {"n": 1}) == ("returned", {"n": 1})
            assert _thread._count() == before
    finally:
        gc.enable()  # the call leaves the collector off, as the child's main thread wants it


RECORD = {
    "status": "ok",
    "result": {"v": 1},
    "message": "",
    "stdout": "",
    "stderr": "",
    "duration_s": 0.1,
    "words": None,
}
TIMED_OUT = {
    **RECORD,
    "status": "timeout",
    "result": None,
    "message": "the code did not finish within the time limit of 5 s",
    "words": {
        "sentence": "the code did not finish within the time limit of {limit} s",
        "fields": {"limit": "5"},
    },
}


@pytest.mark.parametrize(
    "frame, message",
    [
        ({"token": "t", "steps": [RECORD]}, None),
        ({"token": "other", "steps": [RECORD]}, "this job's keeper"),
        ({"token": "t", "steps": [RECORD, RECORD, RECORD]}, "number of steps"),
        ({"token": "t", "steps": [{**RECORD, "status": "passed"}]}, "status"),
        ({"token": "t", "steps": [{**RECORD, "result": None}]}, "status"),
        ({"token": "t", "steps": [{**RECORD, "duration_s": "fast"}]}, "duration_s"),
        ({"token": "t", "steps": [RECORD], "score": 1}, "this job's keeper"),
        ({"token": "t", "steps": [{k: v for k, v in RECORD.items() if k != "words"}]}, "malformed"),
        ({"token": "t", "steps": [{**TIMED_OUT, "words": "5 s"}]}, "malformed words"),
        (
            {
                "token": "t",
                "steps": [{**TIMED_OUT, "words": {"sentence": "{limit} s", "fields": {}}}],
            },
            "malformed words",
        ),
        (
            {
                "token": "t",
                "steps": [{**TIMED_OUT, "words": {"sentence": "x", "fields": {"a": 1}}}],
            },
            "malformed words",
        ),
    ],
    ids=str,
)
def test_the_runner_reads_only_frames_a_keeper_writes(
    frame: dict[str, Any], message: str | None
) -> None:
    data = json.dumps(frame).encode() + b"\n"
    if message is None:
        assert decode_frame(data, "t", 2) == frame["steps"]
    else:
        with pytest.raises(FrameError, match=message):
            decode_frame(data, "t", 2)


@pytest.mark.parametrize(
    "verdict, status, message",
    [
        (from_end("ok", {"v": 1}), "ok", ""),
        (from_end("error", "ValueError: boom"), "error", "ValueError: boom"),
        (from_end("internal", "rlimit failed"), "error", "could not run the job: rlimit failed"),
        (died(exited(0)), "error", "os._exit() or sys.exit()"),
        (died(exited(3)), "error", "exit status 3"),
        (died(signal.SIGSEGV), "error", "killed by SIGSEGV"),
        (died(signal.SIGKILL), "error", "too much memory"),
        (died(signal.SIGKILL, "1280 MiB"), "error", "exceeded the memory limit (1280 MiB)"),
        (died(signal.SIGXCPU), "error", "CPU time limit"),
        (timed_out(5.0), "timeout", "time limit of 5 s"),
        (channel_abuse(Words("the code wrote to the grader's channel")), "integrity", "channel"),
    ],
    ids=lambda v: v.message if hasattr(v, "message") else None,
)
def test_verdicts(verdict: Any, status: str, message: str) -> None:
    assert verdict.status == status
    assert message in verdict.message
    assert (verdict.result is not None) == (status == "ok")
    # The sandbox's own sentences come with their words; what the child wrote, without.
    assert (verdict.words is None) == (status == "ok" or verdict.message == "ValueError: boom")
    assert verdict.words is None or str(verdict.words) == verdict.message


def test_a_keeper_s_words_reach_the_runner_as_its_sentence_and_values() -> None:
    data = json.dumps({"token": "t", "steps": [TIMED_OUT]}).encode() + b"\n"
    (record,) = decode_frame(data, "t", 1)
    assert record["words"] == Words(
        "the code did not finish within the time limit of {limit} s", {"limit": "5"}
    )


# The in-process fake and the real runner must agree on what these sources become.
AGREED = [
    ("result = {'x': [1, 2.5, None, 'a']}", "ok", ""),
    ("raise KeyError('missing')", "error", "KeyError: 'missing'"),
    ("import sys; sys.exit(2)", "error", "sys.exit(2)"),
    ("result = float('nan')", "integrity", "NaN"),
    ("result = {1, 2}", "integrity", "not plain JSON"),
    ("result = 'x' * 5000", "integrity", "larger than the limit"),
    ("print('hello'); import sys; print('oops', file=sys.stderr)", "ok", ""),
]


@pytest.fixture(scope="module")
def inprocess() -> InProcessRunner:
    return InProcessRunner(task_paths=[TASK_PATH])


@pytest.fixture(scope="module")
@starts("sandbox")
def runner() -> Iterator[Any]:
    with open_runner(
        workers=2,
        task_paths=[TASK_PATH],
        preload=("graders.kinds.predict.child.task", MISSING_PRELOAD),
    ) as runner:
        yield runner


@pytest.mark.parametrize("source, status, message", AGREED, ids=[s for s, _, _ in AGREED])
def test_the_in_process_fake_agrees_with_the_fork_server(
    inprocess: InProcessRunner, runner: Any, source: str, status: str, message: str
) -> None:
    job = Job(TASK, {"source": source}, LIMITS)
    fake, real = inprocess.run(job), runner.run(job)

    assert (fake.status, fake.result, fake.stdout, fake.stderr) == (
        real.status,
        real.result,
        real.stdout,
        real.stderr,
    )
    assert (fake.status, fake.isolation) == (status, "inprocess")
    assert message in fake.message and message in real.message


def test_what_another_thread_prints_while_a_fake_job_runs_stays_that_threads(
    inprocess: InProcessRunner,
) -> None:
    # A service in the process (the fake's users) prepares while a test's command line,
    # its output swapped in, prints: each keeps what it printed.
    import contextlib
    import io
    import threading
    import types

    sync = types.SimpleNamespace(started=threading.Event(), may_end=threading.Event())
    sys.modules["_fake_job_sync"] = sync  # type: ignore[assignment]
    source = (
        "import _fake_job_sync as sync\nprint('from the job')\nsync.started.set()\n"
        "sync.may_end.wait(30)\nprint('job again')\nresult = 1"
    )
    got: list[Any] = []
    before = sys.stdout
    try:
        with contextlib.redirect_stdout(mine := io.StringIO()):
            job = threading.Thread(
                target=lambda: got.append(inprocess.run(Job(TASK, {"source": source}, LIMITS)))
            )
            job.start()
            assert sync.started.wait(30)
            print("from the test")
            sync.may_end.set()
            job.join(30)
    finally:
        del sys.modules["_fake_job_sync"]
    assert mine.getvalue() == "from the test\n"
    assert got[0].stdout == "from the job\njob again\n"
    assert sys.stdout is before


def test_the_in_process_fake_refuses_an_unknown_task(inprocess: InProcessRunner) -> None:
    with pytest.raises(SandboxError, match="no_such_module"):
        inprocess.run(Job("no_such_module:task", {}))


def test_outcomes_record_the_level_the_runner_chose(runner: Any) -> None:
    outcome = runner.run(Job("graders.sandbox.selftest:autograd", {"values": [1.0, -2.0]}, LIMITS))

    assert outcome.result == {"grad": [2.0, -4.0]}
    assert outcome.isolation == runner.isolation
    assert runner.isolation in ("bubblewrap", "unshare", "plain")


def test_jobs_from_many_threads_each_get_their_own_result(runner: Any) -> None:
    source = "import torch\nresult = (torch.tensor(float(args['n'])) * 2).item()"
    jobs = [Job(TASK, {"source": source, "args": {"n": n}}, LIMITS) for n in range(8)]

    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(runner.run, jobs))

    assert [o.result for o in outcomes] == [{"result": 2.0 * n} for n in range(8)]


def test_a_payload_larger_than_a_pipe_reaches_the_child(runner: Any) -> None:
    text = "é" * (3 << 20)
    outcome = runner.run(
        Job(TASK, {"source": "result = len(args['text'])", "args": {"text": text}}, LIMITS)
    )

    assert outcome.result == {"result": len(text)}


def test_output_is_captured_capped_and_decoded_leniently(runner: Any) -> None:
    source = "import os, sys\nprint('hello')\nsys.stdout.flush()\nos.write(1, b'\\xff' + b'y' * 5000)\nresult = 1"
    outcome = runner.run(Job(TASK, {"source": source}, LIMITS))

    assert outcome.stdout.startswith("hello\n\ufffdyyy")
    assert len(outcome.stdout.encode()) <= LIMITS.max_output_bytes + 2  # U+FFFD takes 3 bytes for 1


def test_an_unknown_task_is_refused_and_the_runner_goes_on(runner: Any) -> None:
    with pytest.raises(SandboxError, match="no_such_module"):
        runner.run(Job("no_such_module:task", {}, LIMITS))

    assert runner.run(Job(TASK, {"source": source_of("ok__reference")}, LIMITS)).status == "ok"


BUSY_LOOP = "while True:\n    pass\n"
SLEEPS_THEN_ANSWERS = "import time\ntime.sleep(1.5)\nresult = 'awake'\n"


def test_a_busy_loop_is_stopped_at_its_cpu_budget_long_before_its_wall_budget(
    runner: Any,
) -> None:
    limits = replace(LIMITS, timeout_s=60.0, cpu_s=0.5)

    outcome = runner.run(Job(TASK, {"source": BUSY_LOOP}, limits))

    assert outcome.status == "timeout"
    assert "0.5 s of CPU time" in outcome.message  # not the wall budget of 60 s


def test_waiting_costs_no_cpu_budget(runner: Any) -> None:
    limits = replace(LIMITS, timeout_s=30.0, cpu_s=0.5)

    outcome = runner.run(Job(TASK, {"source": SLEEPS_THEN_ANSWERS}, limits))

    assert (outcome.status, outcome.result) == ("ok", {"result": "awake"})


def test_each_step_has_its_own_cpu_budget(runner: Any) -> None:
    spends = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end:\n    pass\nresult = 1\n"
    limits = replace(LIMITS, timeout_s=30.0, cpu_s=0.7)

    outcomes = runner.run_all([Job(TASK, {"source": spends}, limits) for _ in range(3)])

    assert [o.status for o in outcomes] == ["ok", "ok", "ok"]  # 1.2 s in all, 0.4 s each


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_an_endless_flood_is_stopped_once_it_has_written_its_budget(
    runner: Any, stream: str
) -> None:
    flood = f"import sys\nwhile True:\n    sys.{stream}.write('x' * 4095 + '\\n')\n"
    limits = replace(LIMITS, timeout_s=60.0, cpu_s=60.0, max_flood_bytes=4 << 20)

    outcome = runner.run(Job(TASK, {"source": flood}, limits))

    assert outcome.status == "error"
    assert f"more than 4 MiB to {stream}" in outcome.message  # not the wall budget of 60 s
    assert len(getattr(outcome, stream)) == LIMITS.max_output_bytes  # what it wrote first, kept


def test_a_memory_limit_below_the_warm_interpreter_is_explained(runner: Any) -> None:
    outcome = runner.run(Job(TASK, {"source": "result = 1"}, Limits(memory_mib=100)))

    assert outcome.status == "error"
    assert "raise limits.memory_mib" in outcome.message


def test_a_preload_module_that_is_missing_is_noted_not_fatal(runner: Any) -> None:
    assert any(note.startswith(MISSING_PRELOAD) for note in runner.notes)


@pytest.mark.sandbox
def test_a_closed_runner_refuses_jobs() -> None:
    runner = open_runner("unsafe", task_paths=[TASK_PATH], preload=())
    runner.close()
    runner.close()

    with pytest.raises(SandboxError, match="closed"):
        runner.run(Job(TASK, {"source": "result = 1"}))


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"level": "containers"}, SandboxError),
        ({"level": "plain", "require_full": True}, SandboxError),
        ({"workers": 0}, ValueError),
        ({"hide": ["/usr/lib"]}, SandboxError),
    ],
    ids=str,
)
def test_open_runner_refuses_what_it_cannot_do(kwargs: dict[str, Any], error: type) -> None:
    with pytest.raises(error):
        open_runner(**kwargs)


def test_the_view_masks_hidden_paths_and_keeps_what_children_read(tmp_path: Any) -> None:
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    view = make_view(hide=[package], task_paths=[TASK_PATH])

    # Hidden by a mask of its own, or by the private /tmp when the checkout lives under /tmp.
    hidden_by = [
        m
        for m in (*view.masks, PRIVATE_TMP)
        if os.path.realpath(package).startswith(m.rstrip("/") + "/")
        or os.path.realpath(package) == m
    ]
    assert hidden_by, view
    assert os.path.join(os.path.realpath(package), "graders") in view.keeps


def _kill_server_when_its_job_runs(worker: Any, times: int) -> None:
    """Kill ``worker``'s fork server from outside (as the OOM killer would), once a job's child
    runs in it (beside the keeper and the next job's spare, all children of the server);
    ``times`` times, each time in the server that replaced the last one."""
    killed: set[int] = set()
    deadline = time.monotonic() + 120
    while len(killed) < times and time.monotonic() < deadline:
        server = worker.proc
        if (
            server is not None
            and server.pid not in killed
            and server.poll() is None
            and sum(parent_of(p) == server.pid for p in _pids()) >= 3
        ):
            server.kill()
            killed.add(server.pid)
        time.sleep(0.02)


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "kills, source, expected",
    [
        (
            1,
            "import time\ntime.sleep(3)\nresult = 'slept'",
            ("ok", ""),
        ),  # replaced, and the job retried once
        (
            2,
            "import time\ntime.sleep(60)",
            ("error", "the sandbox stopped unexpectedly"),
        ),  # that job only
    ],
    ids=["killed-once-retried", "killed-twice-lost"],
)
def test_a_server_that_dies_mid_job_costs_at_most_that_job_and_leaves_nothing(
    kills: int, source: str, expected: tuple[str, str]
) -> None:
    slow = Limits(timeout_s=60.0, memory_mib=1536)
    with (
        open_runner("plain", task_paths=[TASK_PATH], preload=()) as runner,
        ThreadPoolExecutor(1) as pool,
    ):
        worker = runner._workers[0]
        killer = pool.submit(_kill_server_when_its_job_runs, worker, kills)
        outcome = runner.run(Job(TASK, {"source": source}, slow))
        killer.result()
        after = runner.run(Job(TASK, {"source": source_of("ok__reference")}, LIMITS))

    assert (outcome.status, outcome.message) == expected, outcome
    assert after.status == "ok"
    if worker.config["uid"] is not None:
        assert not [
            p for p in os.listdir("/proc") if p.isdigit() and _owner(p) == worker.config["uid"]
        ]


@pytest.mark.sandbox
def test_a_runner_begun_before_its_modules_are_known_installs_them_in_every_server_it_starts() -> (
    None
):
    # A command starts the sandbox before it has read its course (the warm-up passes while
    # it does); the course's modules come later, and a server started again after one died
    # gets them too.
    from graders.sandbox.runner import begin_runner

    given = {"graders_given_later": ("given.py", "ANSWER = 42\n")}
    uses = {"source": "import graders_given_later\nresult = graders_given_later.ANSWER"}
    with begin_runner("plain", task_paths=[TASK_PATH], preload=()) as runner:
        with pytest.raises(SandboxError, match="not ready"):
            runner.run(Job(TASK, uses, LIMITS))
        runner.finish_start(given)
        first = runner.run(Job(TASK, uses, LIMITS))
        server = runner._workers[0].proc
        assert server is not None
        server.kill()
        server.wait()
        again = runner.run(Job(TASK, uses, LIMITS))
    assert (first.status, first.result) == ("ok", {"result": 42}), first
    assert (again.status, again.result) == ("ok", {"result": 42}), again
    assert runner._workers[0].proc is None  # closed: the new server stopped too


@pytest.mark.sandbox
def test_a_runner_closed_while_its_servers_warm_stops_them_at_once() -> None:
    # A command that started its sandbox early and then needed no job (a notebook whose
    # code cell holds nothing to run) does not wait for torch's warm-up to end: no job ran,
    # so there is nothing to clean up, and the server is killed rather than waited for.
    from graders.sandbox.runner import begin_runner

    runner = begin_runner("plain", task_paths=[TASK_PATH], preload=())
    server = runner._workers[0].proc
    assert server is not None
    runner.close()
    assert server.returncode == -signal.SIGKILL


@pytest.fixture
def job_pipe_inodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The inodes of the two pipes the runner hands each job's keeper, as jobs are run."""
    from graders.sandbox import worker as worker_module

    inodes: list[int] = []

    class Recorded(worker_module.JobPipes):  # type: ignore[misc]
        def __init__(self, payload: bytes, max_frame: int) -> None:
            super().__init__(payload, max_frame)
            inodes.extend(os.fstat(fd).st_ino for fd in self.keeper_ends)

    monkeypatch.setattr(worker_module, "JobPipes", Recorded)
    return inodes


@pytest.mark.sandbox
def test_once_a_job_is_over_no_process_holds_its_pipes(job_pipe_inodes: list[int]) -> None:
    # The runner's two pipes of a job end with it: a keeper forked for the job (the first
    # job's, or one replacing a stale keeper) or a spare that kept a copy of the result
    # pipe's write end would hold the frame open, and the runner would wait for an end of
    # file that never came (it gave up after a second: every first job cost a second more).
    with open_runner("plain", task_paths=[TASK_PATH], preload=()) as runner:
        for _ in range(2):  # the first job forks the keeper; the second finds it
            assert runner.run(Job(TASK, {"source": source_of("ok__reference")}, LIMITS)).ok
            held = {f"pipe:[{inode}]" for inode in job_pipe_inodes} & _pipes_held()
            assert not held, f"a process still holds a finished job's pipes: {held}"


@pytest.mark.sandbox
def test_a_job_s_child_holds_none_of_the_runner_s_pipes(job_pipe_inodes: list[int]) -> None:
    # The child of the first job is forked again inside the hand-over (the job's task was
    # imported in the server just before, so the spare was stale), while the server holds
    # the runner's payload and result pipes: it must not keep a copy of either.
    own_fds = (
        "import os\n"
        "result = []\n"
        "for fd in os.listdir('/proc/self/fd'):\n"
        "    try:\n"
        "        result.append(os.readlink(f'/proc/self/fd/{fd}'))\n"
        "    except OSError:\n"
        "        pass  # the listing's own descriptor, closed by now\n"
    )
    with open_runner("plain", task_paths=[TASK_PATH], preload=()) as runner:
        outcome = runner.run(Job(TASK, {"source": own_fds}, LIMITS))
    assert outcome.ok, outcome
    assert not {f"pipe:[{inode}]" for inode in job_pipe_inodes} & set(outcome.result)


def _pipes_held() -> set[str]:
    """Every pipe some process on this machine holds open, as /proc names it."""
    found = set()
    for pid in _pids():
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue  # gone, or not ours to read
        for fd in fds:
            try:
                found.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                continue
    return {name for name in found if name.startswith("pipe:")}


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _owner(pid: str) -> int | None:
    """The uid a process runs as; None when it is gone or a zombie (it has exited: only its
    exit status waits to be read, by whichever process adopted it, on that one's time)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
    except OSError:
        return None
    if fields.get("State", "").split()[:1] == ["Z"]:
        return None
    return int(fields["Uid"].split()[0])


def test_a_jobs_memory_cgroup_counts_the_pages_its_address_space_limit_misses() -> None:
    from graders.sandbox.memory import Cgroups, JobMemory

    groups, why_not = Cgroups.create()
    if groups is None:
        pytest.skip(f"no memory cgroup can be made here: {why_not}")
    try:
        memory = JobMemory(groups.for_server(0))
        memory.set_limit(64)
        pid = os.fork()
        if pid == 0:  # a memfd's pages are not mapped: RLIMIT_AS would never see them
            memory.admit(os.getpid())
            fd = os.memfd_create("hoard")
            for _ in range(32):
                os.write(fd, b"x" * (8 << 20))
            os._exit(0)
        status = os.waitpid(pid, 0)[1]
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
        assert memory.oom_kills() == 1
    finally:
        groups.close()


# Reads every readable mapping of its own memory and says whether the marker is in it.
SEARCH_OWN_MEMORY = """
import ctypes, hashlib, re
# The probe carries the secret's digest, never the secret: it looks at what follows each
# occurrence of the secret's prefix.
prefix, size, digest = args["prefix"].encode(), args["size"], args["digest"]
found = False
with open("/proc/self/maps") as maps:
    for line in maps:
        fields = line.split()
        start, end = (int(x, 16) for x in fields[0].split("-"))
        special = len(fields) > 5 and fields[5].startswith("[v")  # [vvar], [vsyscall]
        if fields[1][0] != "r" or special or end - start > 1 << 30:
            continue
        data = ctypes.string_at(start, end - start)
        for hit in re.finditer(re.escape(prefix), data):
            candidate = data[hit.start() : hit.start() + size]
            found = found or hashlib.sha256(candidate).hexdigest() == digest
result = found
"""


@pytest.mark.sandbox
def test_no_child_holds_what_an_earlier_job_sent_or_received() -> None:
    # One server: every job's child is forked from the same warm process, after the earlier
    # job's payload went to its keeper and its result came back from it.
    import hashlib

    secret = "earlier-" + os.urandom(8).hex()
    probe = {
        "prefix": "earlier-",
        "size": len(secret),
        "digest": hashlib.sha256(secret.encode()).hexdigest(),
    }
    with open_runner(workers=1, task_paths=[TASK_PATH], preload=()) as runner:
        earlier = runner.run(Job(TASK, {"source": f"result = {secret!r}"}, LIMITS))
        later = runner.run(Job(TASK, {"source": SEARCH_OWN_MEMORY, "args": probe}, LIMITS))
        # The control: the same probe finds the secret where it is (in its own source).
        here = f"kept = {secret!r}\n" + SEARCH_OWN_MEMORY
        control = runner.run(Job(TASK, {"source": here, "args": probe}, LIMITS))
    assert earlier.result == {"result": secret}
    assert control.result == {"result": True}, control
    assert later.result == {"result": False}, later


@pytest.mark.parametrize(
    "waited, deadline",
    [(0.0, 12.0), (1.5, 13.5), (-1.0, 12.0), (7.0, 18.0), (100.0, 18.0)],
    ids=["idle machine", "busy", "clock skew", "four budgets", "capped"],
)
def test_time_spent_waiting_for_a_cpu_does_not_count_against_the_wall_budget(
    waited: float, deadline: float
) -> None:
    # A step started at 10 s with a 2 s budget: a child kept off the CPU by the machine's
    # load gets that time back, up to four budgets in all.
    assert stretched_deadline(10.0, 2.0, waited) == deadline


def test_a_child_s_run_queue_wait_can_be_read_here() -> None:
    # The stretch needs /proc/<pid>/task/*/schedstat; where it is missing, the budget is
    # the plain wall clock (and this test says so instead of passing silently).
    path = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/schedstat")
    if not path.exists():
        pytest.skip("this kernel keeps no schedstat: wall budgets are not stretched here")
    assert len(path.read_text().split()) == 3
