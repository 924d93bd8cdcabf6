"""The item analysis as a course author reads it, in Chromium: the assignment report's
"Which questions work" (the scatter, the table, the flags) and the course summary's
"Questions across terms", at a phone's 390 px and a laptop's 1280 px, in English and in
Chinese. Nothing sticks out sideways, axe-core finds nothing serious, and a screenshot of
each section is kept (test-artifacts/). The class is tests/term_classes.py's two terms."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from in_browser import artifact, assert_accessible, launched_chromium, needs_axe
from term_classes import course_info, term_class
from what_starts import starts

from graders.i18n import speaking
from graders.reports.model import assignment_report
from graders.reports.render import render_assignment, render_course
from graders.reports.summary import course_summary
from graders.results import ClassResults

pytestmark = needs_axe


@pytest.fixture(scope="module")
@starts("browser")
def browser() -> Iterator[Any]:
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """(page, language) -> the HTML file: "ps1" (the assignment report), "course"."""
    folder = tmp_path_factory.mktemp("terms")
    # A class of 80 a term: enough for the figures and flags, a page axe reads in seconds.
    then, _ = term_class("autograd-2025", 1, later=False, learners=80)
    now, _ = term_class("autograd-2026", 2, later=True, learners=80)
    found = {}
    for language in ("en", "zh"):
        with speaking(language):
            info = course_info()
            summary = course_summary(
                [ClassResults.of(now)], info, [("2025 fall", [ClassResults.of(then)])]
            )
            html = {
                "ps1": render_assignment(assignment_report(ClassResults.of(now), info)),
                "course": render_course(summary),
            }
        for name, text in html.items():
            path = folder / f"{name}-{language}.html"
            path.write_text(text, encoding="utf-8")
            found[name, language] = path
    return found


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("width", [390, 1280], ids=["phone", "laptop"])
@pytest.mark.parametrize(("name", "section"), [("ps1", "items"), ("course", "terms")])
def test_the_item_analysis_reads_on_a_phone_and_a_laptop_in_both_languages(
    browser: Any,
    pages: dict[tuple[str, str], Path],
    name: str,
    section: str,
    width: int,
    language: str,
) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(pages[name, language].as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shown = page.locator(f"section#{section}")
    assert shown.is_visible()
    if section == "terms":
        assert shown.locator("tbody.flagged").count() == 1
    else:
        assert shown.locator("figure.scatter svg").count() == 1
    shot = artifact(f"{name}-{section}-{language}-{width}.png")
    shown.screenshot(path=str(shot))
    assert shot.stat().st_size > 5_000
    assert_accessible(page, f"{name} {section} ({language}, {width} px)")
    page.close()
