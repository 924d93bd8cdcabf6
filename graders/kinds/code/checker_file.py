"""A code exercise's checker: a Python file of the course, loaded here and in the sandbox.

The same source is a module in two processes. In the grader, ``load_checker`` executes it
(it is the instructor's code) for its ``CHECKS`` and ``judge``. In the sandbox it is
handed to the warm fork server before it forks (``sandbox_modules``), so that its imports
are paid once per server, not once per submission, and children find it imported. Its
module name carries a digest of its source: a changed checker is a new module, and the
cache key of its exercise's reference observations (``digest``) changes with it, and with
nothing else but the toolkit it runs on.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from ...sandbox.modules import install

PACKAGE = "graders_course_checkers"
REQUIRED = ("CHECKS", "observe", "judge")
# What a checker's observations depend on besides its own source: the toolkit it imports
# and the child that runs learner code under the allowlist (every file, so none is missed).
_TOOLKIT = ("checker/*.py", "kinds/code/*.py")


class CheckerError(Exception):
    """The checker file cannot be used: why, and the line when there is one."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Checker:
    """A loaded checker: its module (in this process), name and source (for the sandbox)."""

    path: Path
    name: str
    source: str
    module: ModuleType

    @property
    def checks(self) -> tuple[str, ...]:
        return tuple(self.module.CHECKS)

    def judge(self, got: Any, ref: Any, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Verdicts per check; ``params``: the variant's values, for an exercise that has some."""
        if params is None:
            return dict(self.module.judge(got, ref))
        return dict(self.module.judge(got, ref, dict(params)))

    def takes_params(self) -> list[str]:
        """Which of ``observe`` and ``judge`` cannot take a variant's values as a third
        argument (an exercise with ``params`` calls both so)."""
        return [name for name in ("observe", "judge") if not _takes(getattr(self.module, name), 3)]


def _takes(function: Any, count: int) -> bool:
    try:
        inspect.signature(function).bind(*range(count))
    except (TypeError, ValueError):
        return False
    return True


def module_name(path: Path, source: str) -> str:
    """``graders_course_checkers.<stem>_<digest>``: one name per content."""
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    return f"{PACKAGE}.{stem}_{hashlib.sha256(source.encode()).hexdigest()[:12]}"


def load_checker(path: Path) -> Checker:
    """The checker at ``path``, executed once per content; ``CheckerError`` saying what is wrong."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckerError(f"cannot read {path.name}: {exc}") from exc
    return _load(str(path), source)


@cache
def _load(path: str, source: str) -> Checker:
    name = module_name(Path(path), source)
    module = sys.modules.get(name) or register(name, path, source)
    missing = [attr for attr in REQUIRED if not hasattr(module, attr)]
    if missing:
        raise CheckerError(f"{Path(path).name} does not define {', '.join(missing)}")
    checks = module.CHECKS
    if not isinstance(checks, tuple) or not all(isinstance(c, str) for c in checks):
        raise CheckerError(f"{Path(path).name}: CHECKS must be a tuple of check ids")
    return Checker(Path(path), name, source, module)


def register(name: str, filename: str, source: str) -> ModuleType:
    """Execute ``source`` as the module ``name``; ``CheckerError`` with the line when it fails."""
    try:
        return install(name, filename, source)
    except SyntaxError as exc:
        raise CheckerError(
            f"{Path(filename).name} is not valid Python: {exc.msg}", exc.lineno
        ) from exc
    except Exception as exc:  # noqa: BLE001 - the instructor's module failed to import: say how
        raise CheckerError(
            f"importing {Path(filename).name} failed: {type(exc).__name__}: {exc}",
            _line_of(exc, filename),
        ) from exc


def _line_of(exc: BaseException, filename: str) -> int | None:
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def digest(checker: Checker) -> str:
    """What the reference observations depend on besides the exercise and its solution."""
    root = Path(__file__).resolve().parent.parent.parent
    h = hashlib.sha256(checker.source.encode())
    for pattern in _TOOLKIT:
        for path in sorted(root.glob(pattern)):
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def sandbox_module(checker: Checker) -> dict[str, tuple[str, str]]:
    """What a fork server needs to import ``checker`` before forking: name -> (file, source)."""
    return {checker.name: (str(checker.path), checker.source)}
