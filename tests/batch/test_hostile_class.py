"""One learner's bytes never cost another learner anything: a class in which some learners
hand in text that cannot be stored, folders whose names are not UTF-8, forged time files,
names like a layout's folders and ids that look alike; everyone else is graded and saved."""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ci_support import KEY, write_course, write_notebook
from click.testing import CliRunner
from small_course import RIGHT, hand_in, notebook, open_small_course, students
from stored_text import english

from graders.batch.autograde import Summary, autograde
from graders.cli import main
from graders.cli.batch_output import print_summary
from graders.errors import SpecError, UsageError
from graders.gradebook import store as gradebook
from graders.intake.roster import load_roster
from graders.said import render
from graders.submissions.times import read_times_file
from graders.workspace import Workspace

# Its many in-process commands share one warm sandbox (tests/warm_sandbox.py).
pytestmark = pytest.mark.usefixtures("warm_sandbox")

SURROGATE = "\\ud800"  # as JSON escapes it: valid JSON, half of a character
MARK = "MARKED-FOR-A-SURROGATE"


def with_surrogate(text: str) -> str:
    """A notebook's JSON with ``MARK`` replaced by a JSON escape of a lone surrogate."""
    assert MARK in text
    return text.replace(MARK, SURROGATE)


def nb_with(where: str) -> str:
    """A right notebook holding half a character ``where`` (JSON-escaped)."""
    if where == "answer-literal":  # a Python escape in the answer's string literal
        return notebook({**RIGHT, "clone-basics/shares": '"\\ud800"'})
    data = json.loads(notebook(RIGHT))
    if where == "answer-json":
        data["cells"][1]["source"] = f"answer = {MARK}"
    elif where == "label":
        data["metadata"]["graders"] = {"labels": {"clone-basics/shares": MARK}}
    elif where == "markdown":
        data["cells"][0]["source"] = f"# Problem set {MARK}"
    elif where == "output":
        data["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": MARK}]
    return with_surrogate(json.dumps(data))


UNSTORABLE = ("label",)  # graders' own metadata: the notebook cannot be read
IN_AN_ANSWER = ("answer-literal", "answer-json")  # that answer is invalid, the rest graded
NEVER_READ = ("markdown", "output")  # not an answer: graded as if it were not there
LATIN1_FOLDERS = (b"Jos\xe9", b"caf\xc3", b"\xff\xfe")


