"""A text of a stored results document as an English reader's page writes it.

A results document keeps what it tells a learner as parts (``graders.said``): a test that
reads ``results.json`` itself reads a feedback or an error the way a page writes them.
"""

from __future__ import annotations

from typing import Any

from graders.said import from_json, render


def english(stored: Any) -> str:
    """The stored text (its JSON form) written in English ("" for none)."""
    return "" if stored is None else render(from_json(stored), "en")
