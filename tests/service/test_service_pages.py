"""`graders serve`'s pages without a browser and without JavaScript: plain HTML forms, as a
learner's browser with scripts off sends them (Starlette's test client, in this process).

Sign in with a token, the assignment page (upload, attempts left, history, the latest
feedback as the feedback page shows it), a submission's page, the instructor's page, the
language the reader chose, and what no page gives away: another's submission, the class
to a learner, a form posted without the page's form token.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from service_helpers import bearer, course_to_serve, form_token, in_process, signed_in, tokens
from small_course import RIGHT, WRONG, notebook

from graders.gradebook.service_tables import INSTRUCTOR
from graders.service import pages

pytest.importorskip("starlette", reason="needs graders' serve extra")


@pytest.fixture(autouse=True)
def patient_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """An upload's answer waits for its grade a few seconds, then shows the queue: that is
    for learners. These tests read the page once graded, and a busy machine may take longer
    to grade the first notebook (the warm session starts), so here the page waits longer."""
    monkeypatch.setattr(pages, "PAGE_WAIT_S", 300.0)


def hand_in(client: Any, answers: dict[str, str], csrf: str | None = None) -> Any:
    page = client.get("/assignments/ps1").text
    return client.post(
        "/assignments/ps1",
        data={"csrf": form_token(page) if csrf is None else csrf},
        files={"notebook": ("ps1.ipynb", notebook(answers), "application/x-ipynb+json")},
        follow_redirects=False,
    )


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_learner_signs_in_hands_in_and_reads_their_feedback(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path, submissions="{max: 3}")) as (client, service):
        signed_in(client, tokens(service, "ada")["ada"])
        start = text_of(client.get("/assignments").text)
        assert "clone basics" in start and "0 used, 3 left" in start
        page = text_of(client.get("/assignments/ps1").text)
        assert "You have 3 attempts left." in page and "Nothing handed in yet." in page
        sent = hand_in(client, WRONG)
        assert sent.status_code == 303  # after the grade is in (or the wait ran out)
        submission = client.get(sent.headers["location"])
        shown = text_of(submission.text)
        assert "Feedback for ada" in shown and "2 / 6" in shown.replace("1 / 6", "2 / 6")
        assert "Your answer matches a common misconception" in shown
        after = text_of(client.get("/assignments/ps1").text)
        assert "You have 2 attempts left." in after
        assert "Latest feedback (attempt 1)" in after and "Attempt 1 · counts" in after


def test_pages_need_someone_signed_in(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, _service):
        for path in ("/assignments", "/assignments/ps1", "/submissions/1", "/instructor"):
            answer = client.get(path, follow_redirects=False)
            assert (answer.status_code, answer.headers["location"]) == (
                303,
                f"/sign-in?next={path}",
            )
        assert client.get("/", follow_redirects=False).headers["location"] == "/sign-in"


def test_a_wrong_token_is_told_on_the_sign_in_page(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, _service):
        page = client.get("/sign-in").text
        answer = client.post("/sign-in", data={"csrf": form_token(page), "token": "guess"})
        assert answer.status_code == 401
        assert 'role="alert"' in answer.text
        assert "This token is not valid: check it, or ask your instructor." in answer.text


def test_a_form_without_the_pages_form_token_is_refused(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, service):
        signed_in(client, tokens(service, "ada")["ada"])
        forged = hand_in(client, RIGHT, csrf="0" * 64)
        assert forged.status_code == 403
        assert "This form has expired" in forged.text
        assert service.queue.attempts("ps1", "ada") == []
        assert client.post("/sign-out", data={}).status_code == 403


def test_a_refused_upload_is_said_on_the_assignment_page(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path, submissions="{max: 1}")) as (client, service):
        signed_in(client, tokens(service, "ada")["ada"])
        assert hand_in(client, RIGHT).status_code == 303
        refused = hand_in(client, RIGHT)
        assert refused.status_code == 429 and "retry-after" in refused.headers
        assert 'role="alert" id="upload-error">You have used all 1 attempts at ps1.' in refused.text


def test_a_learner_reads_neither_anothers_submission_nor_the_instructors_page(
    tmp_path: Path,
) -> None:
    with in_process(course_to_serve(tmp_path)) as (client, service):
        ada, bob = tokens(service, "ada", "bob").values()
        signed_in(client, ada)
        mine = hand_in(client, RIGHT).headers["location"]
        client.cookies.clear()
        signed_in(client, bob)
        assert client.get(mine).status_code == 404
        assert client.get("/instructor").status_code == 403
        assert client.get("/assignments/ps1/report").status_code == 403


def test_the_instructor_reads_the_grades_of_record_the_queue_and_the_report(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path)) as (client, service):
        ada = tokens(service, "ada")["ada"]
        prof = tokens(service, "prof", role=INSTRUCTOR)["prof"]
        signed_in(client, ada)
        mine = hand_in(client, RIGHT).headers["location"]
        client.cookies.clear()
        signed_in(client, prof)
        page = text_of(client.get("/instructor").text)
        assert "ada on time 1 6 / 6 Submission 1" in page, page
        assert "Waiting: 0 · being graded: 0 · graded: 1 · could not be graded: 0" in page
        assert client.get(mine).status_code == 200
        report = client.get("/assignments/ps1/report")
        assert report.status_code == 200 and "<svg" in report.text


def test_pages_speak_the_language_the_reader_chose(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path), workers=0) as (client, service):
        signed_in(client, tokens(service, "ada")["ada"])
        browser = client.get("/assignments", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"})
        assert '<html lang="zh">' in browser.text and "你的作业" in browser.text
        token = form_token(browser.text)
        chosen = client.post(
            "/language",
            data={"csrf": token, "lang": "en", "back": "/assignments"},
            follow_redirects=False,
        )
        assert chosen.headers["location"] == "/assignments"
        again = client.get("/assignments", headers={"Accept-Language": "zh"})
        assert '<html lang="en">' in again.text and "Your assignments" in again.text
        away = client.post(
            "/language",
            data={"csrf": token, "lang": "zh", "back": "https://elsewhere.example/"},
            follow_redirects=False,
        )
        assert away.headers["location"] == "/"  # never to another site


def test_a_learner_reads_the_service_in_the_language_the_roster_gives_them(tmp_path: Path) -> None:
    # Their notebooks were released in it: their pages and the API's words follow, whatever
    # the browser sends, until they choose another on a page. Decided where every request
    # learns who sent it, so a new route speaks it too.
    root = course_to_serve(tmp_path)
    (root / "roster.csv").write_text("student,language\nada,zh\nbob,\n", encoding="utf-8")
    english = {"Accept-Language": "en-US,en;q=0.9"}
    with in_process(root, workers=0) as (client, service):
        people = tokens(service, "ada", "bob")
        prof = tokens(service, "prof", role=INSTRUCTOR)["prof"]
        assert '<html lang="en">' in client.get("/sign-in", headers=english).text  # nobody yet
        signed_in(client, people["ada"])
        page = client.get("/assignments", headers=english).text
        assert '<html lang="zh">' in page and "你的作业" in page
        api = client.get("/api/assignments/ps9/submissions", headers=bearer(people["ada"], "en"))
        assert api.status_code == 404 and "本课程没有作业" in api.json()["error"], api.json()
        chosen = client.post(
            "/language",
            data={"csrf": form_token(page), "lang": "en", "back": "/assignments"},
            follow_redirects=False,
        )
        assert chosen.status_code == 303
        assert '<html lang="en">' in client.get("/assignments", headers=english).text
        client.cookies.clear()
        signed_in(client, people["bob"])  # the roster gives him none: his browser's
        assert '<html lang="en">' in client.get("/assignments", headers=english).text
        assert (
            '<html lang="zh">' in client.get("/assignments", headers={"Accept-Language": "zh"}).text
        )
        client.cookies.clear()
        signed_in(client, prof)  # an instructor reads their browser's
        assert '<html lang="en">' in client.get("/instructor", headers=english).text
        mine = text_of(client.get("/assignments", headers=english).text)
        assert "The course's assignments" in mine and "Your assignments" not in mine
        assert "signed in as an instructor" in mine
        (root / "roster.csv").write_text("student,language\nada,en\nbob,zh\n", encoding="utf-8")
        answer = client.get("/api/assignments/ps9/submissions", headers=bearer(people["bob"]))
        assert (
            "本课程没有作业" in answer.json()["error"]
        )  # the roster is read again when it changes


def test_a_learner_s_own_due_date_is_shown_in_the_course_s_zone(tmp_path: Path) -> None:
    # The gradebook keeps an extension in UTC; every page says it as the course says its
    # own due date, in the due date's zone (``Assignment.due_on``, where all read it).
    from click.testing import CliRunner

    from graders.cli import main

    root = course_to_serve(tmp_path, due="2036-10-05T23:59:00+02:00")
    extend = ["extend", "ada", "ps1", "--days", "2", "--course", str(root)]
    assert CliRunner().invoke(main, extend).exit_code == 0
    with in_process(root, workers=0) as (client, service):
        people = tokens(service, "ada", "bob")
        signed_in(client, people["ada"])
        assert "2036-10-07 23:59 UTC+02:00" in text_of(client.get("/assignments").text)
        assert "Due 2036-10-07 23:59 UTC+02:00." in text_of(client.get("/assignments/ps1").text)
        client.cookies.clear()
        signed_in(client, people["bob"])
        assert "2036-10-05 23:59 UTC+02:00" in text_of(client.get("/assignments").text)


def test_every_page_says_where_its_parts_are(tmp_path: Path) -> None:
    with in_process(course_to_serve(tmp_path)) as (client, service):
        signed_in(client, tokens(service, "ada")["ada"])
        hand_in(client, RIGHT)
        for path in ("/assignments", "/assignments/ps1", "/submissions/1"):
            html = client.get(path).text
            for landmark in ("<header", '<nav aria-label="Site">', '<main id="main">', "<footer"):
                assert landmark in html, (path, landmark)
            labels = set(re.findall(r'<label for="([^"]+)"', html))
            fields = set(re.findall(r'<(?:input|select)[^>]* id="([^"]+)"', html))
            assert fields <= labels, path
        headers = client.get("/assignments").headers
        assert "frame-ancestors 'none'" in headers["content-security-policy"]


def test_the_rules_read_as_sentences_in_each_language(tmp_path: Path) -> None:
    """English sentences have a space between them, Chinese ones none after "。"."""
    root = course_to_serve(tmp_path, submissions="{max: 3, every_s: 10}")
    with in_process(root, workers=0) as (client, service):
        signed_in(client, tokens(service, "ada")["ada"])
        english = text_of(client.get("/assignments/ps1", headers={"Accept-Language": "en"}).text)
        assert "You have 3 attempts left. Attempts are at least 10 s apart. Your best" in english
        chinese = client.get("/assignments/ps1", headers={"Accept-Language": "zh"}).text
        rules = re.search(r"<p>([^<]*次[^<]*)</p>", chinese)
        assert rules, chinese
        assert "。 " not in rules[1] and rules[1].count("。") >= 3, rules[1]


def test_a_withdrawn_learner_is_told_at_once_and_offered_no_upload(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from graders.cli import main

    root = course_to_serve(tmp_path, submissions="{max: 3}")
    with in_process(root) as (client, service):
        ada = tokens(service, "ada")["ada"]
        prof = tokens(service, "prof", role=INSTRUCTOR)["prof"]
        signed_in(client, ada)
        assert hand_in(client, RIGHT).status_code == 303  # one attempt, then withdrawn
        dropped = CliRunner().invoke(main, ["drop", "ada", "ps1", "--course", str(root)])
        assert dropped.exit_code == 0, dropped.output
        page = client.get("/assignments/ps1").text
        assert 'id="withdrawn"' in page and "You were withdrawn from ps1" in text_of(page)
        assert 'enctype="multipart/form-data"' not in page and "attempts left" not in page
        assert "Attempt 1" in page and "is your grade" not in page  # nothing counts now
        zh = client.get("/assignments/ps1", headers={"Accept-Language": "zh"}).text
        assert "你已退出 ps1" in zh
        listed = text_of(client.get("/assignments").text)
        assert "1 used; withdrawn" in listed and "1 used, " not in listed
        for refused in ("/no/such/page", "/instructor"):  # 404, 403: still her header and menu
            page = client.get(refused)
            assert page.status_code in (403, 404) and "Signed in as ada" in page.text, refused
        signed_in(client, prof, new_browser=True)  # the instructor still sees her attempt
        rows = client.get("/assignments/ps1/class.csv").text.splitlines()
        assert [line.split(",")[:3] for line in rows[1:]] == [["ada", "withdrawn", "1"]]


def test_the_instructor_page_is_the_class_list_with_each_learners_status(tmp_path: Path) -> None:
    """Everyone of the roster (and anyone with a token), handed in or not, late, extended,
    overridden or withdrawn; filtered by status without JavaScript; the same list as CSV."""
    from datetime import UTC, datetime, timedelta

    from click.testing import CliRunner

    from graders.cli import main

    due = datetime.now(UTC) - timedelta(hours=25)  # 2 started days late: x0.5
    root = course_to_serve(tmp_path, due=due.isoformat())
    (root / "roster.csv").write_text("student\nada\nbob\ncy\ndan\n", encoding="utf-8")
    course = ["--course", str(root)]
    for args in (
        ["extend", "ada", "ps1", "--days", "30"],
        ["drop", "dan", "ps1"],
    ):
        assert CliRunner().invoke(main, [*args, *course]).exit_code == 0
    with in_process(root) as (client, service):
        people = tokens(service, "ada", "bob", "cy", "dan", "eve")
        prof = tokens(service, "prof", role=INSTRUCTOR)["prof"]
        for name in ("ada", "bob", "eve"):
            client.cookies.clear()
            signed_in(client, people[name])
            hand_in(client, RIGHT)
        override = ["override", "bob", "ps1", "clone-basics/shares", "0", "--reason", "copied"]
        decided = CliRunner().invoke(main, [*override, *course])
        assert decided.exit_code == 0, decided.output
        # A term on the service has no batch output folder: a decision makes none.
        assert "kept in the gradebook" in decided.output and not (root / "autograded").exists()
        client.cookies.clear()
        signed_in(client, prof)
        page = text_of(client.get("/instructor").text)
        assert "not handed in: 1 · on time: 1 · late: 2 · withdrawn: 1" in page, page
        assert "ada on time; extended to" in page
        assert "bob late ×0.5; points overridden 1" in page
        assert "cy not handed in 0" in page and "dan withdrawn 0" in page
        assert "eve (not on the roster) late ×0.5 1 3 / 6" in page
        late = text_of(client.get("/instructor?status=late").text)
        assert "The class: 2 of 5 learners" in late and "cy not handed in" not in late
        table = client.get("/assignments/ps1/class.csv")
        assert table.status_code == 200 and table.headers["content-type"].startswith("text/csv")
        lines = table.text.splitlines()
        assert lines[0].startswith("student,status,attempts,score,max_score,late_factor")
        assert [line.split(",")[:2] for line in lines[1:]] == [
            ["ada", "on-time"],
            ["bob", "late"],
            ["cy", "not-handed-in"],
            ["dan", "withdrawn"],
            ["eve", "late"],
        ]
        zh = text_of(client.get("/instructor", headers={"Accept-Language": "zh"}).text)
        assert "未提交：" in zh and "迟交" in zh and "未提交: " not in zh, zh[zh.find("作业") :][
            :600
        ]
        client.cookies.clear()
        signed_in(client, people["ada"])
        assert client.get("/assignments/ps1/class.csv").status_code == 403
        client.cookies.clear()
        signed_in(client, people["bob"])  # his list states the attempt as it counts now
        mine = text_of(client.get("/assignments/ps1").text)
        assert "Attempt 1 · counts" in mine and "2.5 / 6" in mine and "3 / 6" not in mine, mine


def test_an_accommodated_learner_is_on_time_with_more_attempts_and_marked_for_the_instructor(
    tmp_path: Path,
) -> None:
    """A standing accommodation (48 extra hours, 1 extra attempt) set before the service
    starts: the learner who hands in a day after the due date is on time, reads their own
    due date and has one more attempt; another learner is late; the instructor's class list
    marks the accommodation without its reason."""
    from datetime import UTC, datetime, timedelta

    from click.testing import CliRunner

    from graders.cli import main

    due = datetime.now(UTC) - timedelta(hours=24)
    root = course_to_serve(tmp_path, due=due.isoformat(), submissions="{max: 2}")
    accommodate = ["accommodate", "ada", "--extra-hours", "48", "--extra-attempts", "1"]
    said = CliRunner().invoke(main, [*accommodate, "--reason", "letter 7", "--course", str(root)])
    assert said.exit_code == 0, said.output
    with in_process(root) as (client, service):
        people = tokens(service, "ada", "bob")
        for name in ("ada", "bob"):
            client.cookies.clear()
            signed_in(client, people[name])
            hand_in(client, RIGHT)
        client.cookies.clear()
        signed_in(client, people["ada"])
        page = text_of(client.get("/assignments/ps1").text)
        assert "You have 2 attempts left." in page, page
        assert "letter 7" not in page
        client.cookies.clear()
        signed_in(client, tokens(service, "prof", role=INSTRUCTOR)["prof"])
        listed = text_of(client.get("/instructor").text)
        assert "ada on time; extended to" in listed and "accommodation" in listed
        assert "bob late" in listed and "letter 7" not in listed
        table = client.get("/assignments/ps1/class.csv").text.splitlines()
        assert table[0].endswith(",accommodated") and table[1].endswith(",yes")


def test_a_learner_s_limits_are_read_through_the_queue_only() -> None:
    """Attempts left and due dates are counted under the learner's own limits (an
    extension, an accommodation) in one place, ``Queue``: a new page or route that asked
    ``attempts.attempts_left`` with the course's assignment would give a learner the
    class's limit."""
    import ast

    service = Path(pages.__file__).parent
    callers = set()
    for path in sorted(service.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and any(
                alias.name == "attempts_left" for alias in node.names
            ):
                callers.add(path.name)
    assert callers == {"queue.py"}