def hand_in_bytes(folder: Path, name: bytes, text: str, file: bytes = b"ps1.ipynb") -> None:
    path = os.path.join(os.fsencode(folder), name, file)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def run(ws: Workspace, folder: Path, **options: Any) -> tuple[Summary, dict[str, Any]]:
    summary = autograde(ws, "ps1", folder, **options)
    return summary, json.loads((summary.out_dir / "results.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Workspace, Path, Summary]]:
    root = tmp_path_factory.mktemp("hostile")
    folder = root / "subs"
    for name in ("amy", "bob", "cy"):
        hand_in(folder, name, notebook(RIGHT))
    for where in (*UNSTORABLE, *IN_AN_ANSWER, *NEVER_READ):
        hand_in(folder, where, nb_with(where))
    for name in LATIN1_FOLDERS:
        hand_in_bytes(folder, name, notebook(RIGHT))
    # A valid folder whose only notebook's name is Latin-1: graded, the name shown escaped.
    hand_in_bytes(folder, b"dan", notebook(RIGHT), b"ps1 (\xe9).ipynb")
    with open_small_course(root / "course") as ws:
        yield ws, folder, autograde(ws, "ps1", folder)


def test_each_unstorable_notebook_is_its_learners_ungradable_naming_the_file(hostile) -> None:
    ws, _, summary = hostile
    doc = gradebook.results_document(gradebook.default_url(ws.loaded.root), "tiny", "ps1")
    by = {s.student: s for s in doc.students}
    for where in UNSTORABLE:
        error = str(by[where].error or "")
        assert by[where].status.value == "ungradable", where
        assert error.startswith(f"{where}/ps1.ipynb: ") and "lone surrogate" in error, error
    assert len(summary.ungradable) == len(UNSTORABLE) + len(LATIN1_FOLDERS)
    assert not summary.internal  # the learner's bytes, not a bug in graders


def test_half_a_character_in_an_answer_costs_that_answer_and_nothing_else(hostile) -> None:
    ws, _, _ = hostile
    doc = gradebook.results_document(gradebook.default_url(ws.loaded.root), "tiny", "ps1")
    by = {s.student: s for s in doc.students}
    for where in IN_AN_ANSWER:
        questions = {q.id: q for q in by[where].questions}
        shares = questions["clone-basics/shares"]
        assert shares.status.value == "invalid" and shares.points == 0, where
        said = render(shares.feedback, "en")
        assert "clone-basics/shares holds \\ud800 at character" in said, said
        assert by[where].raw_score == by[where].max_score - shares.max_points, where
    for where in NEVER_READ:
        assert by[where].raw_score == by[where].max_score, where


def test_folders_whose_names_are_not_utf8_are_ungradable_with_their_bytes_shown(hostile) -> None:
    _, _, summary = hostile
    reasons = dict(summary.ungradable)
    for raw in LATIN1_FOLDERS:
        shown = raw.decode("utf-8", errors="backslashreplace")
        assert reasons[shown].startswith(f"{shown}: the name is not UTF-8 text"), reasons


def test_everyone_else_is_graded_saved_and_exported(hostile) -> None:
    ws, _, summary = hostile
    doc = gradebook.results_document(gradebook.default_url(ws.loaded.root), "tiny", "ps1")
    by = {s.student: s for s in doc.students}
    for name in ("amy", "bob", "cy", "dan"):
        assert (by[name].status.value, by[name].score) == ("graded", 6.0), name
    assert summary.graded == summary.found  # each read, the unreadable ones ungradable
    exported = CliRunner().invoke(
        main,
        ["export", "ps1", "--format", "csv", "-o", "-", "--course", str(ws.loaded.root)],
    )
    assert exported.exit_code == 0, exported.output
    rows = {line.split(",")[0]: line for line in exported.stdout.splitlines()}
    assert all(",6.0," in rows[name] or ",6," in rows[name] for name in ("amy", "bob", "dan"))


def test_a_graded_notebook_with_a_latin1_name_is_named_escaped(hostile) -> None:
    ws, _, _ = hostile
    doc = json.loads((ws.loaded.root / "autograded" / "ps1" / "results.json").read_text())
    assert students(doc)["dan"]["status"] == "graded"
    with gradebook.open_gradebook(gradebook.default_url(ws.loaded.root)).connect() as conn:
        from sqlalchemy import select

        from graders.gradebook.tables import SubmissionRow

        source = conn.execute(
            select(SubmissionRow.source).where(SubmissionRow.student == "dan")
        ).scalar_one()
    assert source == "dan/ps1 (\\xe9).ipynb"


def test_every_run_again_goes_through_and_grades_nobody_twice(hostile) -> None:
    ws, folder, _ = hostile
    summary = autograde(ws, "ps1", folder)
    assert summary.graded == 0 and summary.skipped == summary.found
    print_summary(summary)  # what it says can be printed


@pytest.mark.parametrize("answer", ["\ud800", "\udfff x", "ok\udbff"])
def test_graders_ci_on_an_unstorable_answer_grades_the_rest_never_3(
    tmp_path: Path, answer: str
) -> None:
    course = write_course(tmp_path / "course")
    literal = write_notebook(tmp_path / "literal.ipynb", {**KEY, "clone-basics/grad": answer})
    escaped = write_notebook(tmp_path / "escaped.ipynb", {**KEY, "clone-basics/grad": MARK})
    escaped.write_text(with_surrogate(escaped.read_text(encoding="utf-8")), encoding="utf-8")
    for nb in (literal, escaped):
        args = ["ci", str(nb), "--assignment", "ci1", "--course", str(course)]
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 0, done.output  # graded, as a notebook with a wrong answer
        assert "invalid" in done.output and "lone surrogate" in done.output
        assert "✓ Question 2.1" in done.output


def test_graders_ci_on_a_notebook_whose_path_is_not_utf8_shows_it_escaped(tmp_path: Path) -> None:
    course = write_course(tmp_path / "course")
    nb = write_notebook(tmp_path / "x.ipynb", {**KEY, "clone-basics/grad": "\ud800"})
    latin1 = os.path.join(os.fsencode(tmp_path), b"Jos\xe9.ipynb")
    os.rename(nb, latin1)
    args = ["ci", os.fsdecode(latin1), "--assignment", "ci1", "--course", str(course)]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output  # graded: one answer invalid, as a wrong one is
    assert "clone-basics/grad holds \\ud800" in done.output
    with open(latin1, "w", encoding="utf-8") as spoiled:
        spoiled.write("{")  # not a notebook: the reason names the file, escaped
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2 and "Jos\\xe9.ipynb: not a notebook" in done.output, done.output


# --- saving: one row the database cannot hold ----------------------------------------------


def test_a_grade_the_gradebook_cannot_hold_costs_only_its_learner(gradebook_url: str) -> None:
    from gradebook_rows import graded, result

    engine = gradebook.open_gradebook(gradebook_url)
    good = [graded(result(name)) for name in ("amy", "bob", "cy")]
    bad_answer = graded(result("dee"))
    question = bad_answer.result.questions[0]
    from dataclasses import replace

    bad_answer = replace(
        bad_answer,
        result=replace(bad_answer.result, questions=(replace(question, answer="\ud800"),)),
    )
    bad_source = replace(graded(result("eve")), source="eve/\udce9.ipynb")
    saved = gradebook.record_all(
        engine, "c", "ps1", [good[0], bad_answer, good[1], bad_source, good[2]]
    )
    assert [g.result.student for g in saved] == ["amy", "dee", "bob", "eve", "cy"]
    doc = gradebook.results_document(engine, "c", "ps1")
    by = {s.student: s for s in doc.students}
    assert [by[n].score for n in ("amy", "bob", "cy")] == [3.0, 3.0, 3.0]
    for name in ("dee", "eve"):
        assert by[name].status.value == "ungradable"
        assert str(by[name].error or "").startswith("the gradebook could not save this grade: ")
    assert gradebook.grading_keys(engine, "c", "ps1")["eve"] == "k1"  # not graded again


# --- times: only from the instructor's side --------------------------------------------------

LATE = "2026-10-20T12:00:00+00:00"  # 15 days past ps1's due date: past the cutoff


@pytest.mark.parametrize(
    ("files", "folder"),
    [
        pytest.param({"timestamp.txt": "2026-10-01 12:00:00 UTC"}, "ps1", id="nbgrader-nested"),
        pytest.param({"timestamp.txt": "2026-10-01 12:00:00 UTC"}, "", id="nbgrader-beside"),
        pytest.param(
            {"submission_metadata.json": json.dumps({"created_at": "2026-10-01T12:00:00Z"})},
            "",
            id="gradescope-beside",
        ),
        pytest.param(
            {"submission_metadata.json": json.dumps({"created_at": "2026-10-01T12:00:00Z"})},
            "ps1",
            id="gradescope-nested",
        ),
    ],
)
def test_a_learners_own_time_file_never_beats_the_instructors_times(
    tmp_path: Path, files: dict[str, str], folder: str
) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "honest", notebook(RIGHT))
    where = subs / "forger" / folder if folder else subs / "forger"
    hand_in(where.parent if folder else subs, where.name, notebook(RIGHT))
    for name, text in files.items():
        (where / name).write_text(text, encoding="utf-8")
    times = tmp_path / "times.csv"
    times.write_text(f"student,submitted_at\nhonest,{LATE}\nforger,{LATE}\n", encoding="utf-8")
    with open_small_course(tmp_path / "course") as ws:
        summary, doc = run(ws, subs, times=times)
    by = students(doc)
    assert by["honest"]["status"] == by["forger"]["status"] == "late-cutoff"
    assert by["forger"]["score"] == by["honest"]["score"] == 0
    shown = f"forger/{folder}/{name}" if folder else f"forger/{name}"
    assert summary.ignored_times == (("forger", shown),)


def beside_a_timed_nested_learner(subs: Path, learner: str) -> Path:
    """ada's flat folder, and ``learner``'s nbgrader-like ``ps1/`` with a timestamp.txt."""
    hand_in(subs, "ada", notebook(RIGHT))
    hand_in(subs / learner, "ps1", notebook(RIGHT), name="work.ipynb")
    (subs / learner / "ps1" / "timestamp.txt").write_text("2026-10-01 12:00:00 UTC")
    return subs


def test_without_times_a_forged_file_leaves_no_time_and_the_run_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    subs = beside_a_timed_nested_learner(tmp_path / "subs", "forger")
    with open_small_course(tmp_path / "course") as ws:
        summary, doc = run(ws, subs)
    assert students(doc)["forger"]["submitted_at"] is None
    print_summary(summary)
    said = capsys.readouterr().out
    assert "ignored 1 time file in learners' own folders" in said
    assert "forger/ps1/timestamp.txt" in said


def nbgrader_class(root: Path, late: str = "2026-10-20 12:00:00 UTC") -> Path:
    """nbgrader's course root: submitted/<student>/ps1/ with the timestamp.txt it wrote."""
    for name in ("ada", "bob"):
        hand_in(root / "submitted" / name, "ps1", notebook(RIGHT), name="ps1.ipynb")
        (root / "submitted" / name / "ps1" / "timestamp.txt").write_text(late)
    (root / "source" / "ps1").mkdir(parents=True)
    (root / "source" / "ps1" / "ps1.ipynb").write_text("{}")
    return root


def test_nbgraders_own_folder_is_still_trusted(tmp_path: Path) -> None:
    with open_small_course(tmp_path / "course") as ws:
        summary, doc = run(ws, nbgrader_class(tmp_path / "nbgrader"))
    assert {s["student"]: s["status"] for s in doc["students"]} == {
        "ada": "late-cutoff",
        "bob": "late-cutoff",
    }
    assert summary.ignored_times == ()


def zipped(folder: Path, archive: Path) -> Path:
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(folder.parent).as_posix())
    return archive


