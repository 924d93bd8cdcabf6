"""`graders serve`'s API in this process (Starlette's test client, a real SQLite file, the
in-process runner): who may do what, each refusal and its message, attempts and the grade
of record, the late policy on the server's clock, and what the learner may see.

The same service over real HTTP, in a real uvicorn process, is `test_service_server.py`.
"""

from __future__ import annotations

import asyncio
import csv
import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from service_helpers import bearer, course_to_serve, graded, in_process, tokens, upload
from small_course import RIGHT, WRONG, notebook

from graders.cli import main
from graders.course.model import LatePolicy
from graders.gradebook import store as gradebook
from graders.gradebook.service_tables import INSTRUCTOR

pytest.importorskip("starlette", reason="needs graders' serve extra")

MAX_SCORE = 6.0  # clone-basics 2 questions, detach-basics scaled to 4
ONE_WRONG = RIGHT | {"clone-basics/shares": "True"}  # 5 of 6


def test_a_learner_hands_in_and_reads_their_grade(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path)) as (client, service):
        ada = tokens(service, "ada")["ada"]
        sent = upload(client, ada, notebook(RIGHT))
        assert sent.status_code == 202, sent.text
        accepted = sent.json()
        assert accepted["status"] == "queued"
        assert set(accepted) == {"id", "attempt", "status", "received_at"}
        assert sent.headers["location"] == f"/api/submissions/{accepted['id']}"
        done = graded(client, ada, accepted["id"])
        assert (done["status"], done["score"], done["max_score"]) == ("graded", 6.0, 6.0)
        assert done["received_at"] == accepted["received_at"] and done["late_factor"] == 1.0
        assert [q["status"] for q in done["questions"]] == ["correct"] * 3
        mine = client.get("/api/assignments/ps1/submissions", headers=bearer(ada)).json()
        assert [a["id"] for a in mine] == [accepted["id"]]


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        pytest.param({}, "Sign in: send your token as 'Authorization: Bearer TOKEN'.", id="none"),
        pytest.param(
            {"Authorization": "Bearer forged"},
            "This token is not valid (it may have been replaced by a newer one): ask your "
            "instructor.",
            id="forged",
        ),
        pytest.param({"Authorization": "Basic YWRhOmFkYQ=="}, "Sign in: send", id="not-bearer"),
    ],
)
def test_without_a_token_it_is_401(tmp_path: Path, headers: dict[str, str], message: str) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, _service):
        for answer in (
            client.post("/api/assignments/ps1/submissions", headers=headers),
            client.get("/api/assignments/ps1/submissions", headers=headers),
            client.get("/api/submissions/1", headers=headers),
        ):
            assert answer.status_code == 401
            assert answer.json()["error"].startswith(message)
            assert answer.headers["www-authenticate"].startswith("Bearer")


def test_a_new_token_replaces_the_old_one(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, service):
        old = tokens(service, "ada")["ada"]
        new = tokens(service, "ada")["ada"]
        assert (
            client.get("/api/assignments/ps1/submissions", headers=bearer(old)).status_code == 401
        )
        assert (
            client.get("/api/assignments/ps1/submissions", headers=bearer(new)).status_code == 200
        )


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        pytest.param(b"", 422, "ps1.ipynb: the file is empty", id="empty"),
        pytest.param(b"\xff\xfe", 422, "ps1.ipynb: not a notebook: byte 0xff", id="not-utf8"),
        pytest.param(b"{", 422, "ps1.ipynb: not a notebook: invalid JSON", id="not-json"),
        pytest.param(
            b'{"cells": "x", "nbformat": 4}', 422, "ps1.ipynb: not a notebook", id="cells"
        ),
        pytest.param(
            json.dumps({"cells": [], "nbformat": 4, "metadata": {}}).encode(),
            422,
            "ps1.ipynb: no answer cells",
            id="no-answer-cells",
        ),
        pytest.param(
            json.dumps(
                {"cells": [], "nbformat": 4, "metadata": {"graders": {"assignment": "ps2"}}}
            ).encode(),
            422,
            "ps1.ipynb: this notebook is for assignment 'ps2', not 'ps1'",
            id="another-assignment",
        ),
        pytest.param(b"x" * 5000, 413, "The notebook is larger than the 4 KB", id="too-large"),
    ],
)
def test_bad_input_gets_a_clear_error_and_costs_no_attempt(
    tmp_path: Path, body: bytes, status: int, message: str
) -> None:
    root = course_to_serve(tmp_path, submissions="{max: 1}")
    with in_process(root, workers=0, max_bytes=4096) as (client, service):
        ada = tokens(service, "ada")["ada"]
        refused = upload(client, ada, body)
        assert refused.status_code == status, refused.text
        assert refused.json()["error"].startswith(message)
        assert upload(client, ada, notebook(RIGHT)).status_code == 202  # the one attempt is left


