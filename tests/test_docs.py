"""The documentation: the site builds with warnings as errors, and the README stays the front
door (short, the two set-up commands first, every link leading somewhere)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
README_MAX_LINES = 200


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    # --strict turns every warning into a failure: a link to a page or an anchor that is
    # gone, a page left out of the nav, a command or docstring the generators cannot read.
    env = {
        **os.environ,
        # The CLI reference imports graders.cli, and the API reference reads graders/checker:
        # both from this checkout, whichever copy of graders the environment installed.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "NO_MKDOCS_2_WARNING": "1",  # mkdocs-material's notice about its successor
    }
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "graders autograde" in cli and "--min-score" in cli
    api = (site / "reference" / "checker-api" / "index.html").read_text(encoding="utf-8")
    assert 'id="graders.checker.verdicts.tensor_verdict"' in api
    assert 'id="graders.checker.measure.call"' in api or 'id="graders.checker.calls.call"' in api


def test_the_readme_is_short_and_starts_with_the_two_set_up_commands() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines: move text to docs/"
    first_block = re.search(r"```\w*\n(.*?)```", "\n".join(lines), re.S)
    assert first_block is not None
    before = "\n".join(lines)[: first_block.start()]
    assert "\n## " not in before, "the set-up commands come before the first section"
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands[:2] == ["make demo", "make test"]


def slug(heading: str) -> str:
    """A heading's anchor as MkDocs makes it (Python-Markdown's toc slugify)."""
    ascii_text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_text).strip().lower())


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}


def test_every_link_of_the_readme_leads_somewhere() -> None:
    # The README is not part of the site, so the strict build does not check its links.
    text = README.read_text(encoding="utf-8")
    local = [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:|#", t)]
    assert local, "the README links to the documentation"
    missing = [t for t in local if not (REPO / t.split("#")[0]).exists()]
    assert missing == []
    broken = [
        t for t in local if "#" in t and t.split("#")[1] not in anchors(REPO / t.split("#")[0])
    ]
    assert broken == []


def test_the_cli_reference_is_what_the_commands_say_today() -> None:
    """docs/reference/cli.md is committed Markdown (readable in the repository): generated
    from the commands' --help by `make cli-reference`, and kept fresh by this test."""
    env = {  # this checkout's graders, as the site's build reads it
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    made = subprocess.run(
        [sys.executable, str(REPO / "docs" / "cli_reference.py"), "--print"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        check=True,
    )
    committed = (REPO / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    assert committed == made.stdout, "docs/reference/cli.md is stale: make cli-reference"