def test_times_inside_a_zip_count_only_when_the_instructor_says_it_is_nbgraders(
    tmp_path: Path,
) -> None:
    archive = zipped(nbgrader_class(tmp_path / "nbgrader") / "submitted", tmp_path / "s.zip")
    with open_small_course(tmp_path / "course") as ws:
        summary, doc = run(ws, archive)
        assert all(s["submitted_at"] is None for s in doc["students"])
        assert {s for s, _ in summary.ignored_times} == {"ada", "bob"}
        summary, doc = run(ws, archive, layout="nbgrader")
    assert {s["student"]: s["status"] for s in doc["students"]} == {
        "ada": "late-cutoff",
        "bob": "late-cutoff",
    }


# --- layout: by structure, never by a name ---------------------------------------------------


@pytest.mark.parametrize("learner", ["submitted", "source", "autograded", "ps1"])
def test_a_learner_named_like_a_layout_folder_is_a_learner(tmp_path: Path, learner: str) -> None:
    subs = tmp_path / "subs"
    for name in ("ada", "bob", learner):
        hand_in(subs, name, notebook(RIGHT))
    with open_small_course(tmp_path / "course") as ws:
        _, doc = run(ws, subs)
    assert {s["student"]: s["score"] for s in doc["students"]} == {
        "ada": 6.0,
        "bob": 6.0,
        learner: 6.0,
    }