def test_a_body_larger_than_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0, max_bytes=4096) as (client, service):
        ada = tokens(service, "ada")["ada"]
        big = {"content-type": "multipart/form-data; boundary=x", "content-length": "999999999"}
        refused = client.post("/api/assignments/ps1/submissions", headers=bearer(ada) | big)
        assert refused.status_code == 413


@pytest.mark.parametrize(
    ("request_kwargs", "message"),
    [
        pytest.param(
            {"data": {"notebook": "text"}},
            "Send the notebook as the file field 'notebook'",
            id="a-text-field",
        ),
        pytest.param(
            {"files": {"other": ("ps1.ipynb", b"{}")}}, "Send the notebook as", id="another-field"
        ),
        pytest.param({"content": b"{}"}, "Send the notebook as", id="not-a-form"),
    ],
)
def test_the_notebook_comes_as_the_form_field_notebook(
    tmp_path: Path, request_kwargs: dict[str, object], message: str
) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, service):
        ada = tokens(service, "ada")["ada"]
        refused = client.post(
            "/api/assignments/ps1/submissions", headers=bearer(ada), **request_kwargs
        )
        assert refused.status_code == 422 and refused.json()["error"].startswith(message)


def test_an_unknown_assignment_is_404(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, service):
        ada = tokens(service, "ada")["ada"]
        for answer in (
            upload(client, ada, notebook(RIGHT), assignment="ps9"),
            client.get("/api/assignments/ps9/submissions", headers=bearer(ada)),
        ):
            assert answer.status_code == 404
            assert answer.json()["error"] == "There is no assignment 'ps9' in this course."


def test_learners_see_their_own_submissions_only(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path)) as (client, service):
        ada, bob = tokens(service, "ada", "bob").values()
        mine = upload(client, ada, notebook(RIGHT)).json()["id"]
        graded(client, ada, mine)
        for who, expected in ((bob, 404), (ada, 200)):
            assert (
                client.get(f"/api/submissions/{mine}", headers=bearer(who)).status_code == expected
            )
        # Another's id reads exactly as an id that does not exist.
        theirs = client.get(f"/api/submissions/{mine}", headers=bearer(bob)).json()["error"]
        none = client.get("/api/submissions/999", headers=bearer(bob)).json()["error"]
        assert theirs.replace(str(mine), "N") == none.replace("999", "N")
        assert client.get("/api/assignments/ps1/submissions", headers=bearer(bob)).json() == []


def test_the_class_is_the_instructors(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path)) as (client, service):
        ada = tokens(service, "ada")["ada"]
        prof = tokens(service, "prof", role=INSTRUCTOR)["prof"]
        first = upload(client, ada, notebook(ONE_WRONG)).json()["id"]
        graded(client, ada, first)
        refused = client.get("/api/assignments/ps1/grades", headers=bearer(ada))
        assert refused.status_code == 403
        assert (
            refused.json()["error"] == "Only the course's instructors may read the class's grades."
        )
        grades = client.get("/api/assignments/ps1/grades", headers=bearer(prof))
        assert grades.json() == [
            {
                "student": "ada",
                "score": 5.0,
                "max_score": 6.0,
                "status": "graded",
                "late_factor": 1.0,
                "attempts": 1,
                "counted_id": first,
            }
        ]
        # An instructor reads any learner's submission, with everything in it.
        full = client.get(f"/api/submissions/{first}", headers=bearer(prof)).json()
        assert full["questions"][0]["expected"] == "False"


