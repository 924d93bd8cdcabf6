"""The LMS registry: an LMS registered from outside is read as Canvas and Moodle are.

A toy LMS names its download's files ``<name>~<user id>~<file>`` and calls the roster's
``lms_id`` "Learner key": the submissions folder, the ``lms`` layout, the roster's header
and the export formats read it from the registry, with nothing else told of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from graders.errors import SpecError
from graders.exports.contract import ExportContext
from graders.exports.formats import get_format
from graders.exports.from_gradebook import export
from graders.intake.lms_download import pattern_help
from graders.intake.roster import Roster, RosterEntry, load_roster
from graders.lms.contract import Download, ExportOptions, Line, Lms, LmsExport
from graders.lms.registry import get_lms, register, registered, unregister
from graders.results import ClassResults, ResultsDocument, StudentResult, SubmissionStatus
from graders.submissions.folder import find_submissions


def _line(s: StudentResult, entry: RosterEntry, options: ExportOptions) -> Line:
    return Line([entry.lms_id or s.student, f"{s.score:g}"])


TOY = Lms(
    "toylms",
    "ToyLMS",
    {"lms_id": "Learner key"},
    Download(
        re.compile(r"^(?P<name>[a-z]+)~(?P<user>\d+)~(?P<original>.+)$"), "<name>~<id>~<file>"
    ),
    LmsExport("ToyLMS's grade upload", lambda options: [["Learner key", "Grade"]], _line),
)


@pytest.fixture
def toy() -> Iterator[Lms]:
    register(TOY)
    yield TOY
    unregister(TOY.name)


def touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}", encoding="utf-8")
    return path


def test_the_built_in_lmss_come_first(toy: Lms) -> None:
    assert [lms.name for lms in registered()] == ["canvas", "moodle", "toylms"]
    assert get_lms("toylms") is toy
    assert "<name>~<id>~<file>" in pattern_help()


@pytest.mark.parametrize("layout", ["auto", "lms"])
def test_a_download_of_a_registered_lms_is_read_by_its_names(
    toy: Lms, tmp_path: Path, layout: str
) -> None:
    touch(tmp_path / "lovelace~77~ps1.ipynb")
    touch(tmp_path / "babbage~78~ps1.ipynb")
    roster = Roster(Path("roster.csv"), (RosterEntry("ada", lms_id="77"),))
    found = find_submissions(tmp_path, "ps1", roster=roster, layout=layout)
    assert {f.student: f.source for f in found} == {
        "ada": "lovelace~77~ps1.ipynb",  # the roster's student of the LMS's user id
        "babbage": "babbage~78~ps1.ipynb",  # else the name the LMS wrote
    }


def test_the_roster_says_which_column_an_lms_name_is(toy: Lms, tmp_path: Path) -> None:
    path = tmp_path / "roster.csv"
    path.write_text("student,Learner key\nada,77\n", encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_roster(path)
    assert "unknown column 'Learner key' (ToyLMS's 'Learner key' is the roster's 'lms_id')" in (
        str(caught.value)
    )


def test_a_registered_lms_export_is_a_format(toy: Lms) -> None:
    ada = StudentResult("ada", (), status=SubmissionStatus.GRADED)
    results = ClassResults.of(ResultsDocument("c", "ps1", None, None, None, (ada,)))
    roster = Roster(Path("roster.csv"), (RosterEntry("ada", lms_id="77"),))
    form = get_format("toylms")
    assert form.title == "ToyLMS"
    done = export(results, form, ExportContext("ps1", 6.0, roster))
    assert done.text == "Learner key,Grade\r\n77,0\r\n"