def test_a_learner_named_submitted_in_nbgraders_nested_layout_is_a_learner(tmp_path: Path) -> None:
    subs = beside_a_timed_nested_learner(tmp_path / "subs", "submitted")
    with open_small_course(tmp_path / "course") as ws:
        _, doc = run(ws, subs)
    assert sorted(s["student"] for s in doc["students"]) == ["ada", "submitted"]


@pytest.mark.parametrize(
    "members",
    [
        pytest.param(["alice/ps1/ps1.ipynb", "alice/ps1/timestamp.txt"], id="nbgrader"),
        pytest.param(["alice/ps1/work.ipynb"], id="nested-without-time"),
        pytest.param(["alice/ps1.ipynb"], id="flat"),
        pytest.param(["alice/Untitled.ipynb", "alice/data.csv"], id="only-notebook"),
    ],
)
def test_a_zip_of_one_learner_is_graded_under_their_id(tmp_path: Path, members: list[str]) -> None:
    archive = tmp_path / "alice.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for member in members:
            text = notebook(RIGHT) if member.endswith(".ipynb") else "2026-10-01 12:00:00 UTC"
            zf.writestr(member, text)
    with open_small_course(tmp_path / "course") as ws:
        _, doc = run(ws, archive)
    assert [(s["student"], s["score"]) for s in doc["students"]] == [("alice", 6.0)]


def test_a_zipped_folder_of_learners_is_still_opened(tmp_path: Path) -> None:
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("ada", "ps1", "cy"):  # one learner is named like the assignment
            zf.writestr(f"ps1 submissions/{name}/ps1.ipynb", notebook(RIGHT))
    with open_small_course(tmp_path / "course") as ws:
        _, doc = run(ws, archive)
    assert sorted(s["student"] for s in doc["students"]) == ["ada", "cy", "ps1"]


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        ("flat", {"submitted", "notes"}),  # the course root's folders, as learners
        ("nbgrader", {"ada", "bob"}),
        ("lms", {"submitted", "source"}),  # folders are no LMS file: each says so
    ],
)
def test_layout_can_be_forced(tmp_path: Path, layout: str, expected: set[str]) -> None:
    root = nbgrader_class(tmp_path / "nbgrader")
    (root / "source").rename(root / "notes") if layout == "flat" else None
    with open_small_course(tmp_path / "course") as ws:
        _, doc = run(ws, root, layout=layout)
    assert {s["student"] for s in doc["students"]} == expected


