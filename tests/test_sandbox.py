"""The sandbox contract: limits and jobs, result frames, verdicts, the in-process fake, and the
warm fork server at the best level this machine offers (hostile code: test_sandbox_hostile.py).
"""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import pytest

from graders.sandbox import InProcessRunner, Job, Limits, SandboxError, open_runner
from graders.sandbox.paths import PRIVATE_TMP, make_view
from graders.sandbox.protocol import FrameError, decode_frame
from graders.sandbox.verdict import EXIT_CHANNEL_LOST, Ending, judge
from sandbox_tasks import TASK, TASK_PATH, source_of

LIMITS = Limits(timeout_s=5.0, memory_mib=1536, max_output_bytes=1000, max_result_bytes=4096)
MISSING_PRELOAD = "sandbox_tasks.not_written_yet"


def exited(code: int) -> int:
    return code << 8  # a wait status as waitpid reports it


@pytest.mark.parametrize("fields", [
    {"timeout_s": 0}, {"memory_mib": -1}, {"max_procs": True}, {"max_output_bytes": "big"},
], ids=str)
def test_limits_refuse_what_is_not_a_positive_number(fields: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(fields))):
        Limits(**fields)


@pytest.mark.parametrize("task, payload", [
    ("graders.truth_child", {}), ("graders.truth_child:compute:x", {}), ("1mod:task", {}), ("mod:task", [1]),
], ids=str)
def test_jobs_refuse_malformed_tasks_and_payloads(task: str, payload: Any) -> None:
    with pytest.raises(ValueError):
        Job(task, payload)


@pytest.mark.parametrize("data, kind", [
    (b'{"ok":{"a":[1,2,{"b":null}]}}\n', "ok"),
    (b'{"error":"ValueError: boom"}\n', "error"),
    (b'{"integrity":"the result is nested too deeply"}\n', "integrity"),
])
def test_well_formed_frames_are_read(data: bytes, kind: str) -> None:
    assert decode_frame(data)[0] == kind


