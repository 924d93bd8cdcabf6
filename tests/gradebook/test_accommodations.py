"""Accommodations: one standing rule per learner, applied by itself wherever a due date or an
attempt limit is read — batch autograde, the exports, the feedback page, the service — to
every assignment, those graded already and those added later, with its reason kept from
learners and exports."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from small_course import RIGHT, hand_in, notebook, open_small_course, students

from graders.batch.autograde import autograde
from graders.cli import main
from graders.course.load import load_course
from graders.errors import SpecError
from graders.gradebook import accommodations
from graders.gradebook.store import default_url, open_gradebook
from graders.service.queue import Queue
from graders.workspace import Workspace

# ps1 is due 2026-10-05T23:59Z (0.25 off per started day, 0 after 2 days); both hand in a
# day and a half late: without an accommodation that is x0.5, with 48 extra hours on time.
TIMES = "student,submitted_at\nada,2026-10-07T10:00:00Z\nbob,2026-10-07T10:00:00Z\n"


@dataclass
class Term:
    session: Workspace
    subs: Path
    times: Path

    @property
    def root(self) -> Path:
        return self.session.loaded.root

    def autograde(self, assignment: str = "ps1") -> None:
        autograde(self.session, assignment, self.subs, times=self.times, force=True)

    def cli(self, *args: str) -> Result:
        return CliRunner().invoke(main, [*args, "--course", str(self.root)])

    def results(self) -> dict[str, dict[str, Any]]:
        doc = json.loads((self.root / "autograded" / "ps1" / "results.json").read_text("utf-8"))
        return students(doc)

    def csv_rows(self) -> dict[str, dict[str, str]]:
        text = (self.root / "autograded" / "ps1" / "grades.csv").read_text(encoding="utf-8")
        return {r["student"]: r for r in csv.DictReader(io.StringIO(text))}


@pytest.fixture
def term(tmp_path: Path) -> Iterator[Term]:
    subs = tmp_path / "subs"
    for name in ("ada", "bob"):
        hand_in(subs, name, notebook(RIGHT))
    times = tmp_path / "times.csv"
    times.write_text(TIMES, encoding="utf-8")
    with open_small_course(tmp_path / "course") as session:
        yield Term(session, subs, times)


def ok(result: Result) -> str:
    assert result.exit_code == 0, result.output
    return result.output


def test_extra_hours_make_a_late_hand_in_on_time_in_batch_and_export(term: Term) -> None:
    said = ok(term.cli("accommodate", "ada", "--extra-hours", "48", "--reason", "letter 12"))
    assert "ada: 48 extra hours on every due date" in said
    term.autograde()
    ada, bob = term.results()["ada"], term.results()["bob"]
    assert (ada["late_factor"], bob["late_factor"]) == (1.0, 0.5)
    assert ada["extension"]["due"] == "2026-10-07T23:59:00+00:00"
    assert ada["extension"]["reason"] is None  # the reason is the instructor's only
    row = term.csv_rows()["ada"]
    assert row["extended_due"] == "2026-10-07T23:59:00+00:00"
    assert "letter 12" not in (term.root / "autograded" / "ps1" / "grades.csv").read_text()
    history = ok(term.cli("history", "ada"))
    assert "accommodate" in history and "letter 12" in history


def test_a_saved_grade_is_restated_at_once_and_clearing_undoes_it(term: Term) -> None:
    term.autograde()
    assert term.results()["ada"]["late_factor"] == 0.5
    ok(term.cli("accommodate", "ada", "--extra-hours", "48"))
    assert term.results()["ada"]["late_factor"] == 1.0  # outputs rewritten from the gradebook
    ok(term.cli("accommodate", "ada", "--clear"))
    assert term.results()["ada"]["late_factor"] == 0.5
    assert "no accommodation" in term.cli("accommodate", "ada", "--clear").output


def test_an_explicit_extension_wins_where_it_is_later(term: Term) -> None:
    ok(term.cli("accommodate", "ada", "--extra-hours", "1"))
    ok(term.cli("extend", "ada", "ps1", "--days", "2"))
    term.autograde()
    assert term.results()["ada"]["extension"]["due"] == "2026-10-07T23:59:00+00:00"


def test_an_assignment_added_later_is_accommodated_at_the_next_autograde(term: Term) -> None:
    ok(term.cli("accommodate", "ada", "--extra-hours", "48"))
    course = term.root / "course.yml"
    text = course.read_text(encoding="utf-8")
    course.write_text(
        text + '  - id: ps3\n    title: later\n    due: "2026-10-20T23:59:00+00:00"\n'
        "    exercises: [clone-basics]\n",
        encoding="utf-8",
    )
    loaded = load_course(course)
    engine = open_gradebook(default_url(term.root))
    changes = accommodations.sync(engine, loaded)
    assert changes == ["ada ps3: due 2026-10-22T23:59:00+00:00 (accommodation)"]
    assert accommodations.sync(engine, loaded) == []  # re-running changes nothing


def test_a_time_factor_scales_the_window_of_an_assignment_that_opens(term: Term) -> None:
    course = term.root / "course.yml"
    text = course.read_text(encoding="utf-8")
    opened = text.replace(
        '    due: "2026-10-05T23:59:00+00:00"',
        '    opens: "2026-10-03T23:59:00+00:00"\n    due: "2026-10-05T23:59:00+00:00"',
    )
    course.write_text(opened, encoding="utf-8")
    loaded = load_course(course)
    rule = accommodations.Rule("ada", time_factor=1.5)
    ps1, ps2 = loaded.course.assignments[:2]
    assert rule.due(ps1) == datetime(2026, 10, 6, 23, 59, tzinfo=UTC)  # a 2-day window: +1 day
    assert rule.due(ps2) is None  # no `opens:`: nothing to scale


def test_opens_after_due_is_a_course_error(term: Term) -> None:
    course = term.root / "course.yml"
    text = course.read_text(encoding="utf-8")
    course.write_text(
        text.replace(
            '    due: "2026-10-05T23:59:00+00:00"',
            '    opens: "2026-10-09T00:00:00+00:00"\n    due: "2026-10-05T23:59:00+00:00"',
        ),
        encoding="utf-8",
    )
    result = term.cli("validate", "--no-truth")
    assert result.exit_code == 2 and "course.yml:7:5: assignments[0]: opens" in result.output
    assert "opens (2026-10-09T00:00:00+00:00) is not before due" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--extra-hours", "-1"],
        ["--time-factor", "0.5"],
        ["--extra-attempts", "-2"],
        [],
    ],
)
def test_a_rule_that_means_nothing_or_too_much_is_refused(term: Term, args: list[str]) -> None:
    result = term.cli("accommodate", "ada", *args)
    assert result.exit_code == 2, result.output


def test_extra_attempts_raise_the_service_limit_for_that_learner_only(term: Term) -> None:
    ok(term.cli("accommodate", "ada", "--extra-attempts", "2"))
    course = term.root / "course.yml"
    text = course.read_text(encoding="utf-8")
    limited = text.replace(
        "    late: {penalty_per_day: 0.25, cutoff_days: 2}\n",
        "    late: {penalty_per_day: 0.25, cutoff_days: 2}\n    submissions: {max: 3}\n",
    )
    course.write_text(limited, encoding="utf-8")
    loaded = load_course(course)
    queue = Queue(open_gradebook(default_url(term.root)), loaded.course.id)
    ps1 = loaded.course.assignments[0]
    assert queue.due_for(ps1, "ada").submissions.max == 5
    assert queue.due_for(ps1, "bob").submissions.max == 3


def test_the_roster_s_columns_accommodate_and_a_command_counts_over_them(term: Term) -> None:
    (term.root / "roster.csv").write_text(
        "student,extra_hours,extra_attempts\nada,48,\nbob,,2\n", encoding="utf-8"
    )
    term.autograde()  # each autograde applies what the roster says now
    ada, bob = term.results()["ada"], term.results()["bob"]
    assert (ada["late_factor"], bob["late_factor"]) == (1.0, 0.5)
    ok(term.cli("accommodate", "ada", "--extra-hours", "1"))  # the command's rule counts
    assert term.results()["ada"]["late_factor"] == 0.5
    ok(term.cli("accommodate", "ada", "--clear"))  # and without it, the roster's again
    assert term.results()["ada"]["late_factor"] == 1.0


def test_a_roster_accommodation_out_of_range_is_reported_at_its_place(term: Term) -> None:
    (term.root / "roster.csv").write_text(
        "student,time_factor,extra_attempts\nada,0.5,\nbob,,many\n", encoding="utf-8"
    )
    engine = open_gradebook(default_url(term.root))
    with pytest.raises(SpecError) as raised:
        accommodations.sync(engine, load_course(term.root / "course.yml"))
    said = str(raised.value)
    assert "roster.csv:2:5: time_factor '0.5' is not a number from 1 to 10" in said
    assert "roster.csv:3:6: extra_attempts 'many' is not a whole number from 0 to 1000" in said