# --- ids: one rule for folders, LMS names, rosters and times files ---------------------------


@pytest.mark.parametrize(
    "name",
    ["alice\u034f", "alice\ufe0f", "al\u200bice", "alice\u2060", "a\u3164b", "ali\u00adce"],
)
def test_an_id_with_an_invisible_character_is_refused(tmp_path: Path, name: str) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "alice", notebook(RIGHT))
    hand_in(subs, name, notebook(RIGHT))
    with open_small_course(tmp_path / "course") as ws:
        summary, doc = run(ws, subs)
    by = students(doc)
    assert by["alice"]["score"] == 6.0
    assert by[name]["status"] == "ungradable" and "is invisible" in english(by[name]["error"])


@pytest.mark.parametrize("other", ["Alice", "ALICE", "aLiCe"])
def test_ids_that_differ_only_in_case_are_never_two_learners(tmp_path: Path, other: str) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "alice", notebook(RIGHT))
    hand_in(subs, other, notebook(RIGHT))
    hand_in(subs, "bob", notebook(RIGHT))
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nalice\nbob\n")
    with open_small_course(tmp_path / "course") as ws:
        _, doc = run(ws, subs)
        by = students(doc)
        assert by["alice"]["status"] == by[other]["status"] == "ungradable"
        assert "differ only in case" in english(by["alice"]["error"]) and other in english(
            by["alice"]["error"]
        )
        assert by["bob"]["score"] == 6.0
        _, doc = run(ws, subs, roster=load_roster(roster), force=True)  # the roster settles it
    by = students(doc)
    assert by["alice"]["score"] == 6.0
    assert by[other]["status"] == "ungradable" and "roster's alice" in english(by[other]["error"])
    pages = {p.name.casefold() for p in (ws.loaded.root / "autograded" / "ps1").rglob("*.json")}
    assert len(pages) == len(list((ws.loaded.root / "autograded" / "ps1").rglob("*.json")))


@pytest.mark.parametrize(
    "other", ["\u0430lice", "\uff41lice", "a1ice", "\u0430l\u0456ce"], ids=str.encode
)
def test_ids_that_look_alike_are_both_graded_and_warned_about(
    tmp_path: Path, other: str, capsys: pytest.CaptureFixture[str]
) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "alice", notebook(RIGHT))
    hand_in(subs, other, notebook(RIGHT))
    with open_small_course(tmp_path / "course") as ws:
        summary, doc = run(ws, subs)
    assert {s["student"]: s["score"] for s in doc["students"]} == {"alice": 6.0, other: 6.0}
    assert set(summary.lookalikes) == {("alice", other), (other, "alice")}
    print_summary(summary)
    said = capsys.readouterr().out
    assert "look like another learner's" in said and f"{other!r} looks like 'alice'" in said


def test_an_lms_name_that_looks_like_a_roster_id_is_warned_about(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "lovelace\u0430da_1234_5678_ps1.ipynb").write_text(notebook(RIGHT))
    roster = tmp_path / "roster.csv"
    roster.write_text("student,lms_id\nlovelaceada,999\n")
    with open_small_course(tmp_path / "course") as ws:
        summary, _ = run(ws, subs, roster=load_roster(roster))
    assert summary.lookalikes == (("lovelace\u0430da", "lovelaceada"),)


def roster_problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_roster(path)
    return [str(p).removeprefix(f"{path}:") for p in caught.value.problems]


def test_a_roster_reports_every_problem_at_once(tmp_path: Path) -> None:
    problems = roster_problems(
        tmp_path,
        "student,nmae,email\n"
        "alice,A,a@x.org\n"
        "Alice,B,b@x.org\n"
        "bob\u034f,C,c@x.org\n"
        '"ca\nrl",D,d@x.org\n'
        "dan,E,not-an-email\n",
    )
    assert problems == [
        "1:9: unknown column 'nmae' (did you mean 'name'?); the columns are student, name, "
        "email, section, sis_user_id, sis_login_id, lms_id, language, extra_hours, time_factor, "
        "extra_attempts",
        "3:1: student 'Alice' is already on line 2 as 'alice'",
        "4:1: student id 'bob\u034f' is not allowed: U+034F COMBINING GRAPHEME JOINER is "
        "invisible (letters, digits and . _ - @ + only, starting with a letter or digit, no '..')",
        "5:1: student id 'ca\\nrl' is not allowed: U+000A is a control character (letters, "
        "digits and . _ - @ + only, starting with a letter or digit, no '..')",
        "7:7: not an email: 'not-an-email'",
    ]


