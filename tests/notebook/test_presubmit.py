"""`graders check`: which answers the grader cannot read, never whether they are right."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from notebook_helpers import answer_index, copy_course, fill, save_nb
from what_starts import starts

from graders.cli import main
from graders.course.load import load_course
from graders.errors import SubmissionError, UsageError
from graders.grading.pipeline import answer_key, prepare_assignment
from graders.notebook import presubmit
from graders.notebook.cells import cell_id
from graders.notebook.kernel import CELL_KEY
from graders.notebook.presubmit import check, check_notebook, find_notebook
from graders.notebook.release import student_notebook
from graders.workspace import open_workspace

SAVED = 1_790_000_000  # a fixed mtime, so two reports can be compared whole


@pytest.fixture(scope="module")
@starts("sandbox")
def released(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[dict[str, Any], dict[str, str]]]:
    """The student notebook of nb1 (as JSON) and the key computed by torch."""
    course = copy_course(tmp_path_factory.mktemp("check") / "course")
    with open_workspace(course) as ws:
        key = answer_key(prepare_assignment(ws.loaded, "nb1", ws.ctx))
    loaded = load_course(course / "course.yml")
    nb = student_notebook(loaded, loaded.course.assignments[0])
    yield _as_json(nb), key


def _as_json(nb: Any) -> dict[str, Any]:
    import json

    return json.loads(json.dumps(nb))


def _saved(nb: dict[str, Any], path: Path) -> Path:
    save_nb(nb, path)
    os.utime(path, (SAVED, SAVED))
    return path


def test_a_complete_notebook_is_ok(released, tmp_path: Path) -> None:
    nb, key = released
    report = check_notebook(_saved(fill(nb, key), tmp_path / "nb1.ipynb"))
    assert report.ok and len(report.readable) == 8
    assert report.text().endswith(
        "8 of 8 answers can be read. This check never tells whether an answer is right."
    )


@pytest.mark.parametrize(
    ("environ", "first_line"),
    [
        pytest.param(
            {}, "Checked nb1.ipynb (assignment nb1) as saved at ", id="a-learner-s-machine"
        ),
        pytest.param(
            {"CI": "true"}, "Checked nb1.ipynb (assignment nb1) as it was handed in.", id="ci"
        ),
        pytest.param(
            {"GITHUB_ACTIONS": "true"},
            "Checked nb1.ipynb (assignment nb1) as it was handed in.",
            id="github",
        ),
    ],
)
def test_only_a_learner_is_asked_to_save_the_notebook_first(
    released,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    environ: dict[str, str],
    first_line: str,
) -> None:
    for name in ("CI", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    nb, key = released
    text = check_notebook(_saved(fill(nb, key), tmp_path / "nb1.ipynb")).text()
    assert text.startswith(first_line)
    assert ("save the notebook first" in text) is not environ


def test_the_report_is_the_same_for_right_and_wrong_answers(released, tmp_path: Path) -> None:
    nb, key = released
    wrong = {item: ("True" if text == "False" else "False") for item, text in key.items()}
    wrong["independent-copy"] = "def independent_copy(t):\n    return t\n"
    right_report = check_notebook(_saved(fill(nb, key), tmp_path / "a" / "nb1.ipynb"))
    wrong_report = check_notebook(_saved(fill(nb, wrong), tmp_path / "b" / "nb1.ipynb"))
    assert right_report.text() == wrong_report.text()


def test_the_report_names_each_problem_by_its_notebook_heading(released, tmp_path: Path) -> None:
    nb, key = released
    nb = fill(
        nb, {k: v for k, v in key.items() if k not in ("clone-basics/backward", "independent-copy")}
    )
    index = answer_index(nb)
    nb["cells"][index["clone-basics/grad"]]["source"] = "answer = tensor(3.) + 1"
    nb["cells"][index["detach-basics/flags"]]["source"] = "%pip install torch\nanswer = 1"
    nb["cells"].insert(
        index["clone-basics/shares-memory"],
        dict(nb["cells"][index["clone-basics/shares-memory"]], id="dup"),
    )
    del nb["cells"][answer_index(nb)["detach-basics/resize-leaf"]]
    report = check_notebook(_saved(nb, tmp_path / "nb1.ipynb"))
    assert not report.ok
    assert [f.key for f in report.unreadable] == ["clone-basics/grad"]
    assert "Could not read this answer: tensor(3.) + 1: arithmetic" in str(
        report.unreadable[0].message
    )
    assert report.stops == ()  # the unreadable cell is reported once, as unreadable
    assert [(f.key, str(f.message)) for f in report.notes] == [
        (
            "detach-basics/flags",
            "An answer cell must hold only the answer line: move `%pip install torch` to a cell "
            "of its own. The grader read only the last `answer = ...` line.",
        )
    ]
    assert report.unanswered == ("clone-basics/backward", "independent-copy")
    assert report.missing == ("detach-basics/resize-leaf",)
    assert [f.key for f in report.duplicated] == ["clone-basics/shares-memory"]
    text = report.text()
    assert (
        "The grader cannot read 1 of your answers:" in text
        and "4 of 8 answers can be read." in text
    )
    assert "  - Question 1.4 — clone() of a tensor that requires grad: Could not read" in text
    assert "Not answered yet (2):\n  Question 1.3, Exercise 3\n" in text
    assert (
        "Answer cells missing from the notebook (1); they count as unanswered:\n  Question 2.3"
        in text
    )
    assert (
        "  - Question 1.1 — clone() of a tensor that requires grad: Your notebook has 2 answer "
        'cells for this question; the last one, `answer = "False"`, was graded.' in text
    )
    assert not re.search(r"cells? \d", text)  # Jupyter shows no cell numbers


RUN_ALL = [
    pytest.param('answer = "tensor(2.)"', None, id="quoted-runs"),
    pytest.param("answer = True", None, id="python-literal-runs"),
    pytest.param("answer = RuntimeError", None, id="builtin-exception-runs"),
    pytest.param("answer = torch.Size([3, 4])", None, id="torch-name-from-the-setup-runs"),
    pytest.param(
        "answer = tensor(2.)",
        "NameError: name 'tensor' is not defined; write it as `answer = \"tensor(2.)\"`",
        id="unquoted-tensor",
    ),
    pytest.param(
        "answer = <CloneBackward0>",
        'SyntaxError: invalid syntax (line 1); write it as `answer = "<CloneBackward0>"`',
        id="unquoted-grad-fn",
    ),
    pytest.param(
        "answer = no error",
        'SyntaxError: invalid syntax (line 1); write it as `answer = "no error"`',
        id="unquoted-no-error",
    ),
    pytest.param(
        'answer = "tensor(2.)',
        "SyntaxError: unterminated string literal (detected at line 1); "
        'write it as `answer = "tensor(2.)"`',
        id="unclosed-quote",
    ),
    pytest.param(
        "answer = “tensor(2.)”",
        "SyntaxError: `“` (U+201C) is not a character Python reads (line 1); "
        'write it as `answer = "tensor(2.)"`',
        id="curly-quotes",
    ),
    pytest.param('answer = "（2，3）"', None, id="full-width-inside-quotes-runs"),
    pytest.param(
        "answer = false",
        "NameError: name 'false' is not defined; write it as `answer = \"false\"`",
        id="lower-case-false",
    ),
]


def released_before(nb: dict[str, Any]) -> dict[str, Any]:
    """``nb`` as notebooks were released before their first cell made answers text."""
    return nb | {"cells": [c for c in nb["cells"] if c.get("id") != cell_id(CELL_KEY)]}


@pytest.mark.parametrize(("source", "stop"), RUN_ALL)
def test_answer_cells_that_would_stop_run_all_are_named_with_the_fix(
    released, tmp_path: Path, source: str, stop: str | None
) -> None:
    nb, _ = released
    nb = released_before(fill(nb, {}))
    nb["cells"][answer_index(nb)["clone-basics/grad"]]["source"] = source
    report = check_notebook(_saved(nb, tmp_path / "nb1.ipynb"))
    assert [str(f.message) for f in report.stops] == ([stop] if stop else [])
    assert report.ok and "clone-basics/grad" in report.readable  # a warning: still readable
    if stop:
        assert "1 answer cell would stop Run All" in report.text()
        assert "Question 1.4 — clone() of a tensor that requires grad: " + stop in report.text()


def test_in_a_notebook_released_now_no_answer_cell_stops_run_all(released, tmp_path: Path) -> None:
    # Its first cell makes each answer cell bind its text in the kernel (``notebook.kernel``).
    nb, _ = released
    nb = fill(nb, {})
    for n, source in enumerate(case.values[0] for case in RUN_ALL):
        cell = nb["cells"][answer_index(nb)["clone-basics/grad"]]
        nb["cells"].append(cell | {"id": f"copy-{n}", "source": source})
    report = check_notebook(_saved(nb, tmp_path / "nb1.ipynb"))
    assert report.stops == ()


def test_a_name_defined_in_a_cell_of_the_learners_own_does_not_stop_run_all(
    released, tmp_path: Path
) -> None:
    nb, _ = released
    nb = released_before(fill(nb, {}))  # answer cells run as Python
    index = answer_index(nb)["clone-basics/grad"]
    nb["cells"][index]["source"] = "answer = tensor(2.)"
    own = {
        "cell_type": "code",
        "id": "own",
        "metadata": {},
        "source": "from torch import tensor",
        "outputs": [],
        "execution_count": None,
    }
    nb["cells"].insert(index, own)
    assert check_notebook(_saved(nb, tmp_path / "nb1.ipynb")).stops == ()


CODE_CASES = [
    pytest.param("def copy_of(t):\n    return t.clone()\n", "", id="defines-entry"),
    pytest.param("copy_of = lambda t: t.clone()\n", "", id="assigns-entry"),
    pytest.param("def copy_of(t):\n    return (t\n% 2)\n", "", id="percent-continuation-is-python"),
    pytest.param(
        "def copy_of(t)\n    return t\n",
        "not valid Python: expected ':' (line 1)",
        id="syntax-error",
    ),
    pytest.param(
        "!pip install x\ndef copy_of(t):\n    return t\n",
        "lines starting with `!` or `%` are IPython commands",
        id="magic",
    ),
    pytest.param("def copy(t):\n    return t\n", "does not define `copy_of`", id="wrong-name"),
    pytest.param(
        "if True:\n    def copy_of(t):\n        return t\n",
        "does not define `copy_of`",
        id="not-top-level",
    ),
    pytest.param("import torch\n\n\ndef copy_of(t):\n    ...\n", None, id="template-untouched"),
    pytest.param("# YOUR CODE HERE\nraise NotImplementedError()", None, id="nbgrader-stub"),
]


@pytest.mark.parametrize(("source", "problem"), CODE_CASES)
def test_code_cells_are_parsed_never_run(tmp_path: Path, source: str, problem: str | None) -> None:
    cell = {
        "cell_type": "code",
        "id": "c",
        "metadata": {"graders": {"exercise": "copy", "entry": "copy_of"}},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    report = check_notebook(_saved(nb, tmp_path / "c.ipynb"))
    found = [str(f.message) for f in report.unreadable]
    assert report.unanswered == (("copy",) if problem is None else ())
    assert (found == []) if not problem else (len(found) == 1 and problem in found[0])


def test_the_command_exits_1_when_an_answer_cannot_be_read(released, tmp_path: Path) -> None:
    nb, key = released
    good = _saved(fill(nb, key), tmp_path / "good.ipynb")
    bad = _saved(fill(nb, {"clone-basics/grad": "tensor(3.) + 1"}), tmp_path / "bad.ipynb")
    assert CliRunner().invoke(main, ["check", str(good), "--assignment", "nb1"]).exit_code == 0
    result = CliRunner().invoke(main, ["check", str(bad)])
    assert (
        result.exit_code == 1
        and "Question 1.4 — clone() of a tensor that requires grad: Could not read this answer"
        in result.output
    )


def test_the_command_explains_an_unreadable_or_mismatched_notebook(
    released, tmp_path: Path
) -> None:
    nb, _ = released
    path = _saved(nb, tmp_path / "nb1.ipynb")
    result = CliRunner().invoke(main, ["check", str(path), "--assignment", "ps9"])
    assert (
        result.exit_code == 1
        and "this notebook is for assignment 'nb1', not 'ps9'" in result.output
    )
    (tmp_path / "empty.ipynb").write_bytes(b"")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "empty.ipynb")])
    assert result.exit_code == 1 and "the file is empty" in result.output


def test_check_in_a_kernel_finds_its_notebook_from_jupyter(
    released, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    nb, _ = released
    _saved(nb, tmp_path / "work" / "nb1.ipynb")
    _saved(nb, tmp_path / "work" / "other.ipynb")
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "work" / "nb1.ipynb"))
    check()
    assert capsys.readouterr().out.startswith("Checked nb1.ipynb (assignment nb1)")


def test_without_a_session_the_only_notebook_in_the_folder_is_checked(
    released, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setattr(presubmit, "running_shell", lambda: None)
    _saved(released[0], tmp_path / "only.ipynb")
    assert find_notebook(tmp_path) == tmp_path / "only.ipynb"
    _saved(released[0], tmp_path / "second.ipynb")
    with pytest.raises(UsageError, match=r"2 notebooks, expected one: only.ipynb, second.ipynb"):
        find_notebook(tmp_path)


def test_a_notebook_without_answer_cells_is_refused(tmp_path: Path) -> None:
    nb = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    with pytest.raises(SubmissionError, match="no answer cells"):
        check_notebook(_saved(nb, tmp_path / "x.ipynb"))


def test_from_graders_import_check_gives_the_function_every_time() -> None:
    import graders

    first = graders.check
    from graders import check as again

    assert callable(first) and again is first is check


# What a learner's check must never load: torch and what only grading, releasing, the
# sandbox, the pages or the gradebook need. Each kind's cells module reads its cells
# (`kinds.BUILTIN_KINDS`); the kind itself, with its grading side, is not imported.
NEVER_IMPORTED_BY_CHECK = (
    "torch",
    "numpy",
    "nbformat",
    "jinja2",
    "sqlalchemy",
    "pydantic",
    "graders.sandbox",
    "graders.checker",
    "graders.kinds.code.kind",
    "graders.kinds.code.checker_file",
    "graders.kinds.code.model",
    "graders.course.model",
    "graders.workspace",
    "graders.course.load",
    "graders.grading.pipeline",
    "graders.kinds.predict.kind",
    "graders.kinds.predict.truth",
    "graders.kinds.predict.judge",
    "graders.reports",
)


def test_checking_a_notebook_loads_no_grading_side(released, tmp_path: Path) -> None:
    nb, key = released
    path = _saved(fill(nb, key), tmp_path / "nb1.ipynb")
    code = (
        "import sys\nfrom graders.cli import main\n"
        "try:\n    main(['check', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    )
    assert "8 of 8 answers can be read" in run.stdout
    loaded = set(run.stderr.split())
    assert "graders.kinds.predict.cells" in loaded  # the check did read the predictions
    assert "graders.kinds.code.cells" in loaded  # and looked for code cells
    assert [m for m in NEVER_IMPORTED_BY_CHECK if m in loaded] == []


@pytest.mark.parametrize(
    "source",
    [
        'answer = "tensor(3.)"',
        'answer = "..."',
        "answer = tensor(3.)",
        'answer = "tensor(3.) + 1"',
        "def copy(t):\n    return t.clone().detach()\n",
        "def copy(t):\n    ...\n",
        "%pip install torch",
        "",
    ],
    ids=["prediction", "unanswered", "unquoted", "arithmetic", "code", "stub", "magic", "empty"],
)
def test_each_kinds_cell_reader_reads_as_the_kind_does(source: str) -> None:
    from graders.kinds.registry import cell_readers, get_kind

    meta = {"entry": "copy"}
    for reader in cell_readers():
        kind = get_kind(reader.kind)
        assert kind is not None and reader.tag == kind.cell_tag
        assert reader.read_cell(source, meta) == kind.read_cell(source, meta)
        assert reader.cell_problem(source, meta) == kind.cell_problem(source, meta)


def test_the_built_in_kinds_keep_their_order_whichever_is_imported_first() -> None:
    code = (
        "import graders.kinds.code.kind\nfrom graders.kinds.registry import all_kinds\n"
        "print(' '.join(k.name for k in all_kinds()))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["predict", "code"]
