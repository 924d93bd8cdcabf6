"""Grading by variant: each learner against their own variant, decided by the learner id the
grader knows (the submission folder), never by the notebook; truths once per variant."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nbformat
from small_course import hand_in, notebook
from stored_text import english
from variant_course import open_variant_course, two_learners

from graders.batch.autograde import autograde
from graders.course.variants import learner_variant
from graders.grading.pipeline import answer_key, for_learner, prepare_assignment
from graders.kinds.base import Context
from graders.kinds.predict.child.task import compute
from graders.sandbox import InProcessRunner, Job, Outcome
from graders.workspace import Workspace

SCALED_ITEMS = ("scaled-grad/grad", "scaled-grad/shape", "scaled-grad/total")


def grade(ws: Workspace, folder: Path, answers: dict[str, dict[str, str]]) -> dict[str, Any]:
    """Hand in one notebook per learner with ``answers``, autograde, read results.json."""
    for student, given in answers.items():
        hand_in(folder, student, notebook({k: json.dumps(v) for k, v in given.items()}))
    summary = autograde(ws, "ps1", folder, db_url=f"sqlite:///{folder}.db", force=True)
    doc = json.loads((summary.out_dir / "results.json").read_text())
    return {s["student"]: s for s in doc["students"]}


def test_each_learner_scores_full_marks_with_their_own_key_only(tmp_path: Path) -> None:
    with open_variant_course(tmp_path / "course") as ws:
        ada, bob = two_learners(ws.loaded)
        prep = prepare_assignment(ws.loaded, "ps1", ws.ctx)
        keys = {s: answer_key(for_learner(prep, s)) for s in (ada, bob)}
        ex = ws.loaded.exercises["scaled-grad"]
        mine = {s: learner_variant(ex, ws.loaded.course, s) for s in (ada, bob)}
        assert mine[ada].exercise.setup != mine[bob].exercise.setup  # type: ignore[union-attr]
        assert all(keys[ada][item] != keys[bob][item] for item in SCALED_ITEMS)
        assert keys[ada]["clone-basics/shares"] == keys[bob]["clone-basics/shares"]

        own = grade(ws, tmp_path / "own", {ada: keys[ada], bob: keys[bob]})
        swapped = grade(ws, tmp_path / "swapped", {ada: keys[bob], bob: keys[ada]})
    for student in (ada, bob):
        assert own[student]["score"] == own[student]["max_score"] == 5
        assert swapped[student]["score"] == 2  # only the questions without parameters
        number = str(mine[student].number)  # type: ignore[union-attr]
        variants = {q["id"]: q.get("variant") for q in own[student]["questions"]}
        assert variants == {
            "clone-basics/shares": None,
            "clone-basics/flag": None,
            **dict.fromkeys(SCALED_ITEMS, number),
        }
        expected = {q["id"]: q["expected"] for q in swapped[student]["questions"]}
        assert {i: expected[i] for i in SCALED_ITEMS} == {i: keys[student][i] for i in SCALED_ITEMS}


def test_a_misconception_is_recognised_in_the_learners_own_variant(tmp_path: Path) -> None:
    with open_variant_course(tmp_path / "course") as ws:
        ada, bob = two_learners(ws.loaded)
        ex = ws.loaded.exercises["scaled-grad"]
        n = {s: learner_variant(ex, ws.loaded.course, s).values["n"] for s in (ada, bob)}  # type: ignore[union-attr]
        forgot = f"tensor({[1.0] * n[ada]})"  # ada's n, every element 1: the scale forgotten
        found = grade(
            ws,
            tmp_path / "in",
            {ada: {"scaled-grad/grad": forgot}, bob: {"scaled-grad/grad": forgot}},
        )
    grad = {
        s: next(q for q in found[s]["questions"] if q["id"] == "scaled-grad/grad")
        for s in (ada, bob)
    }
    assert grad[ada]["misconception"] == "scale-forgotten"
    assert english(grad[ada]["feedback"]).startswith("The gradient of `")
    assert grad[bob]["status"] == "wrong" and grad[bob].get("misconception") is None


def test_notebook_metadata_claiming_another_variant_changes_nothing(tmp_path: Path) -> None:
    with open_variant_course(tmp_path / "course") as ws:
        ada, bob = two_learners(ws.loaded)
        prep = prepare_assignment(ws.loaded, "ps1", ws.ctx)
        bobs_key = answer_key(for_learner(prep, bob))
        theirs = learner_variant(ws.loaded.exercises["scaled-grad"], ws.loaded.course, bob)
        plain = notebook({k: json.dumps(v) for k, v in bobs_key.items()})
        forged = nbformat.reads(plain, as_version=4)
        forged.metadata["graders"] = {
            "assignment": "ps1",
            "student": bob,
            "variants": {"scaled-grad": theirs.number},  # type: ignore[union-attr]
        }
        for cell in forged.cells:
            if "graders" in cell.metadata:
                cell.metadata["graders"]["variant"] = theirs.number  # type: ignore[union-attr]
        results = {}
        for name, text in (("plain", plain), ("forged", nbformat.writes(forged))):
            hand_in(tmp_path / name, ada, text)
            summary = autograde(
                ws, "ps1", tmp_path / name, db_url=f"sqlite:///{tmp_path}/{name}.db"
            )
            doc = json.loads((summary.out_dir / "results.json").read_text())
            (results[name],) = doc["students"]
            results[name].pop("graded_at")
    assert results["forged"] == results["plain"]
    assert results["plain"]["score"] == 2  # ada is graded in ada's variant, whatever it says


class CountingRunner(InProcessRunner):
    """The in-process runner, counting how jobs reach it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def run_all(self, jobs: Sequence[Job]) -> list[Outcome]:
        self.calls.append(len(jobs))
        return super().run_all(jobs)

    def run(self, job: Job) -> Outcome:
        if not self.calls or self.calls[-1] == 0:
            self.calls.append(1)  # a job run alone, outside run_all
        return super().run(job)


