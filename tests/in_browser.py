"""Pages in a real browser: Debian's Chromium driven by Playwright (never ``playwright
install``'s own browsers), screenshots kept, and axe-core's verdict on a page.

    pytestmark = needs_browser            # Chromium and Playwright (needs_axe: and axe-core)
    with launched_chromium() as browser: page = browser.new_page(); ...
    page.screenshot(path=str(artifact("report.png")))
    assert_accessible(page, "report")     # nothing serious or critical
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
ARTIFACTS = REPO / "test-artifacts"  # screenshots
SERIOUS = ("serious", "critical")  # what axe-core finds that fails a page


def browser_missing(axe: bool = False) -> str | None:
    """Why no test can drive a browser here (with axe-core, when ``axe``), or None."""
    if not CHROMIUM.exists():
        return "needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"
    if importlib.util.find_spec("playwright.sync_api") is None:
        return "needs playwright (pip install playwright; never `playwright install`)"
    if axe and importlib.util.find_spec("axe_playwright_python.sync_playwright") is None:
        return "needs axe-playwright-python"
    return None


_NO_BROWSER, _NO_AXE = browser_missing(), browser_missing(axe=True)
needs_browser = pytest.mark.skipif(_NO_BROWSER is not None, reason=_NO_BROWSER or "")
needs_axe = pytest.mark.skipif(_NO_AXE is not None, reason=_NO_AXE or "")


@contextmanager
def launched_chromium(more_args: Sequence[str] = ()) -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (``more_args``: flags of its own)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        args = [*CHROMIUM_ARGS, *more_args]
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=args)
        try:
            yield browser
        finally:
            browser.close()


def artifact(name: str) -> Path:
    """Where a screenshot called ``name`` is kept."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


def assert_accessible(page: Any, name: str) -> None:
    """axe-core finds nothing serious or critical on ``page`` (``name`` says which)."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    serious = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found
        if v["impact"] in SERIOUS
    ]
    assert serious == [], f"{name}: {serious}"
