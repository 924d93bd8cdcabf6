"""Collecting what LMSs hand out: a flat bulk download, its .zip, any script's names, and a
student folder whose only notebook is not named for the assignment."""

from __future__ import annotations

import stat
import unicodedata
import zipfile
from pathlib import Path

import pytest

from graders.errors import SubmissionError, UsageError
from graders.intake.roster import Roster, RosterEntry
from graders.notebook.read import MAX_NOTEBOOK_BYTES, read_notebook
from graders.submissions.archive import opened_submissions
from graders.submissions.folder import find_submissions


def touch(path: Path, text: str = "{}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def found(folder: Path, roster: Roster | None = None) -> dict:
    entries = find_submissions(folder, "ps1", roster=roster, others=("ps2",))
    return {f.student: f for f in entries}


def roster(*entries: RosterEntry) -> Roster:
    return Roster(Path("roster.csv"), entries)


# --- a flat folder, as Canvas's "Download Submissions" gives it ---------------------------


@pytest.mark.parametrize(
    ("name", "student"),
    [
        ("lovelaceada_1234_5678_ps1.ipynb", "lovelaceada"),
        ("lovelaceada_late_1234_5678_ps1.ipynb", "lovelaceada"),  # Canvas's late marker
        ("lovelaceada_LATE_1234_5678_ps1.ipynb", "lovelaceada"),
        ("alice_1234_ps1.ipynb", "alice"),  # no file id
        ("o_brien_1234_5678_ps1.ipynb", "o_brien"),  # an underscore in the name
        ("anon_x8Ue3_5678_ps1.ipynb", "anon_x8Ue3"),  # an anonymously graded assignment
        ("LATE_anon_x8Ue3_5678_ps1.ipynb", "anon_x8Ue3"),
        ("garcíajosé_1234_5678_ps1.ipynb", "garcíajosé"),
    ],
)
def test_the_student_of_a_downloaded_file_is_in_its_name(
    tmp_path: Path, name: str, student: str
) -> None:
    nb = touch(tmp_path / name)
    entry = found(tmp_path)[student]
    assert (entry.path, entry.source, entry.error) == (nb, name, None)


def test_the_roster_names_the_student_of_each_lms_user_id(tmp_path: Path) -> None:
    touch(tmp_path / "lovelaceada_1234_5678_ps1.ipynb")
    touch(tmp_path / "smithjohn_2001_5679_ps1.ipynb")
    by = found(tmp_path, roster(RosterEntry("ada", lms_id="1234")))
    assert sorted(by) == ["ada", "smithjohn"]  # smithjohn is not on the roster: their name
    assert by["ada"].source == "lovelaceada_1234_5678_ps1.ipynb"


def test_a_download_picks_the_notebook_named_for_the_assignment(tmp_path: Path) -> None:
    touch(tmp_path / "lovelaceada_1234_5678_notes.pdf")
    touch(tmp_path / "lovelaceada_1234_5679_scratch.ipynb")
    chosen = touch(tmp_path / "lovelaceada_1234_5680_ps1.ipynb")
    touch(tmp_path / "babbage_2345_6001_Untitled.ipynb")  # the only notebook: it counts
    touch(tmp_path / "babbage_2345_6002_diagram.png")
    by = found(tmp_path)
    assert by["lovelaceada"].path == chosen
    assert by["babbage"].path == tmp_path / "babbage_2345_6001_Untitled.ipynb"


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            ["hopper_3456_7001_a.ipynb", "hopper_3456_7002_b.ipynb"],
            "2 notebooks for ps1, none named ps1.ipynb: hopper_3456_7001_a.ipynb, "
            "hopper_3456_7002_b.ipynb",
        ),
        (
            ["hopper_3456_7001_report.pdf"],
            "no notebook for ps1: expected a notebook among hopper_3456_7001_report.pdf",
        ),
        (["hopper_3456_7001_ps2.ipynb"], "no notebook for ps1"),  # another assignment's
        (
            ["hopper_3456_7001_ps1.ipynb", "hopper_9999_7002_ps1.ipynb"],
            "2 LMS users are named 'hopper' (ids 3456, 9999): list them in the roster",
        ),
    ],
    ids=["two-unnamed", "no-notebook", "other-assignment", "same-name-two-users"],
)
def test_problems_of_one_downloaded_student(tmp_path: Path, files: list[str], message: str) -> None:
    for name in files:
        touch(tmp_path / name)
    touch(tmp_path / "lovelaceada_1234_5678_ps1.ipynb")
    by = found(tmp_path)
    assert message in str(by["hopper"].error) and by["hopper"].path is None
    assert by["lovelaceada"].error is None


