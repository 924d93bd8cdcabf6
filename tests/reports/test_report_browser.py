"""The class report in a real browser (Debian's chromium, driven by playwright).

A class of 36 is simulated on the repository's ps1: each student has an ability and holds
some of the misconceptions the course declares, answers accordingly (sometimes with an
answer nobody named, an unreadable one, or none), and a few hand in late. The batch is
graded by the real pipeline (truths from torch, in process), saved in a gradebook, and
`graders report` writes the page that chromium opens. Screenshots go to test-artifacts/;
`pytest --update-goldens` also refreshes docs/report.png.
"""

from __future__ import annotations

import random
import shutil
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from gradebook_rows import record_results
from in_browser import artifact, launched_chromium, needs_browser
from what_starts import starts

from graders.cli import main
from graders.gradebook import store as gradebook
from graders.grading.pipeline import (
    Submission,
    answer_key,
    grade_submission,
    prepare_assignment,
    ungradable,
)
from graders.kinds.base import Context
from graders.reports.charts import number
from graders.reports.course_info import CourseInfo, course_info
from graders.sandbox import InProcessRunner
from graders.workspace import load

# Nothing in the background while the report's screenshots are taken.
QUIET = ["--disable-background-networking", "--disable-component-update", "--disable-sync"]
REPO = Path(__file__).resolve().parent.parent.parent
NAMES = (
    "ada alan barbara carol dana edsger frances grace hedy ivan joan ken linus margaret niklaus "
    "olga peter "
    "radia sophie tim ursula vint whitfield xiaoyun yukihiro zoe amal bjarne chen dorothy emmy fei "
    "guido "
    "hanna imre jun karen"
).split()
UNREADABLE = ("tensor(2.", "true?", "same as a", "Tensor 2")
SLIPS = (
    (".clone().detach()", ".detach()"),
    ("torch.no_grad()", "torch.enable_grad()"),
    (".detach()", ""),
)

pytestmark = needs_browser


def wrong_answer(key: str, rng: random.Random) -> str:
    """A plausible wrong answer for the literal ``key`` (it may or may not be a declared
    misconception)."""
    if key in ("True", "False"):
        return "False" if key == "True" else "True"
    if key == "no error":
        return rng.choice(["RuntimeError", "ValueError"])
    if key.endswith("Error") or key.endswith("Warning"):
        return "no error"
    if key.startswith("tensor(") and "requires_grad=True" in key:
        return key.replace(", requires_grad=True", "")
    if key.startswith("tensor("):
        return key[:-1] + ", requires_grad=True)"
    return "None"


def buggy(solution: str) -> str:
    """A reference solution with a typical slip: a detach() without the clone(), or a crash."""
    for right, slip in SLIPS:
        if right in solution:
            return solution.replace(right, slip, 1)
    return solution.replace("return ", "return undefined_name + ", 1)


def code_answer(code: tuple[str, str], ability: float, rng: random.Random) -> str:
    """Source for a code exercise, from (solution, template): right, slipped, or untouched."""
    solution, template = code
    roll = rng.random()
    return solution if roll < ability else buggy(solution) if roll < ability + 0.2 else template


def simulate_class(
    key: dict[str, str], info: CourseInfo, code: dict[str, tuple[str, str]], due: Any, seed: int = 7
) -> list[Submission]:
    """Submissions of NAMES[:-1] for the predict questions of ``key`` and the code exercises
    of ``code`` (exercise -> (solution, template)); deterministic for a seed."""
    rng = random.Random(seed)
    items = [i for i in key if info.item(i).literal]
    declared = sorted({m.name for i in items for m in info.item(i).misconceptions})
    prevalence = {name: rng.uniform(0.02, 0.3) for name in declared}
    subs = []
    for student in NAMES[:-1]:
        ability = rng.betavariate(5, 2)
        held = {m for m in declared if rng.random() < prevalence[m] * (1.3 - ability)}
        answers = {}
        for item in items:
            theirs = [m for m in info.item(item).misconceptions if m.name in held]
            roll = rng.random()
            if theirs and rng.random() < 0.85:
                answers[item] = theirs[0].answer
            elif roll < ability:
                answers[item] = key[item].replace(".)", ".0)") if rng.random() < 0.2 else key[item]
            elif roll < ability + 0.07:
                answers[item] = rng.choice(UNREADABLE) if roll > ability + 0.04 else ""
            else:
                answers[item] = wrong_answer(key[item], rng)
        sources = {ex: code_answer(pair, ability, rng) for ex, pair in code.items()}
        hours = rng.choice(
            [-30.0] * 8 + [20.0, 100.0]
        )  # mostly on time; some late; one past the cutoff
        when = due + timedelta(hours=hours + rng.uniform(-5, 5))
        subs.append(Submission(student, "ps1", {**answers, **sources}, submitted_at=when))
    return subs


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's course files, copied so the gradebook and report stay out of the tree."""
    root = tmp_path_factory.mktemp("course")
    shutil.copy(REPO / "course.yml", root / "course.yml")
    for folder in ("exercises", "solutions", "checkers", "samples"):
        if (REPO / folder).is_dir():
            shutil.copytree(REPO / folder, root / folder)
    return root


