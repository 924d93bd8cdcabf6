"""One rule says which notebook in a folder is the learner's, and every door follows it.

``graders autograde`` (a student folder), ``graders ci`` (the folder it is given) and the
learner's ``check()``/``submit()`` (the folder the kernel runs in, when the kernel names no
notebook) take the same notebook from the same folder, or each refuses for the same
reason (``graders.intake.notebook_choice``):

- the notebook named for the assignment, ``ps1.ipynb`` or any notebook in ``ps1/``;
- else the only other notebook, unless it is named for another assignment (``ps2.ipynb``);
- never a hidden copy (``.ipynb_checkpoints``), never a link;
- several candidates, or none, are refused with what was found.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graders.errors import SubmissionError, UsageError
from graders.integrations.ci import notebook as ci
from graders.notebook import presubmit as learner
from graders.submissions.folder import find_submissions

ASSIGNMENT = "ps1"
OTHERS = ("ps2",)  # the course's other assignment


class Refused(str):
    """The folder gives no notebook; every door's message says this."""


HIDDEN_COPY = ["Untitled.ipynb", ".ipynb_checkpoints/Untitled-checkpoint.ipynb"]
LINK = ["ps1.ipynb -> ../../secret.ipynb"]  # "a -> b": a link to b, outside the folder

# (files in the learner's folder, what every door takes from it)
LAYOUTS = [
    pytest.param(["ps1.ipynb"], "ps1.ipynb", id="named-flat"),
    pytest.param(["ps1/answers.ipynb"], "ps1/answers.ipynb", id="nbgrader-subfolder"),
    pytest.param(["ps1.ipynb", "Untitled.ipynb"], "ps1.ipynb", id="named-beside-a-draft"),
    pytest.param(["Untitled.ipynb", "notes.txt"], "Untitled.ipynb", id="one-stray-draft"),
    pytest.param(["ps1 (1).ipynb"], "ps1 (1).ipynb", id="a-browsers-copy-name"),
    pytest.param(["ps2.ipynb"], Refused("no notebook for ps1"), id="another-assignments-only"),
    pytest.param(
        ["ps2.ipynb", "Untitled.ipynb"], "Untitled.ipynb", id="another-assignments-beside"
    ),
    pytest.param(
        ["draft.ipynb", "final.ipynb"],
        Refused("2 notebooks for ps1, none named ps1.ipynb: "),
        id="two-drafts",
    ),
    pytest.param(
        ["ps1.ipynb", "ps1/ps1.ipynb"],
        Refused("2 notebooks for ps1, expected one: "),
        id="named-twice",
    ),
    pytest.param(["notes.txt"], Refused("no notebook for ps1"), id="none"),
    pytest.param(HIDDEN_COPY, "Untitled.ipynb", id="hidden-checkpoint-copy"),
    pytest.param(
        [".ipynb_checkpoints/ps1-checkpoint.ipynb"],
        Refused("no notebook for ps1"),
        id="only-a-hidden-copy",
    ),
    pytest.param(LINK, Refused("is not a regular file"), id="symlink"),
]


def make_folder(tmp_path: Path, files: list[str]) -> Path:
    """``tmp_path/subs/zoe`` holding ``files`` (a learner's folder in a class's folder)."""
    folder = tmp_path / "subs" / "zoe"
    folder.mkdir(parents=True)
    (tmp_path / "secret.ipynb").write_text("{}", encoding="utf-8")
    for name in files:
        name, _, target = name.partition(" -> ")
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if target:
            path.symlink_to(target)
        else:
            path.write_text("{}", encoding="utf-8")
    return folder


def autograde_choice(folder: Path, assignment: str) -> Path | Refused:
    by_student = {f.student: f for f in find_submissions(folder.parent, assignment, others=OTHERS)}
    found = by_student[folder.name]
    return found.path if found.path is not None else Refused(str(found.error))


def ci_choice(folder: Path, assignment: str | None) -> Path | Refused:
    try:
        return ci.find_notebook(folder, assignment, OTHERS)
    except SubmissionError as exc:
        return Refused(str(exc))