def test_a_loose_notebook_that_names_nobody_is_reported_not_dropped(tmp_path: Path) -> None:
    touch(tmp_path / "ps1.ipynb")
    touch(tmp_path / "README.txt")
    touch(tmp_path / "ada" / "ps1.ipynb")
    by = found(tmp_path)
    assert sorted(by) == ["ada", "ps1.ipynb"]
    assert "not in a student folder" in str(by["ps1.ipynb"].error)


def test_a_student_both_in_a_folder_and_in_a_download_is_one_error(tmp_path: Path) -> None:
    touch(tmp_path / "ada" / "ps1.ipynb")
    touch(tmp_path / "ada_1234_5678_ps1.ipynb")
    (entry,) = find_submissions(tmp_path, "ps1")
    assert entry.path is None
    assert (
        str(entry.error)
        == "2 submissions for ada, expected one: ada/ps1.ipynb, ada_1234_5678_ps1.ipynb"
    )


def test_a_downloaded_file_that_is_a_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ada_1234_5678_ps1.ipynb").symlink_to("/etc/passwd")
    assert "not a regular file" in str(found(tmp_path)["ada"].error)


# --- a .zip of it -------------------------------------------------------------------------


def make_zip(path: Path, members: dict[str, bytes], links: tuple[str, ...] = ()) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return path


def test_a_zipped_download_is_collected_like_the_folder(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "submissions.zip",
        {
            "lovelaceada_1234_5678_ps1.ipynb": b'{"nbformat": 4}',
            "babbage_late_2345_6001_Untitled.ipynb": b"{}",
            "__MACOSX/._lovelaceada_1234_5678_ps1.ipynb": b"\0",
        },
    )
    with opened_submissions(archive) as folder:
        by = found(folder)
        assert sorted(by) == ["babbage", "lovelaceada"]
        assert by["lovelaceada"].path.read_bytes() == b'{"nbformat": 4}'
        assert stat.S_IMODE(by["lovelaceada"].path.stat().st_mode) == 0o600
    assert not folder.exists()  # the unpacked copy is removed with the batch


def test_a_zipped_folder_of_student_folders_is_opened_at_that_folder(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "ps1.zip",
        {"ps1 submissions/ada/ps1.ipynb": b"{}", "ps1 submissions/José/ps1 (1).ipynb": b"{}"},
    )
    with opened_submissions(archive) as folder:
        assert folder.name == "ps1 submissions"
        assert sorted(found(folder)) == ["José", "ada"]


def test_a_zip_of_one_students_folder_is_that_student(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "ada.zip", {"ada/ps1.ipynb": b"{}"})
    with opened_submissions(archive) as folder:
        assert list(found(folder)) == ["ada"]


@pytest.mark.parametrize(
    ("members", "links", "message"),
    [
        ({"../evil.ipynb": b"{}"}, (), "leaves the archive's folder"),
        ({"/etc/cron.d/evil": b"x"}, (), "leaves the archive's folder"),
        ({"ada\\..\\..\\evil.ipynb": b"{}"}, (), "leaves the archive's folder"),
        ({"C:/evil.ipynb": b"{}"}, (), "leaves the archive's folder"),
        ({}, ("ada_1_2_ps1.ipynb",), "is a link or a device"),
    ],
    ids=["dot-dot", "absolute", "backslashes", "drive-letter", "symlink"],
)
def test_path_tricks_in_a_zip_refuse_the_archive(
    tmp_path: Path, members: dict[str, bytes], links: tuple[str, ...], message: str
) -> None:
    archive = make_zip(tmp_path / "s.zip", {"ada_1234_5678_ps1.ipynb": b"{}", **members}, links)
    with pytest.raises(UsageError, match=message), opened_submissions(archive):
        pass
    assert not (tmp_path / "evil.ipynb").exists()


