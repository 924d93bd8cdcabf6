"""The CI templates (``integrations/ci/templates``): a workflow and two shell scripts, Jinja2.

Values reach shell commands through the ``sh`` filter (``shell_word``), so a notebook
name with spaces or quotes stays one argument, and so does a sentence in the learner's
language (``_()``, graders' catalogue), whatever quotes or ``$`` its translation holds.
Actions are named by ``uses`` (``actions.PINS``): a commit, never a tag.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from ... import __version__
from ...grading.torch_side import torch_version
from ...i18n import _, ngettext
from .actions import uses


def render(name: str, **values: Any) -> str:
    """Render ``templates/ci/<name>``; an unknown variable is an error, not an empty string."""
    env = Environment(
        loader=PackageLoader("graders.integrations.ci", "templates"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        extensions=["jinja2.ext.i18n"],
    )
    # What a workflow tells the learner, in the language spoken (``i18n.speaking``).
    env.install_gettext_callables(gettext=_, ngettext=ngettext, newstyle=True)  # type: ignore[attr-defined]
    env.filters["sh"] = lambda value: shell_word(str(value))
    env.globals["uses"] = uses
    return env.get_template(name).render(
        version=__version__, torch_version=pinned_torch(), **values
    )


def pinned_torch() -> str:
    """The torch release to install: the one the truths come from here (``2.13.0``, not
    ``2.13.0+cpu``)."""
    return torch_version().split("+")[0]


def command(*words: str) -> str:
    """A shell command line, each word quoted where it needs to be."""
    return " ".join(shell_word(word) for word in words)


# What stays special between double quotes: escaped there, each stands for itself.
_DOUBLE_QUOTED = re.compile(r'([\\"$`])')


def shell_word(word: str) -> str:
    """``word`` as one shell word that stands for itself: single-quoted (``shlex.quote``),
    but double-quoted with ``$``, backquotes, ``"`` and backslashes escaped where it holds
    ``$`` or a backquote, which shellcheck takes for a forgotten expansion in single quotes
    (SC2016), as in a sentence naming `graders-feedback`."""
    if "$" not in word and "`" not in word:
        return shlex.quote(word)
    return '"' + _DOUBLE_QUOTED.sub(r"\\\1", word) + '"'
