"""A class with a roster, through the batch, into Canvas's and Moodle's import files.

The class: a roster of five (ada, bob, cy, dee, eve); eve hands nothing in, dee's notebook
cannot be read, and zed, who is not on the roster, hands one in.
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from small_course import ON_TIME, RIGHT, WRONG, hand_in, notebook, open_small_course, students
from stored_text import english

from graders.batch.autograde import Summary, autograde
from graders.cli import main
from graders.errors import UsageError
from graders.exports.from_gradebook import Export, ExportRequest, export_assignment
from graders.gradebook import store as gradebook
from graders.intake.roster import ROSTER_FILE, load_roster
from graders.results import ClassResults, ResultsDocument
from graders.workspace import Workspace

# Canvas's Gradebook import, as its guide documents and its own export writes it: these five
# columns, then one column per assignment ("Name (assignment id)"), then a row whose first
# cell says "Points Possible".
CANVAS_DOCUMENTED = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
ROSTER = (
    "student,name,email,section,sis_user_id,sis_login_id,lms_id\n"
    '"ada","Lovelace, Ada",ada@example.org,A1,S-1001,alovelace,1001\n'
    'bob,"Babbage, Charles",bob@example.org,A1,S-1002,cbabbage,1002\n'
    "cy,Cy Young,,A2,S-1003,cyoung,1003\n"
    "dee,Dee Dee,dee@example.org,A2,S-1004,ddee,1004\n"
    "eve,Eve Noether,eve@example.org,A2,S-1005,enoether,1005\n"
)


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    with open_small_course(tmp_path / "course") as ws:
        (ws.loaded.root / ROSTER_FILE).write_text(ROSTER, encoding="utf-8")
        yield ws


def a_class(folder: Path) -> Path:
    hand_in(folder, "ada", notebook(RIGHT))
    hand_in(folder, "bob", notebook(WRONG))
    hand_in(folder, "cy", notebook(RIGHT))
    hand_in(folder, "dee", "this is not a notebook")
    hand_in(folder, "zed", notebook(RIGHT))
    return folder


def graded(ws: Workspace, tmp_path: Path) -> Summary:
    roster = load_roster(ws.loaded.root / ROSTER_FILE)
    return autograde(ws, "ps1", a_class(tmp_path / "subs"), roster=roster)


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def exported(ws: Workspace, fmt: str, **options: Any) -> tuple[list[list[str]], Export]:
    result = export_assignment(ws.loaded, "ps1", ExportRequest(fmt, **options))
    return rows(result.text), result


def test_the_run_lists_the_missing_and_flags_those_not_on_the_roster(
    workspace: Workspace, tmp_path: Path
) -> None:
    summary = graded(workspace, tmp_path)
    assert (summary.missing, summary.unlisted) == (("eve",), ("zed",))
    assert summary.found == 5 and [s for s, _ in summary.ungradable] == ["dee"]
    doc = json.loads((summary.out_dir / "results.json").read_text())
    by = students(doc)
    assert (by["eve"]["status"], by["eve"]["score"], by["eve"]["on_roster"]) == ("missing", 0, True)
    assert by["zed"]["on_roster"] is False and by["zed"]["score"] == 6.0
    assert by["ada"]["on_roster"] is True
    grades = {
        r["student"]: r
        for r in csv.DictReader(io.StringIO((summary.out_dir / "grades.csv").read_text()))
    }
    assert (grades["eve"]["status"], grades["eve"]["total"]) == ("missing", "0.0")
    assert (grades["zed"]["roster"], grades["ada"]["roster"]) == ("not on roster", "listed")
    assert not (summary.out_dir / "gradescope" / "eve.json").exists()
    suites = {s.get("name"): s for s in ET.parse(summary.out_dir / "junit.xml").getroot()}
    assert suites["eve"].find("testcase/skipped").get("message") == "no submission"


def test_missing_is_in_the_gradebook_until_the_student_hands_in(
    workspace: Workspace, tmp_path: Path
) -> None:
    summary = graded(workspace, tmp_path)
    saved = gradebook.grading_keys(gradebook.open_gradebook(summary.db_url), "tiny", "ps1")
    assert set(saved) == {"ada", "bob", "cy", "dee", "eve", "zed"}
    hand_in(tmp_path / "subs", "eve", notebook(RIGHT))
    again = autograde(
        workspace, "ps1", tmp_path / "subs", roster=load_roster(workspace.loaded.root / ROSTER_FILE)
    )
    assert (again.missing, again.graded) == ((), 1)
    doc = gradebook.results_document(summary.db_url, "tiny", "ps1")
    assert {s.student: s.status.value for s in doc.students}["eve"] == "graded"


def test_canvas_export_of_a_five_student_roster_with_one_missing(
    workspace: Workspace, tmp_path: Path
) -> None:
    graded(workspace, tmp_path)
    table, result = exported(workspace, "canvas", lms_assignment="98765")
    header, points, *body = table
    assert header == [*CANVAS_DOCUMENTED, "ps1 (98765)"]
    # Canvas's importer: the title and id of an assignment column, the "Points Possible" row.
    assert re.fullmatch(r"(.*)\s\((\d+)\)", header[5]).groups() == ("ps1", "98765")
    assert "Points Possible" in points[0] and points[1:] == ["", "", "", "", "6"]
    assert body == [
        ["Lovelace, Ada", "1001", "S-1001", "alovelace", "A1", "6"],
        ["Babbage, Charles", "1002", "S-1002", "cbabbage", "A1", "1"],
        ["Cy Young", "1003", "S-1003", "cyoung", "A2", "6"],
        ["Dee Dee", "1004", "S-1004", "ddee", "A2", ""],  # unreadable: Canvas keeps its grade
        ["Eve Noether", "1005", "S-1005", "enoether", "A2", "0"],  # missing
    ]
    assert result.left_out == (("zed", "not on the roster"),) and result.blank == ("dee",)
    assert result.text.endswith("\r\n")


def test_moodle_export_names_each_student_by_the_chosen_field(
    workspace: Workspace, tmp_path: Path
) -> None:
    graded(workspace, tmp_path)
    table, result = exported(workspace, "moodle")
    assert table == [
        ["Email address", "Full name", "ps1"],
        ["ada@example.org", "Lovelace, Ada", "6"],
        ["bob@example.org", "Babbage, Charles", "1"],
        ["eve@example.org", "Eve Noether", "0"],
    ]
    # A row naming nobody, or an empty grade, would abort or clear grades in Moodle's import.
    why = dict(result.left_out)
    assert sorted(why) == ["cy", "dee", "zed"]
    assert why["cy"] == "no email address in the roster" and why["zed"] == "not on the roster"
    assert why["dee"].startswith("ungradable: ") and "not a notebook" in why["dee"]
    chosen = {"identifier": "idnumber"}
    by_id, _ = exported(workspace, "moodle", options=chosen, column="Problem set 1")
    assert by_id[0] == ["ID number", "Full name", "Problem set 1"]
    assert [r[0] for r in by_id[1:]] == ["S-1001", "S-1002", "S-1003", "S-1005"]


def test_plain_csv_has_everyone_with_the_roster_columns(
    workspace: Workspace, tmp_path: Path
) -> None:
    graded(workspace, tmp_path)
    _, result = exported(workspace, "csv")
    by = {r["student"]: r for r in csv.DictReader(io.StringIO(result.text))}
    assert sorted(by) == ["ada", "bob", "cy", "dee", "eve", "zed"]
    assert (by["eve"]["status"], by["eve"]["score"], by["eve"]["on_roster"]) == (
        "missing",
        "0",
        "yes",
    )
    assert (by["zed"]["on_roster"], by["zed"]["name"]) == ("no", "")
    assert (by["ada"]["lms_id"], by["ada"]["sis_login_id"]) == ("1001", "alovelace")
    # Out of what the assignment is worth, for one who handed nothing in or nothing readable.
    assert by["eve"]["max_score"] == by["dee"]["max_score"] == by["ada"]["max_score"] != "0"


def test_a_roster_given_after_the_run_still_lists_its_missing(
    workspace: Workspace, tmp_path: Path
) -> None:
    autograde(workspace, "ps1", a_class(tmp_path / "subs"))  # no roster given to the run
    later = tmp_path / "later.csv"
    later.write_text("student,lms_id\nada,1\nfay,6\n")
    table, result = exported(workspace, "canvas", roster_path=later)
    assert [r[0] for r in table[2:]] == ["ada", "fay"] and table[3][-1] == "0"
    assert {s for s, _ in result.left_out} == {"bob", "cy", "dee", "zed"}
    assert result.by_name == ()
    bare = tmp_path / "bare.csv"
    bare.write_text("student,name\nada,Ada Lovelace\n")
    _, by_name = exported(workspace, "canvas", roster_path=bare)
    assert by_name.by_name == ("ada",)  # nothing but a name for Canvas to find her by


def test_without_a_roster_graders_id_is_the_login(tmp_path: Path) -> None:
    with open_small_course(tmp_path / "course") as ws:
        autograde(ws, "ps1", a_class(tmp_path / "subs"))
        table, _ = exported(ws, "canvas")
        moodle, _ = exported(ws, "moodle")
    assert table[2] == ["ada", "", "", "ada", "", "6"]
    assert moodle[0][0] == "Username" and moodle[1] == ["ada", "ada", "6"]


def test_a_spreadsheet_formula_in_a_name_is_defused(workspace: Workspace, tmp_path: Path) -> None:
    (workspace.loaded.root / ROSTER_FILE).write_text('student,name\nada,"=HYPERLINK(""x"")"\n')
    autograde(workspace, "ps1", a_class(tmp_path / "subs"))
    table, _ = exported(workspace, "canvas")
    assert table[2][0] == '\'=HYPERLINK("x")'


def test_exporting_before_anything_is_graded_says_so(workspace: Workspace) -> None:
    with pytest.raises(UsageError, match="no gradebook"):
        exported(workspace, "canvas")
    gradebook.open_gradebook(gradebook.default_url(workspace.loaded.root))
    with pytest.raises(UsageError, match="nothing graded for ps1"):
        exported(workspace, "canvas")


def test_the_export_command_writes_the_file_and_says_who_was_left_out(
    workspace: Workspace, tmp_path: Path
) -> None:
    graded(workspace, tmp_path)
    root = str(workspace.loaded.root)
    result = CliRunner().invoke(main, ["export", "ps1", "--format", "canvas", "--course", root])
    assert result.exit_code == 0, result.output
    path = workspace.loaded.root / "autograded" / "ps1" / "ps1-canvas.csv"
    assert rows(path.read_text())[0] == [*CANVAS_DOCUMENTED, "ps1"]
    assert (
        "wrote 5 students" in result.stderr and "left out zed: not on the roster" in result.stderr
    )
    assert "no score (could not be graded; the LMS keeps its grade): dee" in result.stderr
    to_stdout = CliRunner().invoke(
        main, ["export", "ps1", "--format", "moodle", "--course", root, "-o", "-"]
    )
    assert rows(to_stdout.stdout)[0] == ["Email address", "Full name", "ps1"]


def test_a_broken_roster_stops_the_export_with_its_place(
    workspace: Workspace, tmp_path: Path
) -> None:
    graded(workspace, tmp_path)
    (workspace.loaded.root / ROSTER_FILE).write_text("student,name\nada,Ada,extra\n")
    root = str(workspace.loaded.root)
    result = CliRunner().invoke(main, ["export", "ps1", "--format", "csv", "--course", root])
    assert result.exit_code == 2
    assert f"{workspace.loaded.root / ROSTER_FILE}:2:9: 3 cells" in result.stderr


def test_missing_students_get_no_feedback_page_and_count_as_unread_in_the_report(
    workspace: Workspace, tmp_path: Path
) -> None:
    from graders.reports.course_info import course_info
    from graders.reports.feedback import write_feedback
    from graders.reports.model import assignment_report

    summary = graded(workspace, tmp_path)
    pages = write_feedback(workspace.loaded, "ps1", summary.db_url, tmp_path / "feedback")
    assert sorted(p.stem for p in pages) == ["ada", "bob", "cy", "dee", "zed"]
    doc = json.loads((summary.out_dir / "results.json").read_text())
    report = assignment_report(
        ClassResults.of(ResultsDocument.parse(json.dumps(doc))), course_info(workspace.loaded)
    )
    assert report.read_count == 4  # ada, bob, cy, zed: dee's could not be read, eve's is missing
    assert "eve" in [r.student for r in report.problems]
    assert "eve" not in [h.row.student for h in report.help]  # nothing handed in, nothing to help


def test_a_zipped_canvas_download_is_graded_under_the_rosters_ids(
    workspace: Workspace, tmp_path: Path
) -> None:
    import zipfile

    archive = tmp_path / "ps1 submissions.zip"
    members = {
        "lovelaceada_1001_70001_ps1.ipynb": notebook(RIGHT),
        "babbagecharles_late_1002_70002_ps1 (1).ipynb": notebook(WRONG),
        "youngcy_1003_70003_answers.pdf": "%PDF-1.4",
    }
    on_time = ON_TIME.astimezone().timetuple()[:6]  # zip keeps local times
    with zipfile.ZipFile(archive, "w") as zf:
        for name, text in members.items():
            zf.writestr(zipfile.ZipInfo(name, date_time=on_time), text)
    roster = load_roster(workspace.loaded.root / ROSTER_FILE)
    summary = autograde(workspace, "ps1", archive, roster=roster)
    doc = students(json.loads((summary.out_dir / "results.json").read_text()))
    assert {s: (doc[s]["status"], doc[s]["score"]) for s in ("ada", "bob", "cy", "eve")} == {
        "ada": ("graded", 6.0),
        "bob": ("graded", 1.0),
        "cy": ("ungradable", 0),  # a PDF is not a notebook: said so, not skipped
        "eve": ("missing", 0),
    }
    assert "no notebook for ps1" in english(doc["cy"]["error"])
    assert summary.missing == ("dee", "eve") and summary.unlisted == ()