@pytest.fixture(scope="module")
def results(course: Path) -> dict[str, Any]:
    """Grade the simulated class, save it in the gradebook, return the results document."""
    loaded = load(course)
    prep = prepare_assignment(
        loaded, "ps1", Context(loaded.course, loaded.root, InProcessRunner(), None)
    )
    info = course_info(loaded)
    code = {
        ex.loaded.exercise.id: (ex.prepared.solution, ex.loaded.exercise.template)
        for ex in prep.exercises
        if ex.loaded.kind.name == "code"
    }
    graded = [
        grade_submission(prep, s)
        for s in simulate_class(answer_key(prep), info, code, prep.assignment.due)
    ]
    graded.append(ungradable(NAMES[-1], "karen/ps1.ipynb: not a notebook (invalid JSON)"))
    engine = gradebook.open_gradebook(gradebook.default_url(course))
    record_results(engine, loaded.course.id, "ps1", graded, isolation="inprocess")
    # The JSON form, as results.json holds it: the page must show these numbers.
    return gradebook.results_document(engine, loaded.course.id, "ps1").to_json()


@pytest.fixture(scope="module")
def report(course: Path, results: dict[str, Any]) -> Path:
    out = course / "autograded" / "ps1" / "report.html"
    result = CliRunner().invoke(main, ["report", "ps1", "--course", str(course)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
@starts("browser")
def browser() -> Iterator[Any]:
    with launched_chromium(QUIET) as chromium:
        yield chromium


def open_page(
    browser: Any, report: Path, width: int, height: int = 900
) -> tuple[Any, list[str], list[str]]:
    """The report in a fresh page; every request is recorded and only the file itself is served."""
    page = browser.new_page(viewport={"width": width, "height": height})
    requests: list[str] = []
    errors: list[str] = []

    def route(r: Any) -> None:
        requests.append(r.request.url)
        r.continue_() if r.request.url == report.as_uri() else r.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(report.as_uri())
    return page, requests, errors


def test_the_page_makes_no_network_request(browser: Any, report: Path) -> None:
    page, requests, errors = open_page(browser, report, 1280)
    page.wait_for_load_state("networkidle")
    assert requests == [report.as_uri()]
    assert errors == []
    page.close()


def test_charts_show_the_numbers_of_the_results(
    browser: Any, report: Path, results: dict[str, Any]
) -> None:
    page, _, _ = open_page(browser, report, 1280)
    graded = sorted(s["score"] for s in results["students"] if s["status"] == "graded")
    bins = [
        int(c)
        for c in page.eval_on_selector_all(
            "svg.histogram rect.bin", "rs => rs.map(r => r.dataset.count)"
        )
    ]
    assert sum(bins) == len(graded) == int(page.inner_text("#kpi-count"))
    assert page.inner_text("#kpi-highest") == number(max(graded))
    assert page.locator("svg.histogram line.marker-mean").count() == 1

    counts: dict[str, Counter[str]] = {}
    for s in results["students"]:
        for q in s["questions"]:
            counts.setdefault(q["id"], Counter())[q["status"]] += 1
    rows = page.eval_on_selector_all(
        "ol.questions > li",
        "ls => ls.map(l => [l.dataset.item, +l.dataset.correct, +l.dataset.wrong])",
    )
    assert {item: (c, w) for item, c, w in rows} == {
        i: (c["correct"], c["wrong"]) for i, c in counts.items()
    }
    shares = [c / sum(counts[i].values()) for i, c, _ in rows]
    assert shares == sorted(shares)  # hardest first
    assert page.locator("ol.questions svg.stacked rect.correct").count() == sum(
        1 for c in counts.values() if c["correct"]
    )
    page.close()


def test_misconception_counts_and_cooccurrence(
    browser: Any, report: Path, results: dict[str, Any]
) -> None:
    page, _, _ = open_page(browser, report, 1280)
    holders: dict[str, set[str]] = {}
    for s in results["students"]:
        for q in s["questions"]:
            if q["misconception"]:
                holders.setdefault(q["misconception"], set()).add(s["student"])
    shown = page.eval_on_selector_all(
        "ol.misconceptions > li", "ls => ls.map(l => [l.dataset.name, +l.dataset.holders])"
    )
    assert dict(shown) == {name: len(who) for name, who in holders.items()}
    assert page.locator("svg.heatmap rect.pair").count() > 0
    first, second, count = page.eval_on_selector(
        "table.pairs tbody tr", "r => [...r.dataset.pair.split('+'), +r.cells[1].textContent]"
    )
    assert count == len(holders[first] & holders[second])
    assert (
        page.locator("table.unnamed tbody tr").count() > 0
    )  # the simulated class has unnamed wrong answers
    page.close()


def test_student_table_sorts_and_filters_without_a_server(
    browser: Any, report: Path, results: dict[str, Any]
) -> None:
    page, _, _ = open_page(browser, report, 1280)
    table = "#student-table > tbody > tr"
    assert page.locator(table).count() == len(results["students"])
    score = page.locator("#student-table thead th", has_text="score").locator("button")
    score.click()
    ascending = page.eval_on_selector_all(table, "rs => rs.map(r => +r.cells[2].dataset.key)")
    assert ascending == sorted(ascending) and ascending != sorted(ascending, reverse=True)
    score.click()
    assert page.eval_on_selector_all(table, "rs => rs.map(r => +r.cells[2].dataset.key)") == sorted(
        ascending, reverse=True
    )

    page.fill("form.filters input[type=search]", "late-cutoff")
    late = sum(s["status"] == "late-cutoff" for s in results["students"])
    assert page.locator(f"{table}:not([hidden])").count() == late
    total = len(results["students"])  # said from the page's translated sentence, not the script's
    assert page.locator("form.filters output").text_content() == f"{late} of {total} shown"
    page.fill("form.filters input[type=search]", "")
    page.check("form.filters input[type=checkbox]")
    assert (
        page.locator(f"{table}:not([hidden])").count()
        == page.locator("table.help tbody tr").count()
    )
    page.close()


def test_a_student_name_opens_their_answers(
    browser: Any, report: Path, results: dict[str, Any]
) -> None:
    page, _, _ = open_page(browser, report, 1280)
    student = next(s for s in results["students"] if s["status"] == "graded")
    details = page.locator(f"details#a-{student['student']}")
    assert not details.evaluate("d => d.open")
    page.click(f"#student-table a[href='#a-{student['student']}']:not(.strip-link)")
    assert details.evaluate("d => d.open")
    rows = details.locator("tbody tr")
    assert rows.count() == len(student["questions"])
    wrong = sum(q["status"] == "wrong" for q in student["questions"])
    assert details.locator("tbody .swatch.wrong").count() == wrong
    page.close()


def test_the_page_reads_without_javascript(browser: Any, report: Path) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(report.as_uri())
    assert page.locator(
        "form.filters"
    ).is_hidden()  # the filter needs the script; the table does not
    assert (
        page.locator("#student-table > tbody > tr:visible").count()
        == page.locator("#student-table > tbody > tr").count()
    )
    context.close()


@pytest.mark.parametrize(
    ("name", "width", "height"),
    [("report", 1280, 1000), ("report-phone", 390, 844)],
    ids=["laptop", "phone"],
)
def test_screenshots(
    browser: Any, report: Path, update_goldens: bool, name: str, width: int, height: int
) -> None:
    page, _, _ = open_page(browser, report, width, height)
    # Nothing may stick out sideways: wide tables scroll inside their card, charts shrink.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot = artifact(f"{name}.png")
    page.screenshot(path=str(shot))
    if name == "report":  # the whole page once, to look at when a test above fails
        page.screenshot(path=str(artifact("report-full.png")), full_page=True)
    assert shot.stat().st_size > 10_000
    if update_goldens and name == "report":
        shutil.copy(shot, REPO / "docs" / "report.png")
    page.close()