@pytest.mark.parametrize(
    ("counts", "sent", "counted", "score"),
    [
        pytest.param("best", [RIGHT, WRONG], 0, 6.0, id="best-first"),
        pytest.param("best", [WRONG, ONE_WRONG, RIGHT, ONE_WRONG], 2, 6.0, id="best-third"),
        pytest.param("best", [RIGHT, RIGHT], 1, 6.0, id="best-latest-of-equal"),
        pytest.param("last", [RIGHT, WRONG], 1, 1.0, id="last"),
    ],
)
def test_the_grade_of_record_is_the_attempt_the_course_says(
    tmp_path: Path, counts: str, sent: list[dict[str, str]], counted: int, score: float
) -> None:
    root = course_to_serve(tmp_path, submissions=f"{{counts: {counts}}}")
    with in_process(root) as (client, service):
        ada = tokens(service, "ada")["ada"]
        ids = []
        for answers in sent:
            ids.append(upload(client, ada, notebook(answers)).json()["id"])
            graded(client, ada, ids[-1])
        record = gradebook.results_document(service.engine, "tiny", "ps1").students
        assert [(s.student, s.score) for s in record] == [("ada", score)]
        mine = client.get("/api/assignments/ps1/submissions", headers=bearer(ada)).json()
        assert [a["id"] for a in mine] == ids[::-1]  # newest first
        assert [a["id"] for a in mine if a["counted"]] == [ids[counted]]
    # What every output reads: `graders export` writes the grade of record.
    out = tmp_path / "grades.csv"
    done = CliRunner().invoke(
        main, ["export", "ps1", "--format", "csv", "-o", str(out), "--course", str(root)]
    )
    assert done.exit_code == 0, done.output
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert [(r["student"], float(r["score"])) for r in rows] == [("ada", score)]


def test_the_attempt_limit_is_429_with_retry_after(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path, submissions="{max: 2}"), workers=0) as (
        client,
        service,
    ):
        ada = tokens(service, "ada")["ada"]
        assert [upload(client, ada, notebook(RIGHT)).status_code for _ in range(2)] == [202, 202]
        refused = upload(client, ada, notebook(RIGHT))
        assert refused.status_code == 429
        assert refused.json()["error"] == "You have used all 2 attempts at ps1."
        assert refused.json()["reason"] == "attempt-limit"  # no attempt opens again
        # No attempt opens again before ps1 closes: due in 2099, plus the 2 days of cutoff.
        closes = datetime(2099, 10, 7, 23, 59, tzinfo=UTC)
        left = (closes - datetime.now(UTC)).total_seconds()
        assert 0 <= int(refused.headers["retry-after"]) - left <= 60
        # In the learner's language.
        chinese = upload(client, ada, notebook(RIGHT), **{"Accept-Language": "zh-CN,zh;q=0.9"})
        assert chinese.json()["error"] == "你在 ps1 上的 2 次提交机会已经用完。"
        # Another learner is not limited by ada's attempts.
        bob = tokens(service, "bob")["bob"]
        assert upload(client, bob, notebook(RIGHT)).status_code == 202


def test_attempts_too_close_together_are_429_with_the_wait(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path, submissions="{every_s: 3600}"), workers=0) as (
        client,
        service,
    ):
        ada = tokens(service, "ada")["ada"]
        assert upload(client, ada, notebook(RIGHT)).status_code == 202
        refused = upload(client, ada, notebook(RIGHT))
        assert refused.status_code == 429
        wait = int(refused.headers["retry-after"])
        assert 3500 < wait <= 3600
        assert refused.json()["error"] == (
            f"Wait {wait} s before your next attempt at ps1: attempts are at least 3600 s apart."
        )
        assert refused.json()["reason"] == "too-soon"


def test_a_submission_says_how_many_attempts_are_left(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path, submissions="{max: 3}")) as (client, service):
        ada = tokens(service, "ada")["ada"]
        prof = tokens(service, "prof", role=INSTRUCTOR)["prof"]
        first = upload(client, ada, notebook(RIGHT)).json()["id"]
        assert graded(client, ada, first)["attempts_left"] == 2
        second = upload(client, ada, notebook(RIGHT)).json()["id"]
        assert graded(client, ada, second)["attempts_left"] == 1
        # Read again later, an attempt says what is left now.
        assert graded(client, ada, first)["attempts_left"] == 1
        # An instructor is not limited: nothing is left to count.
        assert graded(client, prof, first)["attempts_left"] is None
    with in_process(course_to_serve(tmp_path / "unlimited")) as (client, service):
        ada = tokens(service, "ada")["ada"]
        sent = upload(client, ada, notebook(RIGHT)).json()["id"]
        assert graded(client, ada, sent)["attempts_left"] is None


