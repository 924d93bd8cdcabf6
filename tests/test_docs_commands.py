"""Every `graders ...` line the README and the docs show is a command graders has, with
options it has: a reader who copies one gets graders' answer, not "No such command".

Lines are parsed as click parses them, without running anything: the subcommands are walked,
then each command's own parser reads the options (an unknown option fails here; values are
not converted, so paths in the examples need not exist)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from graders.cli import main

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)


def shown_commands(page: Path) -> list[str]:
    """The `graders` command lines of a page's code blocks, continuations joined."""
    lines: list[str] = []
    for block in FENCE.findall(page.read_text(encoding="utf-8")):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip().removeprefix("$ ")
            if line.startswith("graders "):
                lines.append(line)
    return lines


def synopsis_words(line: str) -> list[str]:
    """The words of a line, a synopsis's brackets (``[--out DIR]``) and choices (``a|b``)
    read as the options they show; a shell pipe or redirection ends the command."""
    words = shlex.split(line.replace("[", " ").replace("]", " "), comments=True)
    for end, word in enumerate(words):
        if word in {"|", ">", ">>", "2>&1", "&&", ";"}:
            return words[:end]
    return words


def parse(words: list[str]) -> None:
    """Walk the subcommands, then let the command's parser read its options."""
    command: click.Command = main
    context = click.Context(main, info_name="graders")
    rest = words[1:]
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        found = command.get_command(context, rest[0])
        assert found is not None, f"no command {rest[0]!r} under {context.command_path!r}"
        context = click.Context(found, info_name=rest[0], parent=context)
        command, rest = found, rest[1:]
    command.make_parser(context).parse_args(rest)


EXAMPLES = [(page, line) for page in PAGES for line in shown_commands(page)]


def test_the_pages_show_commands() -> None:
    assert len(EXAMPLES) > 40  # the reading above finds the examples at all


@pytest.mark.parametrize(
    ("page", "line"), EXAMPLES, ids=[f"{p.name}:{line[:40]}" for p, line in EXAMPLES]
)
def test_a_shown_command_is_one_graders_has(page: Path, line: str) -> None:
    try:
        parse(synopsis_words(line))
    except click.UsageError as error:
        pytest.fail(f"{page.relative_to(ROOT)}: `{line}`: {error.format_message()}")


@pytest.mark.parametrize(
    "line",
    ["graders autograde ps1 --no-such-option", "graders no-such-command ps1", "graders lti nope"],
)
def test_a_command_graders_does_not_have_is_caught(line: str) -> None:
    with pytest.raises((click.UsageError, AssertionError)):
        parse(synopsis_words(line))
