"""The public API is exactly what ``__all__`` lists, and importing it is cheap.

In the spirit of httpx's ``test_all_imports_are_exported``: ``__all__`` must equal the
names a package really offers, so a name added or removed without updating it fails.
"""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from types import ModuleType

import pytest

import graders

PACKAGES = [
    "graders",
    "graders.answers",
    "graders.kinds.predict",
    "graders.nbgrader",
    "graders.sandbox",
]


def offered(module: ModuleType) -> list[str]:
    """The public names a module offers: its own public globals (submodules aside), plus
    the names it resolves lazily, plus ``__version__``."""
    names = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, ModuleType) and name != "annotations"
    }
    names |= set(getattr(module, "_PUBLIC", {}))
    names |= {"__version__"} if hasattr(module, "__version__") else set()
    return sorted(names, key=str.casefold)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_exactly_what_the_package_offers(name: str) -> None:
    module = importlib.import_module(name)
    assert sorted(module.__all__, key=str.casefold) == offered(module)


@pytest.mark.parametrize("name", sorted(set(graders.__all__) - {"__version__"}))
def test_each_public_name_is_the_object_of_that_name(name: str) -> None:
    obj = getattr(graders, name)
    assert (obj.__name__, obj.__module__.split(".")[0]) == (name, "graders")
    assert inspect.getdoc(obj), f"{name} has no docstring"


def test_dir_lists_the_lazy_names() -> None:
    assert set(graders.__all__) <= set(dir(graders))


def test_unknown_names_are_errors() -> None:
    with pytest.raises(AttributeError, match="not_a_thing"):
        graders.not_a_thing  # noqa: B018


def test_importing_the_cli_does_not_import_torch() -> None:
    code = "import sys, graders.cli; print('torch' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"
