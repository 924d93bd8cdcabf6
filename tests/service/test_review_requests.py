"""Review requests: a learner asks about one question of their graded attempt, through the
API or the attempt page without JavaScript; what the course's limits refuse is refused with
a sentence; the instructor answers on their page or in a terminal; every answer reaches the
grade of record, the learner's page and the history; a reason is text everywhere."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from service_helpers import (
    bearer,
    course_to_serve,
    fix_the_shares_key,
    form_token,
    in_process,
    signed_in,
    tokens,
)
from small_course import WRONG, notebook

from graders.cli import main
from graders.gradebook.service_tables import INSTRUCTOR

pytest.importorskip("starlette", reason="needs graders' serve extra")

REQUESTS = "regrade_requests: {per_assignment: 2, window_days: 7}\n"
HOSTILE = "<b>I wrote</b> <script>alert(1)</script> False"


def _course(tmp_path: Path, requests: bool = True) -> Path:
    # The expected answers are shown at once, so a request can be made while ps1 is open.
    root = course_to_serve(tmp_path, feedback="{before_due: full, after_due: full}")
    if requests:
        course = root / "course.yml"
        course.write_text(course.read_text(encoding="utf-8") + REQUESTS, encoding="utf-8")
    return root


def _hand_in(client: Any, token: str) -> int:
    files = {"notebook": ("ps1.ipynb", notebook(WRONG), "application/x-ipynb+json")}
    sent = client.post("/api/assignments/ps1/submissions", files=files, headers=bearer(token))
    assert sent.status_code == 202, sent.text
    attempt = sent.json()["id"]
    graded = client.get(f"/api/submissions/{attempt}?wait=30", headers=bearer(token)).json()
    assert graded["status"] == "graded", graded
    return int(attempt)


def _ask(client: Any, token: str, attempt: int, question: str, reason: str = "I think so") -> Any:
    return client.post(
        f"/api/submissions/{attempt}/requests",
        json={"question": question, "reason": reason},
        headers=bearer(token),
    )


def test_a_request_is_taken_once_within_the_limits_and_refused_with_a_sentence(
    tmp_path: Path,
) -> None:
    with in_process(_course(tmp_path)) as (client, service):
        people = tokens(service, "ada", "bob")
        attempt = _hand_in(client, people["ada"])
        made = _ask(client, people["ada"], attempt, "clone-basics/shares", HOSTILE)
        assert made.status_code == 201, made.text
        assert made.json()["status"] == "open" and made.json()["submission"] == attempt
        refused = {
            "again": _ask(client, people["ada"], attempt, "clone-basics/shares"),
            "full marks": _ask(client, people["ada"], attempt, "clone-basics/flag"),
            "no such": _ask(client, people["ada"], attempt, "clone-basics/nothing"),
            "empty reason": _ask(client, people["ada"], attempt, "detach-basics/flag", " "),
            "another's": _ask(client, people["bob"], attempt, "detach-basics/flag"),
        }
        assert {k: r.status_code for k, r in refused.items()} == {
            "again": 403,
            "full marks": 403,
            "no such": 403,
            "empty reason": 422,
            "another's": 404,
        }
        assert "full marks already" in refused["full marks"].json()["error"]
        assert "asked about clone-basics/shares already" in refused["again"].json()["error"]
        assert _ask(client, people["ada"], attempt, "detach-basics/flag").status_code == 201
        over = _ask(client, people["ada"], attempt, "detach-basics/flag", "once more")
        assert over.status_code == 403 and "all 2 review requests" in over.json()["error"]
        zh = client.post(
            f"/api/submissions/{attempt}/requests",
            json={"question": "clone-basics/flag", "reason": "为什么"},
            headers=bearer(people["ada"], "zh"),
        )
        assert zh.status_code == 403 and "满分" in zh.json()["error"], zh.text
        mine = client.get(f"/api/submissions/{attempt}/requests", headers=bearer(people["ada"]))
        assert [r["question"] for r in mine.json()] == ["clone-basics/shares", "detach-basics/flag"]
        assert mine.json()[0]["reason"] == HOSTILE  # data, as typed
        assert (
            client.get(
                f"/api/submissions/{attempt}/requests", headers=bearer(people["bob"])
            ).status_code
            == 404
        )


def test_a_course_without_requests_offers_no_form_and_takes_none(tmp_path: Path) -> None:
    with in_process(_course(tmp_path, requests=False)) as (client, service):
        ada = tokens(service, "ada")["ada"]
        attempt = _hand_in(client, ada)
        refused = _ask(client, ada, attempt, "clone-basics/shares")
        assert refused.status_code == 403 and "no review requests" in refused.json()["error"]
        signed_in(client, ada, new_browser=True)
        assert "Ask for a review" not in client.get(f"/submissions/{attempt}").text


def test_the_instructor_answers_on_their_page_and_the_learner_reads_it(tmp_path: Path) -> None:
    with in_process(_course(tmp_path)) as (client, service):
        ada = tokens(service, "ada")["ada"]
        prof = tokens(service, "prof", role=INSTRUCTOR)["prof"]
        attempt = _hand_in(client, ada)
        before = client.get(f"/api/submissions/{attempt}", headers=bearer(ada)).json()["score"]
        signed_in(client, ada, new_browser=True)
        page = client.get(f"/submissions/{attempt}").text
        assert "Ask for a review" in page and 'value="clone-basics/shares"' in page
        assert 'value="clone-basics/flag"' not in page  # full marks: nothing to review
        sent = client.post(
            f"/submissions/{attempt}/requests",
            data={"csrf": form_token(page), "question": "clone-basics/shares", "reason": HOSTILE},
            follow_redirects=False,
        )
        assert sent.status_code == 303, sent.text
        asked = client.post(
            f"/submissions/{attempt}/requests",
            data={"question": "detach-basics/flag", "reason": "no form token"},
            follow_redirects=False,
        )
        assert asked.status_code == 403  # the gate: a form without its token changes nothing
        _ask(client, ada, attempt, "detach-basics/flag", "the prompt was unclear")
        signed_in(client, prof, new_browser=True)
        desk = client.get("/instructor").text
        assert "&lt;b&gt;I wrote&lt;/b&gt;" in desk and "<script>alert" not in desk
        assert "Their answer" in desk and "Expected" in desk
        ids = [int(i) for i in re.findall(r'action="/requests/(\d+)"', desk)]
        token = form_token(desk)
        nonsense = client.post(
            f"/requests/{ids[0]}",
            data={"csrf": token, "action": "approve", "reason": "x"},
            follow_redirects=False,
        )
        assert nonsense.status_code == 422  # not a silent decline
        accepted = client.post(
            f"/requests/{ids[0]}",
            data={"csrf": token, "action": "accept", "reason": "fair: the prompt misled"},
            follow_redirects=False,
        )
        assert accepted.status_code == 303, accepted.text
        declined = client.post(
            f"/requests/{ids[1]}",
            data={"csrf": token, "action": "decline", "reason": "detach() leaves the graph"},
            follow_redirects=False,
        )
        assert declined.status_code == 303
        assert "No open review request." in client.get("/instructor").text
        after = client.get(f"/api/submissions/{attempt}", headers=bearer(ada)).json()["score"]
        assert after == before + 1  # the question's one point, by an override
        signed_in(client, ada, new_browser=True)
        page = client.get(f"/submissions/{attempt}").text
        assert "accepted" in page and "fair: the prompt misled" in page
        assert "declined" in page and "detach() leaves the graph" in page
        again = client.post(
            f"/requests/{ids[0]}",
            data={"csrf": form_token(page), "action": "decline", "reason": "x"},
            follow_redirects=False,
        )
        assert again.status_code == 403  # a learner answers no request
    history = CliRunner().invoke(main, ["history", "ada", "--course", str(tmp_path / "course")])
    assert "request-accepted" in history.output and "request-declined" in history.output


def test_requests_are_listed_and_answered_in_a_terminal(tmp_path: Path) -> None:
    root = _course(tmp_path)
    with in_process(root) as (client, service):
        ada = tokens(service, "ada")["ada"]
        attempt = _hand_in(client, ada)
        made = _ask(client, ada, attempt, "clone-basics/shares", "line one\nline two").json()
    course = ["--course", str(root)]
    listed = CliRunner().invoke(main, ["requests", "ps1", *course])
    assert listed.output.startswith(f"{made['id']} open ada ps1 clone-basics/shares")
    assert "line one line two" in listed.output
    no_reason = CliRunner().invoke(main, ["request", str(made["id"]), "decline", *course])
    assert no_reason.exit_code == 2
    said = CliRunner().invoke(
        main, ["request", str(made["id"]), "accept", "--reason", "ok", "--points", "0.5", *course]
    )
    assert said.exit_code == 0, said.output
    assert f"request {made['id']}: accepted, 0.5 points" in said.output
    twice = CliRunner().invoke(
        main, ["request", str(made["id"]), "decline", "--reason", "no", *course]
    )
    assert twice.exit_code != 0 and "accepted already" in twice.output
    assert "no open review request" in CliRunner().invoke(main, ["requests", *course]).output


@pytest.mark.sandbox
def test_a_key_fixed_later_is_previewed_then_saved_by_a_regrade(tmp_path: Path) -> None:
    """The learner asks about a question whose key a later fix makes their answer right;
    the instructor previews the regrade (nothing saved), then saves it: the grade of
    record, the request and the history agree."""
    root = _course(tmp_path)
    with in_process(root) as (client, service):
        ada = tokens(service, "ada")["ada"]
        prof = tokens(service, "prof", role=INSTRUCTOR)["prof"]
        attempt = _hand_in(client, ada)
        made = _ask(client, ada, attempt, "clone-basics/shares", "detach() shares").json()
        before = client.get(f"/api/submissions/{attempt}", headers=bearer(ada)).json()["score"]
    fix_the_shares_key(root)
    course = ["--course", str(root)]
    shown = CliRunner().invoke(main, ["request", str(made["id"]), "preview", *course])
    assert shown.exit_code == 0, shown.output
    assert "* clone-basics/shares: 0 wrong -> 1 correct   changed" in shown.output
    assert f"total: {before:g} -> {before + 1:g} of " in shown.output
    answered = CliRunner().invoke(
        main, ["request", str(made["id"]), "preview", "--reason", "no", *course]
    )
    assert answered.exit_code == 2 and "a preview answers nothing" in answered.output
    with in_process(root) as (client, service):  # restarted with the fixed key
        signed_in(client, prof, new_browser=True)
        # The instructor page's button posts it, through the form gate: a GET grades nothing.
        desk = client.get("/instructor").text
        assert f'action="/requests/{made["id"]}/preview"' in desk
        preview = f"/requests/{made['id']}/preview"
        assert client.get(preview).status_code == 405
        page = client.post(preview, data={"csrf": form_token(desk)})
        assert page.status_code == 200, page.text
        assert re.search(r'class="changed">\s*<td><strong>clone-basics/shares', page.text)
        unchanged = client.get(f"/api/submissions/{attempt}", headers=bearer(ada)).json()
        assert unchanged["score"] == before  # a preview saves nothing
        saved = client.post(
            f"/requests/{made['id']}",
            data={"csrf": form_token(page.text), "action": "regrade", "reason": "key fixed"},
            follow_redirects=False,
        )
        assert saved.status_code == 303, saved.text
        after = client.get(f"/api/submissions/{attempt}?wait=30", headers=bearer(ada)).json()
        assert after["status"] == "graded" and after["score"] == before + 1
        mine = client.get(f"/api/submissions/{attempt}/requests", headers=bearer(ada)).json()
        assert (mine[0]["status"], mine[0]["answer"]) == ("regraded", "key fixed")
        # The same term read in Chinese: the preview page, then the learner's own page.
        zh = {"Accept-Language": "zh"}
        again = client.post(preview, data={"csrf": form_token(desk)}, headers=zh).text
        assert "每道题，重新评分前后" in again and "保存：重新评分" in again
        signed_in(client, ada, new_browser=True)
        for language, status in (("zh", "已重新评分"), ("en", "graded again")):
            page = client.get(f"/submissions/{attempt}", headers={"Accept-Language": language})
            assert status in page.text and "key fixed" in page.text, page.text
    # What is exported and what the history says agree with the grade of record.
    out = tmp_path / "grades.csv"
    done = CliRunner().invoke(main, ["export", "ps1", "--format", "csv", "-o", str(out), *course])
    assert done.exit_code == 0, done.output
    rows = list(csv.DictReader(out.read_text(encoding="utf-8").splitlines()))
    assert [(r["student"], float(r["score"])) for r in rows] == [("ada", before + 1)]
    history = CliRunner().invoke(main, ["history", "ada", *course]).output
    assert "request-regraded" in history, history


def test_a_learner_who_reads_chinese_asks_and_reads_the_answers_in_chinese(
    tmp_path: Path,
) -> None:
    """The same requests in Chinese: the form, a refusal's sentence, and the answers the
    instructor gave (in a terminal) as the learner reads them on their attempt's page."""
    root = _course(tmp_path)
    zh = {"Accept-Language": "zh"}
    with in_process(root) as (client, service):
        li = tokens(service, "li")["li"]
        attempt = _hand_in(client, li)
        signed_in(client, li, new_browser=True)
        page = client.get(f"/submissions/{attempt}", headers=zh).text
        assert "申请复查" in page and 'value="clone-basics/shares"' in page
        for question in ("clone-basics/shares", "detach-basics/flag"):
            sent = client.post(
                f"/submissions/{attempt}/requests",
                data={"csrf": form_token(page), "question": question, "reason": "我觉得对"},
                headers=zh,
                follow_redirects=False,
            )
            assert sent.status_code == 303, sent.text
        full = _ask(client, li, attempt, "clone-basics/flag")  # full marks: refused
        refused = client.post(
            f"/api/submissions/{attempt}/requests",
            json={"question": "clone-basics/flag", "reason": "x"},
            headers=bearer(li, "zh"),
        )
        assert full.status_code == refused.status_code == 403
        assert "满分" in refused.json()["error"], refused.text
        mine = client.get(f"/api/submissions/{attempt}/requests", headers=bearer(li)).json()
    ids = {r["question"]: r["id"] for r in mine}
    course = ["--course", str(root)]
    for args in (
        [str(ids["clone-basics/shares"]), "accept", "--reason", "题目有歧义"],
        [str(ids["detach-basics/flag"]), "decline", "--reason", "detach() 会离开计算图"],
    ):
        said = CliRunner().invoke(main, ["request", *args, *course])
        assert said.exit_code == 0, said.output
    with in_process(root, workers=0) as (client, service):
        signed_in(client, li, new_browser=True)
        page = client.get(f"/submissions/{attempt}", headers=zh).text
    assert "已接受" in page and "题目有歧义" in page
    assert "已拒绝" in page and "detach() 会离开计算图" in page
    history = CliRunner().invoke(main, ["history", "li", *course]).output
    assert "request-accepted" in history and "request-declined" in history


