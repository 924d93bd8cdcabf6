"""The sandbox contract: what callers hand in (``Job`` with ``Limits``) and get back (``Outcome``).

These types are plain frozen data, shared by every runner (the warm fork server and the
in-process fake), so a caller never needs to know which one it talks to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from .words import Words

ISOLATION_LEVELS = ("bubblewrap", "unshare", "plain", "unsafe")
_TASK = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


class SandboxError(RuntimeError):
    """The sandbox itself cannot do what was asked (level unavailable, unknown task, closed).

    Never raised for anything the child does: that always becomes an ``Outcome``. The
    sandbox imports nothing of graders; ``graders.errors.user_errors`` lists this class,
    so the command line shows it as one line, not a traceback.
    """

    exit_code = 2  # as graders' ExitCode.USAGE: this machine cannot grade as asked


@dataclass(frozen=True)
class Limits:
    """Per-job resource limits; defaults match course.yml's ``limits``."""

    timeout_s: float = 10.0  # wall clock per job, enforced by the parent
    # CPU time per job (the child's, every thread), enforced by the keeper: a busy machine
    # stretches wall time, not CPU time, so this one can be tight where ``timeout_s`` cannot.
    cpu_s: float = 10.0
    memory_mib: int = 2048  # address-space cap of the child (the warm interpreter included)
    max_output_bytes: int = 65536  # stdout/stderr capture cap (each)
    # Past its cap an output is read and thrown away, up to this much per step and stream:
    # a writer blocked on a full pipe costs no CPU time, so without it a flood would hold
    # a worker for the whole wall budget.
    max_flood_bytes: int = 16 << 20
    max_result_bytes: int = 4 << 20  # cap on the JSON result channel
    max_procs: int = 32
    max_file_bytes: int = 16 << 20
    max_open_files: int = 256
    # False: the child may not start another process or exec (seccomp refuses it, whatever
    # code asks): what runs is the one process the keeper watches. Learner code runs so.
    may_fork: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "may_fork":
                if not isinstance(value, bool):
                    raise ValueError(f"Limits.may_fork must be True or False, got {value!r}")
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"Limits.{f.name} must be a positive number, got {value!r}")

    def to_json(self) -> dict[str, Any]:
        """The limits as a plain dict (sent to the fork server)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Job:
    """One call of ``task(payload)`` in a confined child, judged by a trusted keeper.

    ``task`` is ``"package.module:function"``; the function takes the JSON-able payload
    and returns a JSON-able dict. ``check``, when given, is another ``"module:function"``
    that the keeper (a process that never runs the task) calls on that dict, with the
    payload, before anything reaches the caller: it returns the dict to pass on, or raises
    ``ValueError`` (the outcome is then ``integrity``). Use it to hold what a child sends
    to the shape its task writes, so that a child that forged its data must still forge
    it in that shape.
    """

    task: str
    payload: dict[str, Any]
    limits: Limits = field(default_factory=Limits)
    check: str | None = None

    def __post_init__(self) -> None:
        for name in ("task", "check"):
            value = getattr(self, name)
            if (value is not None or name == "task") and not (
                isinstance(value, str) and _TASK.fullmatch(value)
            ):
                raise ValueError(
                    f"Job.{name} must look like 'package.module:function', got {value!r}"
                )
        if not isinstance(self.payload, dict):
            raise ValueError(f"Job.payload must be a dict, got {type(self.payload).__name__}")

    @property
    def module(self) -> str:
        return self.task.partition(":")[0]

    @property
    def function(self) -> str:
        return self.task.partition(":")[2]


@dataclass(frozen=True)
class Outcome:
    """What became of a job. ``result`` is set only when ``status == "ok"``."""

    status: str  # "ok" | "error" | "timeout" | "integrity"
    result: dict[str, Any] | None
    stdout: str  # captured, capped, decoded with errors="replace"
    stderr: str
    message: str  # human-readable reason when not ok (no grader internals)
    isolation: str  # "bubblewrap" | "unshare" | "plain" | "unsafe" | "inprocess"
    duration_s: float
    words: Words | None = None  # ``message`` as the sandbox's sentence, when it is one

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class Runner(Protocol):
    """Runs jobs; ``run`` and ``run_all`` are thread-safe and never raise for what a child does."""

    isolation: str

    def run(self, job: Job) -> Outcome: ...

    def run_all(self, jobs: Sequence[Job]) -> list[Outcome]:
        """Run ``jobs`` one after the other in as few children as possible, each under its own
        time limit; after a job that times out, crashes or tampers, the rest run in a fresh
        child (one failure costs one job). Outcomes are in the order of ``jobs``."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class ServerConfig:
    """What the runner tells a fork server at start-up (one JSON message)."""

    level: str
    confine: bool  # uid drop, Landlock and seccomp in children
    uid: int | None  # children run as this uid and gid (the server runs as root)
    scratch_root: str
    env: dict[str, str]  # children's environment, before HOME/TMPDIR
    read_roots: list[str]
    task_paths: list[str]
    preload: list[str]
    private_tmp_mib: int | None = None  # unshare level: the server mounts its own view
    masks: tuple[str, ...] = ()
    keeps: tuple[str, ...] = ()
    memory: dict[str, Any] | None = None  # descriptors of this server's memory cgroup (memory.py)