def test_truths_are_computed_once_per_variant_in_one_go_then_cached(tmp_path: Path) -> None:
    with open_variant_course(tmp_path / "course") as ws:
        runner = CountingRunner()
        ctx = Context(ws.ctx.course, ws.ctx.root, runner, tmp_path / "cache")
        prepare_assignment(ws.loaded, "ps1", ctx)
        assert sorted(runner.calls) == [1, 4]  # clone-basics, then the four variants together
        runner.calls.clear()
        prep = prepare_assignment(ws.loaded, "ps1", ctx)
        assert runner.calls == []
    ex = next(e for e in prep.exercises if e.loaded.exercise.id == "scaled-grad")
    assert len(ex.variants) == 4
    assert [t.questions["total"].literal for t in ex.variants] == [
        f"tensor({v.values['scale'] * v.values['n']}.)" for v in ex.loaded.variants
    ]


def test_a_variant_leaves_torch_as_it_found_it() -> None:
    # Variants run as the steps of one child: one that changes torch's defaults must not
    # change the next one's truths.
    changes = {
        "seed": 0,
        "setup": "import torch\ntorch.set_default_dtype(torch.float64)\ntorch.set_grad_enabled(False)",
        "questions": [{"id": "dtype", "expr": "torch.ones(1).dtype"}],
    }
    after = {
        "seed": 0,
        "setup": "import torch",
        "questions": [
            {"id": "dtype", "expr": "torch.ones(1).dtype"},
            {"id": "grad", "expr": "torch.is_grad_enabled()"},
        ],
    }
    assert (
        compute(changes)["questions"]["dtype"]["value"]
        != compute(after)["questions"]["dtype"]["value"]
    )
    found = compute(after)["questions"]
    assert found["dtype"]["value"]["name"] == "float32"
    assert found["grad"]["value"]["value"] is True