def test_a_roster_warns_about_ids_that_look_alike_with_both(tmp_path: Path) -> None:
    path = tmp_path / "roster.csv"
    path.write_text("student\nalice\nbob\n\u0430lice\n\uff41lice\n", encoding="utf-8")
    warnings = sorted(str(w).removeprefix(f"{path}:") for w in load_roster(path).warnings)
    assert warnings == [
        "4:1: warning: '\u0430lice' looks like 'alice' (U+0430 CYRILLIC SMALL LETTER A) (line 2)",
        "5:1: warning: '\uff41lice' looks like 'alice' (U+FF41 FULLWIDTH LATIN SMALL LETTER A) "
        "(line 2)",
        "5:1: warning: '\uff41lice' looks like '\u0430lice' (U+FF41 FULLWIDTH LATIN SMALL LETTER "
        "A, U+0430 CYRILLIC SMALL LETTER A) (line 4)",
    ]


def times_problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "times.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        read_times_file(path)
    return [line.removeprefix(f"{path}:") for line in str(caught.value).splitlines()]


def test_a_times_file_reports_every_problem_at_once(tmp_path: Path) -> None:
    problems = times_problems(
        tmp_path,
        "student,submitted_at,note\n"
        "ada,2026-10-01T12:00:00Z,x\n"
        "Ada,2026-10-02T12:00:00Z,y\n"
        '"b\nob",2026-10-01T12:00:00Z,z\n'
        "cy\u200b,2026-10-01T12:00:00Z,\n"
        "ada,tomorrow,\n"
        ",2026-10-01T12:00:00Z,\n",
    )
    assert problems == [
        "3:1: Ada is listed twice (first on line 2 as 'ada'; ids differ only in case)",
        "4:1: student: 'b\\nob' is not allowed: U+000A is a control character (letters, digits "
        "and . _ - @ + only, starting with a letter or digit, no '..')",
        "6:1: student: 'cy\\u200b' is not allowed: U+200B ZERO WIDTH SPACE is invisible "
        "(letters, digits and . _ - @ + only, starting with a letter or digit, no '..')",
        "7:1: ada is listed twice (first on line 2)",
        "7:5: submitted_at: not a time: 'tomorrow'",
        "8:1: student: empty",
    ]


def test_a_times_file_id_that_looks_like_a_learners_is_noted(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    hand_in(subs, "alice", notebook(RIGHT))
    times = tmp_path / "times.csv"
    times.write_text(f"student,submitted_at\n\u0430lice,{LATE}\n", encoding="utf-8")
    with open_small_course(tmp_path / "course") as ws:
        summary, doc = run(ws, subs, times=times)
    assert students(doc)["alice"]["submitted_at"] is None
    assert summary.lookalikes == (("alice", "\u0430lice"),)


# --- every CSV through one writer ------------------------------------------------------------


def test_the_class_reports_csv_tables_guard_formulas_from_lms_names(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "=HYPERLINK(x)_1234_5678_ps1.ipynb").write_text(notebook(RIGHT))
    (subs / "@SUM(A1)_1235_5679_ps1.ipynb").write_text(notebook(RIGHT))
    hand_in(subs, "ada", notebook(RIGHT))
    with open_small_course(tmp_path / "course") as ws:
        run(ws, subs)
        root = ws.loaded.root
    done = CliRunner().invoke(
        main, ["report", "ps1", "--csv", str(tmp_path / "csv"), "--course", str(root)]
    )
    assert done.exit_code == 0, done.output
    written = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "csv").iterdir()}
    assert "students.csv" in written
    for name, text in written.items():
        for line in text.splitlines():
            cells = line.split(",")
            assert not any(c.startswith(("=", "@")) for c in cells), (name, line)
    assert "'=HYPERLINK(x)" in written["students.csv"]
    assert "'@SUM(A1)" in written["students.csv"]
    grades = (root / "autograded" / "ps1" / "grades.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK(x)" in grades and "\n=" not in grades