def _asked(question: str, now: Any) -> Any:
    from graders.gradebook import requests as review
    from graders.results import QuestionResult, Status

    graded = QuestionResult(question, Status.WRONG, 0.0, 1.0)
    return review.Asked("ps1", "ada", 1, question, "why", graded, now, now)


@pytest.mark.parametrize(
    ("before", "at_once", "taken"),
    [
        pytest.param((), ["x/q"] * 8, 1, id="one-question-asked-8-times"),
        pytest.param(("x/a", "x/b"), [f"x/q{i}" for i in range(5)], 1, id="the-last-of-3"),
    ],
)
def test_requests_asked_at_once_keep_the_limits(
    gradebook_url: str, before: tuple[str, ...], at_once: list[str], taken: int
) -> None:
    # The count and the duplicate are checked under the learner's lock uploads take: on
    # SQLite the writer lock, on PostgreSQL the learner's advisory lock.
    import threading
    from concurrent.futures import ThreadPoolExecutor
    from datetime import UTC, datetime

    from graders.course.model import RegradeRequestPolicy
    from graders.gradebook import requests as review
    from graders.gradebook import store as gradebook

    engine = gradebook.open_gradebook(gradebook_url)
    policy = RegradeRequestPolicy(per_assignment=3, window_days=7)
    now = datetime.now(UTC)
    for question in before:
        review.ask(engine, "tiny", policy, _asked(question, now))
    start = threading.Barrier(len(at_once))

    def ask(question: str) -> bool:
        start.wait()
        try:
            review.ask(engine, "tiny", policy, _asked(question, now))
        except review.RequestRefused:
            return False
        return True

    with ThreadPoolExecutor(len(at_once)) as pool:
        done = list(pool.map(ask, at_once))
    assert done.count(True) == taken
    assert len(review.listed(engine, "tiny", student="ada")) == len(before) + taken


