"""The export registry: a format registered from outside is one like the built-in ones.

A toy format (a text line per learner) is registered in the test: `graders export` lists
and writes it, autograde's outputs folder holds it when it says it is one of them, and
the options it declares are checked by the format, as Moodle's identifier is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from class_documents import make_doc
from click.testing import CliRunner
from small_course import RIGHT, WRONG, hand_in, notebook, open_small_course

from graders.batch.autograde import autograde
from graders.cli import main
from graders.errors import UsageError
from graders.exports.contract import ExportContext
from graders.exports.formats import (
    ExportFormat,
    formats,
    get_format,
    outputs_listed,
    register,
    unregister,
)
from graders.exports.from_gradebook import ExportRequest, export_assignment
from graders.exports.results_files import write_outputs
from graders.lms.contract import ExportOption
from graders.results import ClassFile, ClassResults, StudentResult
from graders.workspace import Workspace


@dataclass(frozen=True)
class ToyFile:
    """``student score`` a line per learner; ``--shout yes`` writes it in capitals."""

    loud: bool

    def head(self) -> str:
        return "# toy\n"

    def student(self, s: StudentResult) -> str:
        line = f"{s.student} {s.score:g}\n"
        return line.upper() if self.loud else line

    def tail(self) -> str:
        return "# end\n"


def toy_writer(results: ClassResults, context: ExportContext) -> ClassFile:
    return ToyFile(context.chosen.get("shout") == "yes")


SHOUT = ExportOption("shout", ("yes", "no"), "capitals or not.")
TOY = ExportFormat("toy", "a line per learner", ".txt", toy_writer, (SHOUT,), "toy.txt")


@pytest.fixture
def toy() -> Iterator[ExportFormat]:
    register(TOY)
    yield TOY
    unregister(TOY.name)


@pytest.fixture
def graded(tmp_path: Path) -> Iterator[Workspace]:
    with open_small_course(tmp_path / "course") as ws:
        subs = tmp_path / "subs"
        hand_in(subs, "ada", notebook(RIGHT))
        hand_in(subs, "bob", notebook(WRONG))
        autograde(ws, "ps1", subs)
        yield ws


def test_a_registered_format_is_listed_after_the_built_in_ones(toy: ExportFormat) -> None:
    names = [f.name for f in formats()]
    assert names[:4] == ["results", "grades", "junit", "gradescope"]
    assert {"canvas", "moodle", "csv"} <= set(names) and names[-1] == "toy"
    assert get_format("toy") is toy
    assert outputs_listed().endswith("gradescope/ and toy.txt")
    help_text = CliRunner().invoke(main, ["export", "--help"]).output
    assert "toy" in help_text.split("--format")[1].split("]")[0]


def test_the_outputs_folder_holds_a_registered_output(toy: ExportFormat, tmp_path: Path) -> None:
    doc = make_doc(tmp_path)
    out = tmp_path / "out"
    write_outputs(ClassResults.of(doc), out)
    lines = (out / "toy.txt").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# toy" and lines[-1] == "# end"
    assert len(lines) == len(doc.students) + 2


def test_graders_export_writes_a_registered_format(toy: ExportFormat, graded: Workspace) -> None:
    root = str(graded.loaded.root)
    args = ["export", "ps1", "--format", "toy", "--course", root]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    path = graded.loaded.root / "autograded" / "ps1" / "ps1-toy.txt"
    assert path.read_text(encoding="utf-8") == "# toy\nada 6\nbob 1\n# end\n"
    assert "wrote 2 students" in result.output


def test_a_format_checks_the_options_it_declares(toy: ExportFormat, graded: Workspace) -> None:
    loud = export_assignment(graded.loaded, "ps1", ExportRequest("toy", options={"shout": "yes"}))
    assert loud.text == "# toy\nADA 6\nBOB 1\n# end\n"
    with pytest.raises(UsageError, match="unknown toy shout 'maybe': one of yes, no"):
        export_assignment(graded.loaded, "ps1", ExportRequest("toy", options={"shout": "maybe"}))
    with pytest.raises(UsageError, match="--shout is not an option of the canvas format"):
        export_assignment(graded.loaded, "ps1", ExportRequest("canvas", options={"shout": "no"}))


def test_a_format_of_a_file_per_learner_is_not_one_file(graded: Workspace) -> None:
    with pytest.raises(UsageError, match="gradescope writes a file per learner"):
        export_assignment(graded.loaded, "ps1", ExportRequest("gradescope"))