def test_an_instructors_try_is_not_limited_and_is_no_grade(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path, submissions="{max: 1}")) as (client, service):
        prof = tokens(service, "prof", role=INSTRUCTOR)["prof"]
        ids = [upload(client, prof, notebook(RIGHT)).json()["id"] for _ in range(3)]
        assert [graded(client, prof, i)["score"] for i in ids] == [6.0] * 3
        assert gradebook.results_document(service.engine, "tiny", "ps1").students == ()


def test_the_late_policy_reads_the_servers_receive_time(tmp_path: Path) -> None:
    due = datetime.now(UTC) - timedelta(hours=25)  # a day and an hour late: 2 started days
    with in_process(course_to_serve(tmp_path, due=due.isoformat())) as (client, service):
        ada = tokens(service, "ada")["ada"]
        sent = upload(client, ada, notebook(RIGHT)).json()
        done = graded(client, ada, sent["id"])
        received = datetime.fromisoformat(sent["received_at"])
        factor = LatePolicy(penalty_per_day=0.25, cutoff_days=2).factor(due, received)
        assert done["late_factor"] == factor == 0.5
        assert done["score"] == MAX_SCORE * factor
        saved = gradebook.results_document(service.engine, "tiny", "ps1").students[0]
        assert datetime.fromisoformat(saved.submitted_at or "") == received.replace(microsecond=0)


def test_a_closed_assignment_takes_no_submission(tmp_path: Path) -> None:
    due = datetime.now(UTC) - timedelta(days=3)  # past the 2 days of cutoff
    with in_process(course_to_serve(tmp_path, due=due.isoformat()), workers=0) as (client, service):
        ada = tokens(service, "ada")["ada"]
        refused = upload(client, ada, notebook(RIGHT))
        assert refused.status_code == 403
        assert refused.json()["error"].startswith("ps1 closed at ")


def test_before_the_due_date_a_learner_sees_no_expected_answer(tmp_path: Path) -> None:
    root = course_to_serve(tmp_path, feedback="{before_due: checks, after_due: full}")
    with in_process(root) as (client, service):
        ada = tokens(service, "ada")["ada"]
        done = graded(client, ada, upload(client, ada, notebook(WRONG)).json()["id"])
        wrong = done["questions"][0]
        assert (wrong["status"], wrong["answer"]) == ("wrong", "True")
        assert wrong["expected"] is None and "False" not in wrong["feedback"]
        assert wrong["misconception"] == "clone-shares-memory"


def test_with_feedback_score_a_learner_sees_points_only(tmp_path: Path) -> None:
    root = course_to_serve(tmp_path, feedback="{before_due: score, after_due: full}")
    with in_process(root) as (client, service):
        ada = tokens(service, "ada")["ada"]
        done = graded(client, ada, upload(client, ada, notebook(WRONG)).json()["id"])
        assert [
            (q["points"], q["feedback"], q.get("misconception")) for q in done["questions"]
        ] == [
            (0.0, "", None),
            (1.0, "", None),
            (0.0, "", None),
        ]


def test_graders_token_prints_a_line_per_student(tmp_path: Path) -> None:
    root = course_to_serve(tmp_path)
    done = CliRunner().invoke(main, ["token", "ada", "José", "--course", str(root)])
    assert done.exit_code == 0, done.output
    lines = [line.split(" ") for line in done.output.splitlines()]
    assert [name for name, _ in lines] == ["ada", "José"]
    assert all(len(token) >= 40 for _, token in lines)
    stored = (root / "gradebook.db").read_bytes()
    assert all(token.encode() not in stored for _, token in lines)  # a hash only
    bad = CliRunner().invoke(main, ["token", "../ada", "--course", str(root)])
    assert bad.exit_code == 2 and "'../ada' cannot be a learner id" in bad.output
    # One person per id whatever its case, as on a roster: Ada beside ada is refused.
    twin = CliRunner().invoke(main, ["token", "Ada", "--course", str(root)])
    assert twin.exit_code == 2 and "'Ada' and 'ada' differ in case only" in twin.output


