"""Helpers of the service's tests: a course to serve, the application in this process, and
a real ``graders serve`` process on a free loopback port.

    root = course_to_serve(tmp_path, submissions="{max: 2}")     # the small course, due 2099
    with in_process(root) as (client, service): ...              # Starlette's test client
    with ServerProcess(root, db_url) as server: server.url ...   # uvicorn, a real process

and one server for a module's browser tests (``browser_server``; the browser itself is
``in_browser``'s).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections import Counter
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from notebook_helpers import fill
from small_course import small_course
from sqlalchemy import create_engine, text

from graders.course.load import load_course
from graders.gradebook import store as gradebook
from graders.gradebook.service_tables import LEARNER
from graders.kinds.base import Context
from graders.sandbox import InProcessRunner
from graders.workspace import Workspace

REPO = Path(__file__).resolve().parent.parent
FUTURE = "2099-10-05T23:59:00+00:00"
SMALL_DUE = "2026-10-05T23:59:00+00:00"  # the small course's ps1 due date, as written


def course_to_serve(
    tmp_path: Path,
    submissions: str | None = None,
    due: str = FUTURE,
    feedback: str | None = None,
    requests: str | None = None,
) -> Path:
    """The small course in English and Chinese (its texts in English), its ps1 due ``due``,
    with ps1's ``submissions`` (and ``feedback``) policy as given (a YAML flow mapping), and
    the course's ``regrade_requests`` (likewise), when given."""
    root = small_course(tmp_path / "course")
    course = root / "course.yml"
    text = course.read_text(encoding="utf-8").replace(SMALL_DUE, due)
    text = text.replace("seed: 0\n", "seed: 0\nlanguages: [en, zh]\n", 1)
    extra = "".join(
        f"    {name}: {value}\n"
        for name, value in (("submissions", submissions), ("feedback", feedback))
        if value
    )
    late = "    late: {penalty_per_day: 0.25, cutoff_days: 2}\n"
    text = text.replace(late, late + extra, 1)
    if requests:
        text += f"regrade_requests: {requests}\n"
    course.write_text(text, encoding="utf-8")
    return root


def fix_the_shares_key(root: Path) -> None:
    """A key fixed after hand-ins, as an instructor fixes one: the small course's
    ``clone-basics/shares`` comes out True (an answer of True, wrong before, becomes right),
    its misconception of that answer removed."""
    exercise = root / "exercises" / "clone-basics.yml"
    text = exercise.read_text(encoding="utf-8")
    fixed = text.replace(
        "    expr: a.data_ptr() == b.data_ptr()\n",
        "    expr: a.data_ptr() == a.detach().data_ptr()\n",
    )
    fixed = fixed.replace(
        '      - {answer: "True", name: clone-shares-memory, '
        'explain: "Sharing memory is detach()."}\n',
        "      []\n",
    ).replace("    misconceptions:\n      []\n", "")
    assert fixed != text, "the small course's clone-basics changed: fix this helper"
    exercise.write_text(fixed, encoding="utf-8")


@dataclass(frozen=True)
class ServedCourse:
    """The repository's course, copied, with ps1's truths cached and its key at hand."""

    root: Path
    key: dict[str, str]  # ps1's answer key: item id or code exercise id -> what earns it
    released: dict[str, Any]  # the learner's ps1 notebook, as `graders release ps1` writes it

    def notebook(self, answers: Mapping[str, str] | None = None) -> bytes:
        """ps1 released, filled with the key (and ``answers`` over it)."""
        return json.dumps(fill(self.released, {**self.key, **(answers or {})})).encode()


def repository_course(
    folder: Path, submissions: str | None = None, feedback: str | None = None
) -> ServedCourse:
    """The repository's course in ``folder``, ps1 limited by ``submissions`` (YAML), its
    truths computed here (in process) into the copy's cache, so a server starts warm."""
    from graders.grading.pipeline import answer_key, prepare_assignment
    from graders.notebook.release import student_notebook

    for name in ("exercises", "solutions", "checkers"):
        shutil.copytree(REPO / name, folder / name)
    text = (REPO / "course.yml").read_text(encoding="utf-8")
    if submissions:
        late = "    late: {penalty_per_day: 0.1, cutoff_days: 3, grace_minutes: 15}\n"
        assert late in text
        text = text.replace(late, f"{late}    submissions: {submissions}\n", 1)
    if feedback:  # ps1's, as a YAML flow mapping
        late = "    late: {penalty_per_day: 0.1, cutoff_days: 3, grace_minutes: 15}\n"
        text = text.replace(late, f"{late}    feedback: {feedback}\n", 1)
    (folder / "course.yml").write_text(text, encoding="utf-8")
    loaded = load_course(folder / "course.yml")
    runner = InProcessRunner()
    try:
        ctx = Context(loaded.course, loaded.root, runner, loaded.root / ".graders-cache")
        key = answer_key(prepare_assignment(loaded, "ps1", ctx))
    finally:
        runner.close()
    ps1 = loaded.course.assignments[0]
    released = json.loads(json.dumps(student_notebook(loaded, ps1)))
    for cell in released["cells"]:
        if isinstance(cell["source"], list):
            cell["source"] = "".join(cell["source"])
    return ServedCourse(folder, key, released)


