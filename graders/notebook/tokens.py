"""The learner's token for a service: asked once, kept in their own config folder.

    token = learner_token("https://grading.example.edu", ask=ask_hidden)
    TokenStore().forget("https://grading.example.edu")     # the service refused it

Where it comes from, first found first: ``GRADERS_TOKEN`` in the environment (a kernel
that cannot ask, a JupyterHub whose spawner sets it per learner); the token kept for this
service's URL; else the learner is asked, with hidden input (``getpass``, which ipykernel
turns into a password box in JupyterLab, Notebook 7 and VS Code). A token is kept only
once the service has taken it, in ``<config>/graders/tokens.json`` (one per service URL),
readable by its owner only (mode 0600): never in the notebook, which is handed in.
"""

from __future__ import annotations

import getpass
import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

TOKEN_ENV = "GRADERS_TOKEN"
TOKENS_FILE = "tokens.json"


class Source(StrEnum):
    """Where a token came from: what to do when the service refuses it."""

    ENVIRONMENT = "environment"
    STORED = "stored"
    ASKED = "asked"


@dataclass(frozen=True)
class Token:
    value: str
    source: Source


class NoToken(Exception):
    """No token is set or kept, and this place cannot ask for one (or none was typed)."""


def config_folder() -> Path:
    """graders' folder in the user's configuration folder, as each system places it."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "graders"


class TokenStore:
    """The tokens kept for each service URL, in one file only its owner may read."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder or config_folder()) / TOKENS_FILE

    def get(self, url: str) -> str | None:
        found = self._read().get(url)
        return found if isinstance(found, str) and found else None

    def put(self, url: str, token: str) -> None:
        self._write(self._read() | {url: token})

    def forget(self, url: str) -> None:
        kept = self._read()
        if kept.pop(url, None) is not None:
            self._write(kept)

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none kept yet, or a file broken by hand: ask again
        return data if isinstance(data, dict) else {}

    def _write(self, tokens: dict[str, object]) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Written whole beside it and renamed over it: an interrupted write leaves the old
        # file. mkstemp creates it 0600, so no one else can read the token, even for a moment.
        fd, name = tempfile.mkstemp(prefix=".tokens-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(tokens, f, indent=1, sort_keys=True)
            os.replace(name, self.path)
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise


def learner_token(url: str, store: TokenStore, ask: Callable[[], str]) -> Token:
    """The token to send to the service at ``url`` (see the module docstring)."""
    from_environment = os.environ.get(TOKEN_ENV, "").strip()
    if from_environment:
        return Token(from_environment, Source.ENVIRONMENT)
    stored = store.get(url)
    if stored:
        return Token(stored, Source.STORED)
    typed = ask().strip()
    if not typed:
        raise NoToken
    return Token(typed, Source.ASKED)


def ask_hidden(prompt: str) -> str:
    """The learner's answer to ``prompt``, not shown as typed; ``NoToken`` where nothing
    can be asked (a kernel run by a program, a terminal with no input)."""
    try:
        # Looked up at each call: ipykernel puts its own getpass in place while a cell runs.
        return getpass.getpass(prompt)
    except (EOFError, NotImplementedError) as exc:  # IPython's StdinNotImplementedError
        raise NoToken from exc
