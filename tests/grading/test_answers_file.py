"""Answers files are the learner's, read as hostile data: no aliases, bounded values, the
learner is the one the file is named for, and one learner has one row."""

from __future__ import annotations

from pathlib import Path

import pytest
from stored_text import english

from graders.errors import SubmissionError
from graders.grading.answers_files import read_answers_file

ALIAS_BOMB = "\n".join(
    ["student: ada", "answers:"]
    + ["  a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    + [
        f"  a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]"
        for i in range(1, 9)
    ]
)


@pytest.mark.parametrize(
    "text, message",
    [
        (ALIAS_BOMB, "ada.yml:3:7: YAML anchors and aliases (&, *) are not accepted"),
        (
            "student: bob\nanswers: {q/a: 'True'}\n",
            "the file says student 'bob', but answers are graded under the name of their file ('ada')",
        ),
        (
            "student: ada\nanswers: {q/a: [" + ", ".join(["1"] * 5000) + "]}\n",
            "an answer longer than 10000 characters",
        ),
        ("student: ada\nanswers: [1, 2\n", "ada.yml:3:1: invalid YAML"),
    ],
    ids=["alias-bomb", "impersonation", "huge-literal", "broken"],
)
def test_a_hostile_answers_file_is_refused_with_its_place(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "ada.yml"
    path.write_text(text)
    with pytest.raises(SubmissionError) as raised:
        read_answers_file(path)
    assert message in str(raised.value)


def test_unquoted_yaml_values_are_the_literal_the_learner_typed(tmp_path: Path) -> None:
    path = tmp_path / "ada.yml"
    path.write_text(
        "student: ada\nanswers:\n  q/a: True\n  q/b: [1, [2, 3]]\n  q/c: {x: 1}\n  q/d: 2.5\n"
    )
    assert read_answers_file(path).answers == {
        "q/a": "True",
        "q/b": "[1, [2, 3]]",
        "q/c": "{'x': 1}",
        "q/d": "2.5",
    }


@pytest.mark.sandbox
def test_impersonation_and_a_learner_twice_cost_those_files_only(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner
    from small_course import write_course

    from graders.cli import main

    course = write_course(tmp_path / "course")
    right = 'answers:\n  clone-basics/shares: "False"\n  clone-basics/grad: tensor(3.)\n'
    files = {
        "ada.yml": "student: bob\n" + right,
        "bob.yml": "student: bob\n" + right,
        "one/cy.yml": "student: cy\n" + right,
        "two/cy.yml": "student: cy\n" + right,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    args = ["grade", "ps1", *(str(tmp_path / n) for n in files), "--json", "--course", str(course)]
    doc = json.loads(CliRunner().invoke(main, args).stdout)

    rows = {(s["student"], s["status"]) for s in doc["students"]}
    assert [s["student"] for s in doc["students"]] == ["ada", "bob", "cy"]
    assert rows == {("ada", "ungradable"), ("bob", "graded"), ("cy", "ungradable")}
    bob = next(s for s in doc["students"] if s["student"] == "bob")
    assert bob["score"] == pytest.approx(2.0)
    cy = next(s for s in doc["students"] if s["student"] == "cy")
    assert (
        "more than one file in this batch is for 'cy'" in english(cy["error"])
        and "one/cy.yml" in english(cy["error"])
        and "two/cy.yml" in english(cy["error"])
    )


@pytest.mark.sandbox
def test_an_answers_files_own_time_is_never_the_one_the_late_policy_counts_from(
    tmp_path: Path,
) -> None:
    import json

    from click.testing import CliRunner

    repo = Path(__file__).resolve().parent.parent.parent
    examples = repo / "examples" / "ps1"
    # cy handed in late (the examples' times file says so) and writes an early time herself.
    claim = "submitted_at: '2036-09-01T00:00:00Z'\n"
    (tmp_path / "cy.yml").write_text(claim + (examples / "cy.yml").read_text())
    from graders.cli import main

    def grade(*extra: str) -> tuple[dict, str]:
        args = ["grade", "ps1", str(tmp_path / "cy.yml"), "--json", "--course", str(repo)]
        result = CliRunner().invoke(main, [*args, *extra])
        [cy] = json.loads(result.stdout)["students"]
        return cy, result.stderr

    cy, said = grade("--times", str(examples / "times.csv"))
    assert 0 < cy["late_factor"] < 1
    assert cy["submitted_at"] == "2036-10-07T09:00:00+02:00"
    assert "submitted_at in cy.yml ignored" in said

    cy, said = grade()
    assert cy["late_factor"] == 1 and cy["submitted_at"] is None
    assert "no submission times for 1 of 1: late policy not applied" in said
