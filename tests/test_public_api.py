"""The public API is exactly what `graders.__all__` lists, and importing it is cheap."""

from __future__ import annotations

import subprocess
import sys

import graders


def test_every_public_name_resolves() -> None:
    for name in graders.__all__:
        assert getattr(graders, name) is not None, name


def test_unknown_names_are_errors() -> None:
    try:
        graders.not_a_thing  # noqa: B018
    except AttributeError as exc:
        assert "not_a_thing" in str(exc)
    else:
        raise AssertionError("graders.not_a_thing should not exist")


def test_importing_the_cli_does_not_import_torch() -> None:
    code = "import sys, graders.cli; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
