"""A whole term on `graders serve`, without a folder of notebooks, on SQLite and PostgreSQL.

Twelve learners (one reads in Chinese) hand in ps1 through the service: most before the due
date, one after it with an extension, one after it without, one three times and refused a
fourth, one never. Then the instructor's commands on the same gradebook: an override, a
drop, a regrade of a served attempt (its late factor kept). Every figure the instructor can
read afterwards (the class page, the grades API, the class CSV, the Canvas file) agrees,
learner by learner, and the export says whom it left out.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from service_helpers import (
    bearer,
    course_to_serve,
    graded,
    in_process,
    signed_in,
    tokens,
    upload,
)
from small_course import RIGHT, WRONG, notebook

from graders.cli import main
from graders.gradebook.service_tables import INSTRUCTOR

pytest.importorskip("starlette", reason="needs graders' serve extra")

ONE_WRONG = RIGHT | {"clone-basics/shares": "True"}  # 5 of 6
LEARNERS = ("ada", "bob", "cy", "dan", "eve", "fay", "gus", "hal", "ivy", "jo", "kim", "li")
# What each learner hands in before the due date (the list in order), and after it.
BEFORE = {
    "ada": [RIGHT],
    "dan": [WRONG, RIGHT],
    "eve": [RIGHT],
    "fay": [ONE_WRONG],
    "gus": [RIGHT],
    "hal": [WRONG, ONE_WRONG, RIGHT],  # the limit is 3: a fourth is refused
    "ivy": [RIGHT],
    "jo": [WRONG],
    "li": [ONE_WRONG],  # reads in Chinese
}
AFTER = {"bob": [RIGHT], "kim": [RIGHT]}  # bob has an extension, kim has none: late


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'term.db'}"
    return str(request.getfixturevalue("postgres").new_database("term"))


class Clock:
    """The service's clock (``Service(clock=...)``, when a notebook counts as handed in),
    set by the test: None is the wall clock."""

    at: datetime | None = None

    def __call__(self) -> datetime:
        return self.at if self.at is not None else datetime.now(UTC)


def cli(*args: str) -> str:
    done = CliRunner().invoke(main, list(args))
    assert done.exit_code == 0, done.output
    return done.output


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.sandbox  # the regrade grades in the sandbox, as on a server
def test_a_term_on_the_service_agrees_everywhere(tmp_path: Path, db_url: str) -> None:
    due = datetime.now(UTC) - timedelta(hours=25)  # after it: 2 started days late, x0.5
    root = course_to_serve(tmp_path, due=due.isoformat(), submissions="{max: 3}")
    roster = "student,language\n" + "".join(f"{s},{'zh' if s == 'li' else ''}\n" for s in LEARNERS)
    (root / "roster.csv").write_text(roster, encoding="utf-8")
    course = ["--course", str(root), "--db", db_url]
    clock = Clock()
    with in_process(root, db_url=db_url, clock=clock) as (client, service):
        cli("extend", "bob", "ps1", "--days", "3", "--reason", "ill", *course)
        people = tokens(service, *LEARNERS)
        prof = tokens(service, "prof", role=INSTRUCTOR)["prof"]
        clock.at = due - timedelta(days=2)
        for student, notebooks in BEFORE.items():
            for answers in notebooks:
                sent = upload(client, people[student], notebook(answers))
                assert sent.status_code in (201, 202), sent.text
                done = graded(client, people[student], sent.json()["id"])
                assert done["status"] == "graded" and done["late_factor"] == 1.0, done
        fourth = upload(client, people["hal"], notebook(RIGHT))
        assert fourth.status_code == 429 or fourth.status_code == 403, fourth.text
        assert "3" in fourth.json()["error"]
        chinese = client.get(f"/api/submissions/{done['id']}", headers=bearer(people["li"], "zh"))
        clock.at = None  # now: 25 hours after the due date
        for student, notebooks in AFTER.items():
            sent = upload(client, people[student], notebook(notebooks[0]))
            graded(client, people[student], sent.json()["id"])
    # The learner who reads Chinese reads graders' own words in Chinese.
    assert any("这道题的解释" in q["feedback"] for q in chinese.json()["questions"])
    cli("override", "eve", "ps1", "clone-basics/shares", "0", "--reason", "copied", *course)
    cli("drop", "gus", "ps1", "--reason", "left the course", *course)
    regraded = cli("regrade", "kim", "ps1", "--by", "prof", *course)
    assert "before: 3/6 (late x0.5)" in regraded and "after: 3/6 (late x0.5)" in regraded
    canvas_file = tmp_path / "canvas.csv"
    said = cli("export", "ps1", "--format", "canvas", "-o", str(canvas_file), *course)
    assert "wrote 11 students" in said and "left out gus: dropped (graders drop)" in said
    with in_process(root, workers=0, db_url=db_url) as (client, service):
        api = client.get("/api/assignments/ps1/grades", headers=bearer(prof)).json()
        signed_in(client, prof)
        table = client.get("/assignments/ps1/class.csv").text
        html = client.get("/instructor").text

    by_api = {row["student"]: row["score"] for row in api}
    rows = {row["student"]: row for row in csv.DictReader(io.StringIO(table))}
    by_table = {s: float(r["score"]) for s, r in rows.items() if r["score"]}
    canvas = list(csv.reader(io.StringIO(canvas_file.read_text(encoding="utf-8"))))
    by_canvas = {row[0]: float(row[-1]) for row in canvas[2:]}
    ps1_html = html.split("an independent copy", 1)[0]  # the page's first assignment
    ps1 = text_of(ps1_html)
    shown = [text_of(row).split() for row in re.findall(r"<tr[^>]*>(.*?)</tr>", ps1_html, re.S)]
    # A row: learner, status ..., attempts, "points / 6", "Submission N" (when handed in).
    by_page = {r[0]: float(r[-5]) for r in shown if r[-2:-1] == ["Submission"]}
    graded_ones = (set(BEFORE) | set(AFTER)) - {"gus"}  # gus was dropped after
    assert set(by_api) == set(by_table) == set(by_page) == graded_ones, by_page
    assert by_api == by_table == by_page == {s: by_canvas[s] for s in by_api}
    assert by_canvas["cy"] == 0 and "gus" not in by_canvas  # not handed in; dropped
    assert by_api == {
        "ada": 6, "bob": 6, "dan": 6, "eve": 5, "fay": 5, "hal": 6,
        "ivy": 6, "jo": 1, "kim": 3, "li": 5,
    }  # fmt: skip
    assert "not handed in: 1 · on time: 9 · late: 1 · withdrawn: 1" in ps1
    assert "bob on time; extended to" in ps1 and "eve on time; points overridden" in ps1
    assert "kim late ×0.5 1 3 / 6" in ps1 and "gus withdrawn 1" in ps1  # his attempt, kept
    assert [rows[s]["status"] for s in ("bob", "cy", "gus", "kim")] == [
        "on-time",
        "not-handed-in",
        "withdrawn",
        "late",
    ]
    assert rows["kim"]["late_factor"] == "0.5" and rows["hal"]["attempts"] == "3"
