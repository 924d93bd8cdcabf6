"""docs/reference/cli.md, written from the commands themselves: `make cli-reference`.

The page is plain Markdown committed to the repository, so a reader of the repository sees
every command's options as the docs site does; tests/test_docs.py regenerates it and fails
when the committed page is not what the commands say today. Each command's help is click's
own text, at a fixed width, so the page does not depend on the terminal it was made in.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

PAGE = Path(__file__).resolve().parent / "reference" / "cli.md"
WIDTH = 100
HEAD = """# Command line

Every command works on the `course.yml` of the current folder, or the one `--course PATH`
names. This page is generated from the commands themselves (`make cli-reference`, checked by
the test suite): each section is the command's `--help`.
"""


def page() -> str:
    """The whole page, as the commands describe themselves now."""
    from graders.cli import main

    return HEAD + "".join(_sections(main, ["graders"], None))


def _sections(
    command: click.Command, path: list[str], parent: click.Context | None
) -> Iterator[str]:
    # As click makes a command's context: with the command's own settings (the -h of --help).
    settings = {**command.context_settings, "terminal_width": WIDTH, "max_content_width": WIDTH}
    ctx = click.Context(command, info_name=path[-1], parent=parent, **settings)
    if parent is not None:
        yield f"\n## {' '.join(path)}\n\n```text\n{command.get_help(ctx)}\n```\n"
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _sections(sub, [*path, name], ctx)


if __name__ == "__main__":
    # Run in a process of its own (the test does too): click keeps each command's help
    # option once a context has asked for it, so a process that ran commands before could
    # write another page.
    if sys.argv[1:] == ["--print"]:
        sys.stdout.write(page())
    else:
        PAGE.write_text(page(), encoding="utf-8")
        sys.stdout.write(f"wrote {PAGE}\n")