@contextmanager
def in_process(
    root: Path, workers: int = 1, db_url: str | None = None, **options: Any
) -> Iterator[tuple[Any, Any]]:
    """The service of the course at ``root`` in this process (the in-process runner; its
    gradebook at ``db_url``, by default a SQLite file beside the course), its grader
    started: (Starlette's TestClient, the Service)."""
    from graders.service.app import Service, create_app

    with warnings.catch_warnings():
        # Starlette's test client wants the httpx2 package from Starlette 1.x on; httpx
        # (what it asks for in this case) serves it as well.
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    loaded = load_course(root / "course.yml")
    runner = InProcessRunner()
    session = Workspace(
        loaded, Context(loaded.course, loaded.root, runner, loaded.root / ".graders-cache")
    )
    url = db_url or f"sqlite:///{root / 'gradebook.db'}"
    service = Service(session, url, workers=workers, **options)
    try:
        with TestClient(create_app(service)) as client:
            yield client, service
    finally:
        runner.close()


def tokens(service: Any, *students: str, role: str = LEARNER) -> dict[str, str]:
    return dict(service.credentials.mint(students, role))


def bearer(token: str, language: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}"}
    return headers | ({"Accept-Language": language} if language else {})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def environment() -> dict[str, str]:
    """This checkout's graders for a child process, wherever it is installed from."""
    path = os.environ.get("PYTHONPATH", "")
    return os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), path]))}


def graders(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graders", *args],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )


def mint(
    root: Path, *students: str, db_url: str | None = None, instructor: bool = False
) -> dict[str, str]:
    """Tokens minted by `graders token`, read from its "STUDENT TOKEN" lines."""
    args = [
        *students,
        *(["--db", db_url] if db_url else []),
        *(["--instructor"] if instructor else []),
    ]
    done = graders("token", *args, cwd=root)
    assert done.returncode == 0, done.stderr
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())