def test_a_withdrawn_learner_asks_for_no_review(tmp_path: Path) -> None:
    # As an upload is refused: the rule is where the request is taken (gradebook.requests),
    # and the attempt page offers no form.
    root = _course(tmp_path)
    with in_process(root) as (client, service):
        token = tokens(service, "ada")["ada"]
        attempt = _hand_in(client, token)
        dropped = CliRunner().invoke(main, ["drop", "ada", "ps1", "--course", str(root)])
        assert dropped.exit_code == 0, dropped.output
        refused = _ask(client, token, attempt, "clone-basics/shares")
        assert refused.status_code == 403 and "withdrawn" in refused.json()["error"]
        assert (
            client.get(f"/api/submissions/{attempt}/requests", headers=bearer(token)).json() == []
        )


def test_a_body_nested_too_deeply_is_not_json_to_take(tmp_path: Path) -> None:
    root = _course(tmp_path)
    with in_process(root, workers=0) as (client, service):
        token = tokens(service, "ada")["ada"]
        deep = "[" * 8000 + "]" * 8000
        headers = bearer(token) | {"Content-Type": "application/json"}
        refused = client.post("/api/submissions/1/requests", content=deep, headers=headers)
        assert refused.status_code == 422, refused.text
        assert "Send JSON" in refused.json()["error"]


@pytest.mark.parametrize("body", ["not json", "[1, 2]", '{"question": 1}'])
def test_a_body_that_is_not_a_request_is_told_what_to_send(tmp_path: Path, body: str) -> None:
    root = _course(tmp_path)
    with in_process(root, workers=0) as (client, service):
        token = tokens(service, "ada")["ada"]
        headers = bearer(token) | {"Content-Type": "application/json"}
        refused = client.post("/api/submissions/1/requests", content=body, headers=headers)
        assert refused.status_code == 422, refused.text
        assert '"question": "<exercise>/<question>"' in refused.json()["error"]