def test_graders_ci_grades_the_learner_it_is_told_and_asks_when_not_told(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from graders.cli import main

    with open_variant_course(tmp_path / "course") as ws:
        ada, bob = two_learners(ws.loaded)
        prep = prepare_assignment(ws.loaded, "ps1", ws.ctx)  # fills the truth cache
        keys = {s: answer_key(for_learner(prep, s)) for s in (ada, bob)}
    # graders ci counts lateness from the time it runs: the term is moved into the future.
    course_yml = tmp_path / "course" / "course.yml"
    course_yml.write_text(course_yml.read_text().replace('due: "2026-', 'due: "2036-'))
    path = tmp_path / "ps1.ipynb"
    path.write_text(notebook({k: json.dumps(v) for k, v in keys[ada].items()}))
    base = ["ci", str(path), "--assignment", "ps1", "--course", str(tmp_path / "course")]
    runner = CliRunner()
    unnamed = runner.invoke(main, base)
    assert unnamed.exit_code == 2
    assert "each learner has their own variant of scaled-grad: name the learner" in unnamed.output
    for student, score in ((ada, "5/5"), (bob, "2/5")):
        result = runner.invoke(main, [*base, "--student", student])
        assert f"graders: {score} points" in result.output, result.output


def test_feedback_shows_each_learner_their_own_setup_and_expected_answers(tmp_path: Path) -> None:
    from graders.reports.feedback import write_feedback

    with open_variant_course(tmp_path / "course") as ws:
        ada, bob = two_learners(ws.loaded)
        prep = prepare_assignment(ws.loaded, "ps1", ws.ctx)
        keys = {s: answer_key(for_learner(prep, s)) for s in (ada, bob)}
        grade(ws, tmp_path / "in", {ada: keys[ada], bob: keys[ada]})
        pages = write_feedback(ws.loaded, "ps1", f"sqlite:///{tmp_path}/in.db", tmp_path / "fb")
        ex = ws.loaded.exercises["scaled-grad"]
        mine = {s: learner_variant(ex, ws.loaded.course, s) for s in (ada, bob)}
    html = {p.stem: p.read_text() for p in pages}
    for me, other in ((ada, bob), (bob, ada)):
        n, scale = mine[me].values["n"], mine[me].values["scale"]  # type: ignore[union-attr]
        setup = f"a = torch.ones({n}, requires_grad=True)\nb = a.clone() * {scale}"
        assert "Your setup" in html[me] and setup in html[me]
        theirs = mine[other].values  # type: ignore[union-attr]
        assert f"b = a.clone() * {theirs['scale']}\n" not in html[me]
        assert f"The gradient of a clone scaled by {scale}" in html[me]
        assert keys[me]["scaled-grad/total"] in html[me]  # the expected answer, their own


def test_the_report_shows_difficulty_per_variant_and_who_fits_anothers_variant(
    tmp_path: Path,
) -> None:
    from graders.reports.course_info import course_info
    from graders.reports.model import assignment_report
    from graders.reports.render import render_assignment
    from graders.results import ClassResults, ResultsDocument

    with open_variant_course(tmp_path / "course") as ws:
        ada, bob = two_learners(ws.loaded)
        ex = ws.loaded.exercises["scaled-grad"]
        theirs = learner_variant(ex, ws.loaded.course, ada).values  # type: ignore[union-attr]
        cy = next(  # a third learner whose variant differs from ada's in every value
            f"cy{i}"
            for i in range(500)
            if all(
                learner_variant(ex, ws.loaded.course, f"cy{i}").values[p] != theirs[p]  # type: ignore[union-attr]
                for p in theirs
            )
        )
        prep = prepare_assignment(ws.loaded, "ps1", ws.ctx)
        keys = {s: answer_key(for_learner(prep, s)) for s in (ada, bob, cy)}
        results = grade(ws, tmp_path / "in", {ada: keys[ada], bob: keys[bob], cy: keys[ada]})
        doc = ResultsDocument.parse(json.dumps({
            "course": "tiny", "assignment": "ps1", "torch_version": None, "graded_at": None,
            "isolation": None, "students": list(results.values()),
        }))  # fmt: skip
        report = assignment_report(ClassResults.of(doc), course_info(ws.loaded))
    assert report.variants is not None
    (signal,) = report.variants.copying
    assert (signal.student, signal.other) == (cy, ada)
    assert (signal.compared, signal.theirs, signal.own, signal.same_answers) == (3, 3, 0, 5)
    items = {d.item for d in report.variants.difficulty}
    assert items == {"scaled-grad/grad", "scaled-grad/shape", "scaled-grad/total"}
    html = render_assignment(report)
    assert 'id="variants"' in html and "fits the variant of" in html


def test_release_warns_without_a_roster_and_reports_roster_problems(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from graders.cli import main

    with open_variant_course(tmp_path / "course") as ws:
        prepare_assignment(ws.loaded, "ps1", ws.ctx)  # the truths, cached: no sandbox below
    base = ["release", "ps1", "--course", str(tmp_path / "course"), "--out", str(tmp_path / "r")]
    runner = CliRunner()
    plain = runner.invoke(main, base)
    assert plain.exit_code == 0, plain.output
    assert "warning: ps1 gives each learner their own variant of scaled-grad" in plain.output
    roster = tmp_path / "roster.csv"
    roster.write_text("name,student\nAda,ada\nEve,../eve\nAda again,ada\n", encoding="utf-8")
    broken = runner.invoke(main, [*base, "--roster", str(roster)])
    assert broken.exit_code == 2
    assert f"{roster}:3:5: student id '../eve' is not allowed" in broken.output
    assert f"{roster}:4:1: student 'ada' is already on line 2" in broken.output
    roster.write_text("name\nAda\n", encoding="utf-8")
    missing = runner.invoke(main, [*base, "--roster", str(roster)])
    assert f"{roster}:1:1: no 'student' column" in missing.output


def test_graders_key_gives_a_learners_own_key(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from graders.cli import main

    with open_variant_course(tmp_path / "course") as ws:
        ada, bob = two_learners(ws.loaded)
        prep = prepare_assignment(ws.loaded, "ps1", ws.ctx)  # cached: no sandbox below
        keys = {s: answer_key(for_learner(prep, s)) for s in (ada, bob)}
        base = answer_key(prep)
    args = ["key", "ps1", "--json", "--course", str(tmp_path / "course")]
    for student, expected in ((ada, keys[ada]), (bob, keys[bob]), (None, base)):
        extra = ["--student", student] if student else []
        result = CliRunner().invoke(main, [*args, *extra])
        assert json.loads(result.output) == expected