def test_graders_token_warns_of_an_id_that_looks_like_another_as_a_roster_does(
    tmp_path: Path,
) -> None:
    root = course_to_serve(tmp_path)
    first = CliRunner().invoke(main, ["token", "alice", "--course", str(root)])
    assert first.exit_code == 0 and first.stderr == ""
    # A Cyrillic а beside the Latin a: told, with the character named; both are minted.
    alike = CliRunner().invoke(main, ["token", "\u0430lice", "bob", "--course", str(root)])
    assert alike.exit_code == 0, alike.output
    assert [line.split(" ")[0] for line in alike.stdout.splitlines()] == ["\u0430lice", "bob"]
    assert alike.stderr.splitlines() == [
        "warning: '\u0430lice' looks like 'alice' (U+0430 CYRILLIC SMALL LETTER A)"
    ]
    # In one command too, and a plain id beside them is not named.
    both = CliRunner().invoke(main, ["token", "carol", "c\u0430rol", "--course", str(root)])
    assert both.exit_code == 0 and len(both.stderr.splitlines()) == 1
    assert "'c\u0430rol' looks like 'carol'" in both.stderr or "'carol' looks like" in both.stderr


def test_graders_db_names_the_gradebook_of_every_command(tmp_path: Path) -> None:
    """A term on a service's database: tokens minted there with $GRADERS_DB, not in the
    course folder's SQLite file."""
    root = course_to_serve(tmp_path)
    elsewhere = tmp_path / "service.db"
    env = {"GRADERS_DB": f"sqlite:///{elsewhere}"}
    minted = CliRunner().invoke(main, ["token", "ada", "--course", str(root)], env=env)
    assert minted.exit_code == 0, minted.output
    assert elsewhere.exists() and not (root / "gradebook.db").exists()


def test_health(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, _service):
        answer = client.get("/api/health")
        assert (answer.status_code, answer.json()) == (200, {"status": "ok"})


def test_ready_once_the_grader_is_warm(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path)) as (client, service):
        service.grader.ready.wait(120)
        answer = client.get("/api/ready")
        assert (answer.status_code, answer.json()) == (200, {"status": "ready"})
        service.grader.ready.clear()  # as while it starts
        starting = client.get("/api/ready")
        assert (starting.status_code, starting.json()["status"]) == (503, "starting")
        assert client.get("/api/health").status_code == 200