def learner_choice(folder: Path, assignment: str | None) -> Path | Refused:
    """``check()``/``submit(assignment=...)`` in a kernel that names no notebook."""
    try:
        return learner.find_notebook(folder, assignment=assignment, others=OTHERS)
    except UsageError as exc:
        return Refused(str(exc))


@pytest.fixture(autouse=True)
def _no_kernel_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(learner.SESSION_ENV, raising=False)
    monkeypatch.setattr(learner, "running_shell", lambda: None)


def agree(folder: Path, chosen: dict[str, Path | Refused], expected: str) -> None:
    if isinstance(expected, Refused):
        refusals = {door: c for door, c in chosen.items() if isinstance(c, Refused)}
        assert refusals.keys() == chosen.keys(), chosen
        assert all(expected in why for why in refusals.values()), refusals
    else:
        assert chosen == dict.fromkeys(chosen, folder / expected)


@pytest.mark.parametrize("files, expected", LAYOUTS)
def test_autograde_ci_and_the_learner_take_the_same_notebook(
    tmp_path: Path, files: list[str], expected: str
) -> None:
    folder = make_folder(tmp_path, files)
    chosen = {
        "autograde": autograde_choice(folder, ASSIGNMENT),
        "ci": ci_choice(folder, ASSIGNMENT),
        "learner": learner_choice(folder, ASSIGNMENT),
    }
    agree(folder, chosen, expected)


@pytest.mark.parametrize(
    "files, expected",
    [
        pytest.param(["ps2.ipynb"], "ps2.ipynb", id="the-only-one-whatever-its-name"),
        pytest.param(HIDDEN_COPY, "Untitled.ipynb", id="hidden-checkpoint-copy"),
        pytest.param(
            ["a.ipynb", "b.ipynb"],
            Refused("2 notebooks, expected one: a.ipynb, b.ipynb"),
            id="two-listed",
        ),
        pytest.param(["notes.txt"], Refused("no notebook (.ipynb file) in"), id="none"),
        pytest.param(LINK, Refused("is not a regular file"), id="symlink"),
    ],
)
def test_without_an_assignment_the_only_notebook_is_taken_or_they_are_listed(
    tmp_path: Path, files: list[str], expected: str
) -> None:
    folder = make_folder(tmp_path, files)
    chosen = {"ci": ci_choice(folder, None), "learner": learner_choice(folder, None)}
    agree(folder, chosen, expected)


def test_the_learner_is_told_how_to_name_the_notebook(tmp_path: Path) -> None:
    folder = make_folder(tmp_path, ["draft.ipynb", "final.ipynb"])
    with pytest.raises(UsageError) as refused:
        learner.find_notebook(folder, call="submit", assignment="ps1")
    assert str(refused.value) == (
        f"cannot tell which notebook to submit in {folder}: 2 notebooks for ps1, none named "
        "ps1.ipynb: draft.ipynb, final.ipynb; pass its path, e.g. submit('ps1.ipynb')"
    )


def test_the_notebook_the_kernel_names_comes_before_the_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make_folder(tmp_path, ["ps1.ipynb", "scratch.ipynb"])
    monkeypatch.setenv(learner.SESSION_ENV, str(folder / "scratch.ipynb"))
    assert learner.find_notebook(folder, assignment="ps1") == folder / "scratch.ipynb"


def test_ci_alone_searches_a_repository_into_its_subfolders(tmp_path: Path) -> None:
    # A student folder's notebooks are at its top or in ps1/; a repository's may be anywhere.
    repo = make_folder(tmp_path, ["notebooks/Untitled.ipynb", ".git/x.ipynb", "README.md"])
    assert ci_choice(repo, ASSIGNMENT) == repo / "notebooks" / "Untitled.ipynb"
    assert isinstance(autograde_choice(repo, ASSIGNMENT), Refused)
    (repo / "work").mkdir()
    (repo / "work" / "ps1.ipynb").write_text("{}", encoding="utf-8")
    assert ci_choice(repo, ASSIGNMENT) == repo / "work" / "ps1.ipynb"  # named for it: wins