@pytest.mark.parametrize("data, message", [
    (b'{"ok":{}}', "cut off"),
    (b'{"ok":{}}\n{"ok":{}}\n', "more than one"),
    (b'{"ok":{"x":NaN}}\n', "NaN"),
    (b'{"ok":{"x":-Infinity}}\n', "Infinity"),
    (b"[" * 200_000 + b"]" * 200_000 + b"\n", "nested"),
    (b'{"ok":{"a":' + b"[" * 150 + b"]" * 150 + b"}}\n", "nested"),
    (b'{"ok":[1]}\n', "not an object"),
    (b'{"ok":{},"error":"x"}\n', "not a frame"),
    (b'{"score":100}\n', "not a frame"),
    (b'{"error":{"forged":1}}\n', "not a frame"),
    (b"\xff\xfe\n", "not valid JSON"),
    (b"total: 100/100\n", "not valid JSON"),
], ids=lambda v: v[:30] if isinstance(v, bytes) else v)
def test_malformed_frames_are_refused_with_a_reason(data: bytes, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        decode_frame(data)


@pytest.mark.parametrize("ending, frame, overflow, status, message", [
    (Ending(exited(0)), b'{"ok":{"v":1}}\n', False, "ok", ""),
    (Ending(exited(0)), b'{"error":"ValueError: boom"}\n', False, "error", "ValueError: boom"),
    (Ending(exited(0)), b"", False, "error", "os._exit() or sys.exit()"),
    (Ending(exited(3)), b"", False, "error", "exit status 3"),
    (Ending(exited(EXIT_CHANNEL_LOST)), b"", False, "integrity", "closed or replaced"),
    (Ending(signal.SIGSEGV), b'{"ok":{"v":1}}\n', False, "error", "killed by SIGSEGV"),
    (Ending(signal.SIGKILL), b"", False, "error", "too much memory"),
    (Ending(signal.SIGXCPU), b"", False, "error", "CPU time limit"),
    (Ending(exited(0)), b'{"ok":{"v":1}}\n', True, "integrity", "larger than the limit of 4096 bytes"),
    (Ending(signal.SIGKILL, timed_out=True), b"", False, "timeout", "time limit of 5 s"),
    (Ending(None, lost="the sandbox stopped unexpectedly"), b"", False, "error", "stopped unexpectedly"),
    (Ending(exited(0)), b'{"internal":"rlimit failed"}\n', False, "error", "could not run the job: rlimit failed"),
], ids=lambda v: v.message if hasattr(v, "message") else None)
def test_verdicts(ending: Ending, frame: bytes, overflow: bool, status: str, message: str) -> None:
    verdict = judge(ending, frame, overflow, 5.0, 4096)
    assert verdict.status == status
    assert message in verdict.message
    assert (verdict.result is not None) == (status == "ok")


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
def runner() -> Iterator[Any]:
    with open_runner(workers=2, task_paths=[TASK_PATH], preload=("graders.truth_child", MISSING_PRELOAD)) as runner:
        yield runner


@pytest.mark.parametrize("source, status, message", AGREED, ids=[s for s, _, _ in AGREED])
def test_the_in_process_fake_agrees_with_the_fork_server(inprocess: InProcessRunner, runner: Any, source: str,
                                                        status: str, message: str) -> None:
    job = Job(TASK, {"source": source}, LIMITS)
    fake, real = inprocess.run(job), runner.run(job)

    assert (fake.status, fake.result, fake.stdout, fake.stderr) == (real.status, real.result, real.stdout, real.stderr)
    assert (fake.status, fake.isolation) == (status, "inprocess")
    assert message in fake.message and message in real.message


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
    outcome = runner.run(Job(TASK, {"source": "result = len(args['text'])", "args": {"text": text}}, LIMITS))

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


def test_a_memory_limit_below_the_warm_interpreter_is_explained(runner: Any) -> None:
    outcome = runner.run(Job(TASK, {"source": "result = 1"}, Limits(memory_mib=100)))

    assert outcome.status == "error"
    assert "raise limits.memory_mib" in outcome.message


def test_a_preload_module_that_is_missing_is_noted_not_fatal(runner: Any) -> None:
    assert any(note.startswith(MISSING_PRELOAD) for note in runner.notes)


def test_a_closed_runner_refuses_jobs() -> None:
    runner = open_runner("unsafe", task_paths=[TASK_PATH], preload=())
    runner.close()
    runner.close()

    with pytest.raises(SandboxError, match="closed"):
        runner.run(Job(TASK, {"source": "result = 1"}))


@pytest.mark.parametrize("kwargs, error", [
    ({"level": "containers"}, SandboxError),
    ({"level": "plain", "require_full": True}, SandboxError),
    ({"workers": 0}, ValueError),
    ({"hide": ["/usr/lib"]}, SandboxError),
], ids=str)
def test_open_runner_refuses_what_it_cannot_do(kwargs: dict[str, Any], error: type) -> None:
    with pytest.raises(error):
        open_runner(**kwargs)


def test_the_view_masks_hidden_paths_and_keeps_what_children_read(tmp_path: Any) -> None:
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    view = make_view(hide=[package], task_paths=[TASK_PATH])

    # Hidden by a mask of its own, or by the private /tmp when the checkout lives under /tmp.
    hidden_by = [m for m in (*view.masks, PRIVATE_TMP) if os.path.realpath(package).startswith(m.rstrip("/") + "/") or os.path.realpath(package) == m]
    assert hidden_by, view
    assert os.path.join(os.path.realpath(package), "graders") in view.keeps


def test_a_server_that_dies_mid_job_costs_that_job_only_and_leaves_nothing() -> None:
    with open_runner("plain", task_paths=[TASK_PATH], preload=()) as runner, ThreadPoolExecutor(1) as pool:
        worker = runner._workers[0]  # the one server: killed from outside, as by the OOM killer
        sleeping = pool.submit(runner.run, Job(TASK, {"source": "import time\ntime.sleep(60)"}, LIMITS))
        time.sleep(1)
        worker.proc.kill()
        outcome = sleeping.result()
        after = runner.run(Job(TASK, {"source": source_of("ok__reference")}, LIMITS))

    assert (outcome.status, outcome.message) == ("error", "the sandbox stopped unexpectedly")
    assert after.status == "ok"
    if worker.config["uid"] is not None:
        assert not [p for p in os.listdir("/proc") if p.isdigit() and _owner(p) == worker.config["uid"]]


def _owner(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("Uid:"))
    except OSError:
        return None