async def _disconnecting_request(app: Any, path: str, headers: list[tuple[bytes, bytes]]) -> int:
    """POST to ``path`` with a client that goes away after the first chunk of its body; the
    status the application answered with."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": headers, "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 2),
    }  # fmt: skip
    messages = iter(
        [
            {"type": "http.request", "body": b"--b\r\n", "more_body": True},
            {"type": "http.disconnect"},
        ]
    )
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return next(messages, {"type": "http.disconnect"})

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return int(next(m["status"] for m in sent if m["type"] == "http.response.start"))


def test_a_client_that_goes_away_mid_upload_is_an_info_line_on_every_route(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The upload route, and a route added now: each reads its request through Starlette's,
    # so the one handler covers both (a new route needs nothing of its own).
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def echo(request: Request) -> PlainTextResponse:
        return PlainTextResponse(str(len(await request.body())))

    with in_process(course_to_serve(tmp_path)) as (client, service):
        ada = tokens(service, "ada")["ada"]
        app = client.app
        app.router.routes.append(Route("/api/new-route", echo, methods=["POST"]))
        multipart = [
            (b"authorization", f"Bearer {ada}".encode()),
            (b"content-type", b"multipart/form-data; boundary=b"),
        ]
        with caplog.at_level(logging.INFO, logger="graders.service"):
            for path in ("/api/assignments/ps1/submissions", "/api/new-route"):
                assert asyncio.run(_disconnecting_request(app, path, multipart)) == 400
        gone = [r for r in caplog.records if "the client went away" in r.getMessage()]
        assert [r.levelno for r in gone] == [logging.INFO, logging.INFO]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert client.get("/api/assignments/ps1/submissions", headers=bearer(ada)).json() == []


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        pytest.param("..\\..\\evil.ipynb", "evil.ipynb", id="separators"),
        pytest.param("../../etc/ps1.ipynb", "ps1.ipynb", id="dot-dot"),
        pytest.param("ps\x001.ipynb", "ps1.ipynb", id="nul"),
        pytest.param("evil\u202ebnypi.exe", "evilbnypi.exe", id="bidi-override"),
        pytest.param("\u200b..", "ps1.ipynb", id="nothing-left"),
        pytest.param("作业 一.ipynb", "作业 一.ipynb", id="kept-as-written"),
    ],
)
def test_an_uploads_name_is_kept_as_text_only(tmp_path: Path, sent: str, kept: str) -> None:
    """The name is sanitised once, at the door every upload passes (``uploads.checked``):
    no folder, no control or format character (NUL does not fit PostgreSQL's text; U+202E
    makes a name read as another), on the API's and the pages' path alike."""
    with in_process(course_to_serve(tmp_path), workers=0) as (client, service):
        ada = tokens(service, "ada")["ada"]
        body = (  # written by hand: a client library would escape what an attacker sends raw
            b'--b\r\nContent-Disposition: form-data; name="notebook"; filename="'
            + sent.encode()
            + b'"\r\nContent-Type: application/x-ipynb+json\r\n\r\n'
            + notebook(RIGHT).encode()
            + b"\r\n--b--\r\n"
        )
        answer = client.post(
            "/api/assignments/ps1/submissions",
            content=body,
            headers=bearer(ada) | {"Content-Type": "multipart/form-data; boundary=b"},
        )
        assert answer.status_code == 202, answer.text
        assert service.queue.attempt(answer.json()["id"]).filename == kept


def test_one_learner_has_a_few_uploads_read_at_once_and_no_more(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, service):
        ada, bob = tokens(service, "ada", "bob").values()
        assert upload(client, ada, b"{not json").status_code == 422  # refused: the count goes back
        assert upload(client, ada, notebook(RIGHT)).status_code == 202
        assert not service.reading  # nothing being read, nothing counted
        service.reading["ada"] = 2  # two of ada's uploads still on their way
        busy = upload(client, ada, notebook(RIGHT))
        assert busy.status_code == 429 and busy.json()["reason"] == "uploading"
        assert "You are already sending 2 notebooks" in busy.json()["error"]
        assert upload(client, bob, notebook(RIGHT)).status_code == 202  # another learner's


def worst_shape(size: int) -> bytes:
    """A notebook's JSON of ``size`` bytes that is almost all empty objects: the shape that
    takes the most memory per byte once parsed (a 64-byte dict for each 3 bytes)."""
    head = b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {"x": ['
    tail = b'{}]}, "cells": []}'
    return head + b"{}," * ((size - len(head) - len(tail)) // 3) + tail


def _output_of(size: int, item: bytes, most: int) -> bytes:
    """A notebook of ``size`` bytes whose one output is ``most`` strings ``item`` (at most),
    then one long string to fill it."""
    head = (
        b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", '
        b'"source": "", "metadata": {}, "execution_count": null, "outputs": [{"output_type": '
        b'"stream", "name": "stdout", "text": ['
    )
    tail = b"]}]}]}"
    body = item * min(most, (size - len(head) - len(tail) - 3) // len(item))
    return head + body + b'"' + b"a" * (size - len(head) - len(tail) - len(body) - 3) + b'"' + tail


# Shapes that cost the most memory per byte: tiny values (refused before parsing past the
# count), short strings just under the count, text outside the Basic Multilingual Plane (4
# bytes a character once decoded), escapes of it, one long string with one such character.
WORST_SHAPES = {
    "empty objects": lambda size: worst_shape(size),
    "short escaped astral strings": lambda size: _output_of(
        size, b'"\\ud83d\\ude00aaaaa",', 990_000
    ),
    "raw astral strings": lambda size: _output_of(
        size, '"\U0001f600'.encode() + b"a" * 90 + b'",', 199_000
    ),
    "escaped astral text": lambda size: _output_of(
        size, b'"' + b"\\ud83d\\ude00" * (size // 13) + b'",', 1
    ),
    "one long string, one astral character": lambda size: _output_of(
        size, '"\U0001f600",'.encode(), 1
    ),
}


def test_a_notebook_of_tiny_values_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, service):
        ada = tokens(service, "ada")["ada"]
        refused = upload(client, ada, worst_shape(17 * 1024 * 1024))
        assert refused.status_code == 422
        assert "more than a notebook does" in refused.json()["error"]


READ_WORST = """
import resource, sys
from pathlib import Path
from graders.errors import SubmissionError
from graders.notebook.read import read_notebook
path = Path(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    read_notebook(path)
except SubmissionError:
    pass
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) * 1024)
"""


@pytest.mark.parametrize("shape", list(WORST_SHAPES), ids=list(WORST_SHAPES))
def test_reading_the_worst_shape_under_the_size_limit_takes_a_small_multiple_of_its_bytes(
    tmp_path: Path, shape: str
) -> None:
    """The bound docs/how-to/serve.md states, measured: the peak memory a notebook of the
    size limit takes to read is at most 9 times its bytes, whatever its shape (empty
    objects, unbounded: over 20 times; short astral strings under the old count: 20 times;
    escapes of them through the old string pattern: 22 times)."""
    import subprocess
    import sys

    from graders.notebook.read import MAX_NOTEBOOK_BYTES

    path = tmp_path / "worst.ipynb"
    path.write_bytes(WORST_SHAPES[shape](MAX_NOTEBOOK_BYTES - 1024))
    done = subprocess.run(
        [sys.executable, "-c", READ_WORST, str(path)], capture_output=True, text=True, check=True
    )
    grown = int(done.stdout)
    assert grown <= 9 * MAX_NOTEBOOK_BYTES, f"{grown / 2**20:.0f} MiB to read a 20 MiB notebook"


def test_attempts_are_numbered_per_learner_beside_the_class_wide_id(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, service):
        ada, bob = tokens(service, "ada", "bob").values()
        sent = [upload(client, who, notebook(RIGHT)).json() for who in (ada, bob, bob, ada)]
        assert [(s["id"], s["attempt"]) for s in sent] == [(1, 1), (2, 1), (3, 2), (4, 2)]
        shown = client.get("/api/submissions/3", headers=bearer(bob)).json()
        assert (shown["id"], shown["attempt"]) == (3, 2)
        mine = client.get("/api/assignments/ps1/submissions", headers=bearer(ada)).json()
        assert [(m["id"], m["attempt"]) for m in mine] == [(4, 2), (1, 1)]


@pytest.mark.sandbox
def test_a_learner_who_handed_in_through_the_service_is_regraded_from_it(tmp_path: Path) -> None:
    """No folder of notebooks: the stored notebook, its receive time (the late factor kept),
    the grade of record still the service's attempt, the history saying so."""
    from graders.service.views import counted_id

    due = datetime.now(UTC) - timedelta(hours=25)  # 2 started days late: x0.5
    root = course_to_serve(tmp_path, due=due.isoformat())
    with in_process(root) as (client, service):
        ada = tokens(service, "ada")["ada"]
        first = upload(client, ada, notebook(ONE_WRONG)).json()
        second = upload(client, ada, notebook(RIGHT)).json()
        for sent in (first, second):
            graded(client, ada, sent["id"])
        before = gradebook.results_document(service.engine, "tiny", "ps1").students[0]
    runner = CliRunner()
    done = runner.invoke(main, ["regrade", "ada", "ps1", "--course", str(root), "--by", "prof"])
    assert done.exit_code == 0, done.output
    assert f"graded again from submission {second['id']}\n" in done.output
    assert "before: 3/6 (late x0.5)" in done.output and "after: 3/6 (late x0.5)" in done.output
    with in_process(root, workers=0) as (client, service):
        after = gradebook.results_document(service.engine, "tiny", "ps1").students[0]
        assert (after.score, after.late_factor) == (before.score, before.late_factor) == (3, 0.5)
        assert after.submitted_at == before.submitted_at
        assert counted_id(service.queue, "ps1", "ada") == second["id"]
        shown = client.get(f"/api/submissions/{second['id']}", headers=bearer(ada)).json()
        assert shown["counted"] is True and shown["late_factor"] == 0.5
    every = runner.invoke(main, ["regrade", "ada", "ps1", "--all", "--course", str(root)])
    assert every.exit_code == 0, every.output
    assert f"from submission {first['id']}, {second['id']}" in every.output
    history = runner.invoke(main, ["history", "ada", "--course", str(root)]).output
    assert f"graded again from submission {second['id']}: 3/6" in history and "prof" in history