class ServerProcess:
    """``graders serve`` in the course folder ``root``, on a free port of 127.0.0.1.

    Started on entry (ready once /api/health answers); stopped on exit with SIGTERM, and
    its exit code and log kept. ``kill()`` is ``kill -9``. ``workers=None``: the command's
    default (``extra`` holds the rest, ``--cluster local:2`` for one).
    """

    def __init__(
        self, root: Path, db_url: str, workers: int | None = 1, extra: tuple[str, ...] = ()
    ) -> None:
        self.root, self.db_url, self.workers, self.extra = root, db_url, workers, extra
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = root / f"serve-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.returncode: int | None = None

    def __enter__(self) -> ServerProcess:
        args = ["--port", str(self.port), "--db", self.db_url]
        args += [] if self.workers is None else ["--workers", str(self.workers)]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "graders", "serve", *args, *self.extra],
                cwd=self.root,
                env=environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self._wait_ready()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self, timeout: float = 120) -> int:
        """SIGTERM, then the exit code (``kill -9`` after ``timeout`` s: a failure)."""
        if self.proc is None:
            return self.returncode or 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.returncode = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.returncode = self.proc.wait()
        self.proc = None
        return self.returncode

    def kill(self) -> None:
        """``kill -9``: no time to finish anything."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.returncode = self.proc.wait(60)
        self.proc = None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def _wait_ready(self, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"graders serve exited {self.proc.returncode}:\n{self.log()}")
            try:
                # Up (health), then warm (ready): the tests' uploads wait for no start-up.
                if httpx.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                    if httpx.get(f"{self.url}/api/ready", timeout=2).status_code == 200:
                        return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"graders serve did not answer in {timeout} s:\n{self.log()}")


def upload(
    client: Any, token: str, notebook: str | bytes, assignment: str = "ps1", **headers: str
) -> Any:
    """POST a notebook as the API takes it (``client``: httpx or Starlette's test client)."""
    files = {"notebook": (f"{assignment}.ipynb", notebook, "application/x-ipynb+json")}
    return client.post(
        f"/api/assignments/{assignment}/submissions",
        files=files,
        headers=bearer(token) | dict(headers),
    )


def graded(client: Any, token: str, attempt_id: int, timeout: float = 120) -> Mapping[str, Any]:
    """The attempt once graded (or failed), asked with the API's long-poll."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = client.get(f"/api/submissions/{attempt_id}?wait=20", headers=bearer(token))
        assert found.status_code == 200, found.text
        data: Mapping[str, Any] = found.json()
        if data["status"] in ("graded", "failed"):
            return data
    raise AssertionError(f"submission {attempt_id} was not graded in {timeout} s")


SAVED = re.compile(r" graders\.service: submission (\d+) \S+ ps1 graded ")


def hand_in(
    server: ServerProcess,
    tokens: Mapping[str, str],
    course: ServedCourse,
    notebooks: Mapping[str, bytes] | None = None,
) -> dict[str, int]:
    """Every learner of ``tokens`` uploads ps1 at once (their notebook of ``notebooks``, else
    the key's): learner -> attempt id."""

    def one(name: str) -> tuple[str, int]:
        notebook = (notebooks or {}).get(name) or course.notebook()
        with httpx.Client(base_url=server.url, timeout=120) as client:
            answer = upload(client, tokens[name], notebook)
        assert answer.status_code == 202, answer.text
        return name, int(answer.json()["id"])

    with ThreadPoolExecutor(8) as pool:
        return dict(pool.map(one, sorted(tokens)))


def statuses(url: str) -> Counter[str]:
    """How many attempts of the gradebook at ``url`` are in each state."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return Counter(s for (s,) in conn.execute(text("select status from attempts")))
    finally:
        engine.dispose()


def saved_lines(*servers: ServerProcess) -> Counter[int]:
    """Attempt id -> how many times a server said it saved its grade."""
    return Counter(int(m.group(1)) for s in servers for m in SAVED.finditer(s.log()))


def all_graded(server: ServerProcess, tokens: Mapping[str, str], sent: dict[str, int]) -> None:
    with httpx.Client(base_url=server.url, timeout=60) as client:
        for name, attempt in sent.items():
            assert graded(client, tokens[name], attempt, timeout=240)["status"] == "graded"


def graded_once(url: str, sent: dict[str, int], *servers: ServerProcess) -> dict[str, Any]:
    """Each attempt of ``sent`` is graded in the gradebook, and no server's log says it saved
    one twice; each learner has a grade of record: learner -> it (a ``StudentResult``).

    A log may say less than was saved: ``kill -9`` can fall between a grade's commit and
    its log line. The gradebook is what counts; the logs show nothing was saved twice."""
    assert statuses(url) == Counter({"graded": len(sent)})
    said = saved_lines(*servers)
    assert set(said) <= set(sent.values()), [s.log() for s in servers]
    assert all(times == 1 for times in said.values()), [s.log() for s in servers]
    doc = gradebook.results_document(url, "autograd-semantics", "ps1")
    assert sorted(s.student for s in doc.students) == sorted(sent)
    return {s.student: s for s in doc.students}


@contextmanager
def browser_server(course: ServedCourse) -> Iterator[ServerProcess]:
    """One ``graders serve`` for a module's browser tests (one worker, a SQLite file), which
    must stop cleanly when they are done."""
    with ServerProcess(course.root, f"sqlite:///{course.root / 'browser.db'}", workers=1) as s:
        yield s
    assert s.returncode == 0, s.log()


def signed_in(client: Any, token: str, *, new_browser: bool = False) -> None:
    """Signed in as a browser is: the sign-in page first (its form token), then its form;
    ``new_browser``: with none of the client's cookies (another person at another browser)."""
    if new_browser:
        client.cookies.clear()
    page = client.get("/sign-in").text
    answer = client.post(
        "/sign-in", data={"csrf": form_token(page), "token": token}, follow_redirects=False
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/assignments"
    assert (
        "HttpOnly" in answer.headers["set-cookie"]
        and "SameSite=lax" in answer.headers["set-cookie"]
    )


def form_token(html: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert found, html
    return found.group(1)
