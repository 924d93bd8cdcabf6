"""Helpers of the submit tests: a released-looking notebook, and a stand-in service.

    path = released_notebook(tmp_path, service=fake.url)        # ps1 of the small course
    with FakeService() as fake:                                  # 127.0.0.1, a free port
        fake.answer("POST", 202, {"id": 7, ...}); fake.answer("GET", 200, {...})

The stand-in answers what it is told, in order, and keeps every request it got, so a test
can say what the client sent. It is the standard library's HTTP server on loopback: the
client under test talks real HTTP to it. What the real service answers is checked by the
live tests (``tests/notebook/test_submit_live.py``), against ``graders serve`` itself.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import nbformat
from small_course import RIGHT

LABELS = {
    "clone-basics/shares": "Question 1.1 — clone() basics",
    "clone-basics/flag": "Question 1.2 — clone() basics",
    "detach-basics/flag": "Question 2.1 — detach() basics",
}


def released_notebook(
    folder: Path,
    answers: Mapping[str, str] = RIGHT,
    *,
    service: str | None = None,
    language: str | None = None,
    assignment: str | None = "ps1",
    name: str = "ps1.ipynb",
) -> Path:
    """ps1 of the small course as `graders release --service` writes it, answered."""
    cells = [nbformat.v4.new_markdown_cell("# Problem set 1")]
    for key, literal in answers.items():
        meta = {"graders": {"question": key}}
        cells.append(nbformat.v4.new_code_cell(f"answer = {literal}", metadata=meta))
    nb = nbformat.v4.new_notebook(cells=cells)
    meta: dict[str, Any] = {"answers": list(LABELS), "labels": LABELS}
    if assignment:
        meta["assignment"] = assignment
    if service:
        meta["service"] = service
    if language:
        meta["language"] = language
    nb.metadata["graders"] = meta
    path = folder / name
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    return path


def graded_json(ident: int = 7, **changes: Any) -> dict[str, Any]:
    """The service's JSON of a graded ps1 submission: one of three questions wrong."""
    data = {
        "id": ident,
        "assignment": "ps1",
        "student": "ada",
        "status": "graded",
        "received_at": "2026-10-01T12:00:00+00:00",
        "score": 5.0,
        "max_score": 6.0,
        "late_factor": 1.0,
        "counted": True,
        "attempts_left": 2,
        "questions": [
            {"id": "clone-basics/shares", "status": "wrong", "points": 0, "max_points": 1,
             "answer": "True", "expected": "False", "feedback": "clone() copies the data."},
            {"id": "clone-basics/flag", "status": "correct", "points": 1, "max_points": 1},
            {"id": "detach-basics/flag", "status": "correct", "points": 4, "max_points": 4},
        ],
    }  # fmt: skip
    return data | changes


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def uploaded(self) -> tuple[str, bytes]:
        """The multipart upload's file field: (its file name, its bytes)."""
        head = f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode()
        message = BytesParser(policy=HTTP).parsebytes(head + self.body)
        (part,) = [p for p in message.iter_parts() if p.get_param("name", header="content-disposition") == "notebook"]  # fmt: skip
        return part.get_filename() or "", part.get_payload(decode=True)


@dataclass
class FakeService:
    """A stand-in for ``graders serve`` on a free loopback port (see the module docstring)."""

    requests: list[Request] = field(default_factory=list)
    _answers: dict[str, list[tuple[int, Any, dict[str, str]]]] = field(default_factory=dict)
    _asked: dict[str, int] = field(default_factory=dict)

    def answer(
        self, method: str, status: int, body: Any, headers: Mapping[str, str] | None = None
    ) -> None:
        """Answer a ``method`` request so, after those told before (the last told repeats)."""
        self._answers.setdefault(method, []).append((status, body, dict(headers or {})))

    def __enter__(self) -> FakeService:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._reply("GET")

            def do_POST(self) -> None:
                self._reply("POST")

            def _reply(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                fake.requests.append(Request(method, self.path, dict(self.headers), body))
                told = fake._answers.get(method) or [(500, {"error": "no answer set"}, {})]
                asked = fake._asked.get(method, 0)
                fake._asked[method] = asked + 1
                status, data, headers = told[min(asked, len(told) - 1)]
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the tests read ``requests``, not a log

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