def test_two_members_with_one_name_refuse_the_archive(tmp_path: Path) -> None:
    decomposed = unicodedata.normalize("NFD", "José/ps1.ipynb")
    archive = make_zip(tmp_path / "s.zip", {"José/ps1.ipynb": b"{}", decomposed: b"{}"})
    with pytest.raises(UsageError, match="appears twice"), opened_submissions(archive):
        pass


def test_a_member_too_large_for_a_notebook_is_refused_unread(tmp_path: Path) -> None:
    archive = tmp_path / "s.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("ada/ps1.ipynb", b" " * (MAX_NOTEBOOK_BYTES + 1))  # compresses to little
    with opened_submissions(archive) as folder:
        entry = found(folder)["ada"]
        assert entry.path.stat().st_size == MAX_NOTEBOOK_BYTES + 1
        assert entry.path.stat().st_blocks * 512 < MAX_NOTEBOOK_BYTES  # never written out
        with pytest.raises(SubmissionError, match="larger than the 20 MB"):
            read_notebook(entry.path)


def test_a_file_that_is_not_a_zip_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a submissions folder or a .zip"):
        with opened_submissions(touch(tmp_path / "s.zip", "not a zip")):
            pass


# --- names in any script, and a folder's only notebook ------------------------------------


@pytest.mark.parametrize("name", ["José", "Zoë", "李雷", "Łukasz", "Ногинский", "हिन्दी", "ada"])
def test_letters_of_any_script_name_a_student(tmp_path: Path, name: str) -> None:
    nb = touch(tmp_path / name / "ps1.ipynb")
    assert found(tmp_path)[name].path == nb


def test_a_decomposed_folder_name_is_the_composed_id(tmp_path: Path) -> None:
    decomposed = unicodedata.normalize("NFD", "José")
    nb = touch(tmp_path / decomposed / "ps1.ipynb")
    (entry,) = find_submissions(tmp_path, "ps1")
    assert entry.student == "José" and entry.student != decomposed and entry.path == nb


@pytest.mark.parametrize("name", ["ps1 (1).ipynb", "Untitled.ipynb", "Copy of ps1.IPYNB"])
def test_a_folders_only_notebook_is_the_students_whatever_its_name(
    tmp_path: Path, name: str
) -> None:
    nb = touch(tmp_path / "zoe" / name)
    touch(tmp_path / "zoe" / "notes.txt")
    entry = found(tmp_path)["zoe"]
    assert (entry.path, entry.source, entry.error) == (nb, f"zoe/{name}", None)


def test_the_notebook_named_for_the_assignment_wins_over_others(tmp_path: Path) -> None:
    nb = touch(tmp_path / "yan" / "ps1.ipynb")
    touch(tmp_path / "yan" / "scratch.ipynb")
    assert found(tmp_path)["yan"].path == nb


def test_another_assignments_notebook_is_not_taken_for_this_one(tmp_path: Path) -> None:
    nb = touch(tmp_path / "yan" / "Untitled.ipynb")
    touch(tmp_path / "yan" / "ps2.ipynb")
    assert found(tmp_path)["yan"].path == nb


def test_several_other_notebooks_are_listed_not_guessed(tmp_path: Path) -> None:
    touch(tmp_path / "xi" / "draft.ipynb")
    touch(tmp_path / "xi" / "final.ipynb")
    touch(tmp_path / "xi" / ".hidden.ipynb")
    entry = found(tmp_path)["xi"]
    assert entry.path is None
    assert (
        str(entry.error)
        == "2 notebooks for ps1, none named ps1.ipynb: xi/draft.ipynb, xi/final.ipynb"
    )


def test_a_checkpoint_is_not_a_notebook_of_the_folder(tmp_path: Path) -> None:
    nb = touch(tmp_path / "zoe" / "Untitled.ipynb")
    touch(tmp_path / "zoe" / ".ipynb_checkpoints" / "Untitled-checkpoint.ipynb")
    assert found(tmp_path)["zoe"].path == nb
