"""An upload to ``graders serve`` is checked and graded from its bytes: nothing of it is
written to disk between the request and its grade (the gradebook keeps it, in its rows)."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import nbformat
import pytest
from service_helpers import bearer, course_to_serve, graded, in_process, tokens, upload
from small_course import RIGHT, notebook

pytest.importorskip("starlette", reason="needs graders' serve extra")

_WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class Written:
    """Every file this process opens to write, and every temporary file or folder it
    makes, while it listens (audit events: each of graders' threads, and Starlette's)."""

    def __init__(self) -> None:
        self.listening = False
        self.seen: list[str] = []
        self._lock = threading.Lock()
        sys.addaudithook(self._event)  # for the process's life: it keeps still when not asked

    def _event(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.listening:
            return
        if event == "open" and _writes(args):
            self._add(f"open {args[0]}")
        elif event in ("tempfile.mkstemp", "tempfile.mkdtemp"):
            self._add(f"{event} {args[0]}")

    def _add(self, what: str) -> None:
        with self._lock:
            self.seen.append(what)


def _writes(args: tuple[Any, ...]) -> bool:
    _path, mode, flags = args
    if isinstance(mode, str):
        return any(c in mode for c in "wax+")
    return isinstance(flags, int) and bool(flags & _WRITES)


WRITTEN = Written()


def test_an_upload_is_checked_and_graded_without_being_written_to_disk(tmp_path: Path) -> None:
    # Past Starlette's 1 MB, an uploaded file is spooled to a temporary file of its own.
    padding = nbformat.v4.new_markdown_cell("my notes " * 200_000)
    held = nbformat.reads(notebook(RIGHT), as_version=4)
    held.cells.append(padding)
    sent = nbformat.writes(held).encode()
    assert len(sent) > 1_500_000
    with in_process(course_to_serve(tmp_path)) as (client, service):
        ada = tokens(service, "ada")["ada"]
        # Ready: every assignment prepared (its truths cached), as before any upload.
        assert service.grader.ready.wait(120)
        WRITTEN.listening = True
        try:
            accepted = upload(client, ada, sent)
            assert accepted.status_code == 202, accepted.text
            done = graded(client, ada, accepted.json()["id"])
        finally:
            WRITTEN.listening = False
        mine = client.get("/api/assignments/ps1/submissions", headers=bearer(ada)).json()
    assert (done["status"], done["score"], done["max_score"]) == ("graded", 6.0, 6.0)
    assert [a["id"] for a in mine] == [accepted.json()["id"]]
    assert WRITTEN.seen == []
