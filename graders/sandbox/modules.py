"""Modules given as source text, installed in the warm fork server before it forks.

A course's own code that runs in children (a code exercise's checker) lives in the course
folder, which children must not read and which, at the namespaced levels, the fork
server cannot read either. So the runner hands the sources over at start-up (through a
file descriptor, as one JSON object) and the server executes them as modules, once: every
child then finds them imported, and pays nothing for them.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

Sources = dict[str, tuple[str, str]]  # module name -> (file name to report, source text)


def install(name: str, filename: str, source: str) -> ModuleType:
    """Execute ``source`` as the module ``name`` (its parent packages made empty when missing).

    A failure while executing leaves nothing in ``sys.modules`` and propagates.
    """
    parent, _, _leaf = name.rpartition(".")
    if parent and parent not in sys.modules:
        package = install(parent, "<package>", "")
        package.__path__ = []  # a namespace for the modules installed under it
    spec = importlib.util.spec_from_loader(name, loader=None, origin=filename)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    module.__file__ = filename
    code = compile(source, filename, "exec", dont_inherit=True)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def to_fd(sources: Sources) -> int:
    """An inheritable descriptor holding ``sources`` (read it once with ``install_from``)."""
    fd = os.memfd_create("graders-modules", 0)
    os.write(fd, json.dumps(sources).encode())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def install_from(fd: int) -> list[str]:
    """Install every module of the JSON object at ``fd``; return problems, one per line."""
    with os.fdopen(fd, "rb") as f:
        sources = json.loads(f.read())
    problems = []
    for name, (filename, source) in sources.items():
        if name in sys.modules:
            continue
        try:
            install(name, filename, source)
        except Exception as exc:  # noqa: BLE001 - reported to the runner; jobs needing it are refused
            problems.append(f"{filename}: {type(exc).__name__}: {exc}")
    return problems


def resolve(task: str) -> Callable[..., Any]:
    """Import ``module:function`` (once, in the server: later children get it warm)."""
    module_name, _, name = task.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module_name), name)
    if not callable(function):
        raise TypeError(f"{task} is not a function")
    return function
